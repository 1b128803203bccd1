package builtin

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/sources/kafka"
)

// kafkaSecurity reads Spark's (that is, the Kafka client's) security
// options into a kafka.Security:
//
//	kafka.security.protocol              PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
//	kafka.sasl.mechanism                 PLAIN (default), SCRAM-SHA-256, SCRAM-SHA-512
//	kafka.sasl.jaas.config               PlainLoginModule or ScramLoginModule
//	                                     required username="…" password="…";
//	kafka.ssl.truststore.location        PEM file of trusted CAs
//	kafka.ssl.truststore.certificates    the same, inline
//	kafka.ssl.truststore.type            PEM (the only type read)
//	kafka.ssl.keystore.location          PEM file: client key and certificate chain
//	kafka.ssl.keystore.certificate.chain the chain, inline
//	kafka.ssl.keystore.key               the unencrypted key, inline
//	kafka.ssl.keystore.type              PEM (the only type read)
//	kafka.ssl.endpoint.identification.algorithm
//	                                     https (default) or "" (chain checked, name not)
//
// Errors name the option, never a password or key: the JAAS config is
// described, not quoted.
func kafkaSecurity(o *catalog.Options) (kafka.Security, error) {
	var s kafka.Security
	s.Protocol, _ = o.String("kafka.security.protocol")
	s.Mechanism, _ = o.String("kafka.sasl.mechanism")
	for _, key := range []string{"kafka.ssl.truststore.type", "kafka.ssl.keystore.type"} {
		if v, ok := o.String(key); ok && !strings.EqualFold(v, "PEM") {
			return s, &catalog.OptionError{Key: key, Msg: fmt.Sprintf("option %s: %q is not read; only PEM files are (convert a JKS or PKCS12 store with keytool -exportcert -rfc, openssl pkcs12 -nodes)", key, v)}
		}
	}
	if v, ok := o.String("kafka.ssl.endpoint.identification.algorithm"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "https":
		case "":
			s.SkipHostnameVerification = true
		default:
			return s, &catalog.OptionError{Key: "kafka.ssl.endpoint.identification.algorithm", Msg: fmt.Sprintf("option kafka.ssl.endpoint.identification.algorithm: %q: want https (check the broker's host name, the default) or '' (do not)", v)}
		}
	}
	s.CAFile, _ = o.String("kafka.ssl.truststore.location")
	if v, ok := o.String("kafka.ssl.truststore.certificates"); ok {
		s.CAPEM = []byte(v)
	}
	if v, ok := o.String("kafka.ssl.keystore.location"); ok {
		// Kafka's PEM keystore file holds the key and the chain together.
		s.CertFile, s.KeyFile = v, v
	}
	if v, ok := o.String("kafka.ssl.keystore.certificate.chain"); ok {
		s.CertPEM = []byte(v)
	}
	if v, ok := o.String("kafka.ssl.keystore.key"); ok {
		s.KeyPEM = kafka.NewSecret(v)
	}
	if jaas, ok := o.String("kafka.sasl.jaas.config"); ok {
		module, opts, err := parseJAAS(jaas)
		if err != nil {
			return s, &catalog.OptionError{Key: "kafka.sasl.jaas.config", Msg: "option kafka.sasl.jaas.config: " + err.Error()}
		}
		mech := strings.ToUpper(s.Mechanism)
		switch {
		case strings.HasSuffix(module, ".PlainLoginModule") && (mech == "" || mech == kafka.MechanismPlain):
		case strings.HasSuffix(module, ".ScramLoginModule") && strings.HasPrefix(mech, "SCRAM-"):
		default:
			return s, &catalog.OptionError{Key: "kafka.sasl.jaas.config", Msg: fmt.Sprintf("option kafka.sasl.jaas.config: login module %s does not go with kafka.sasl.mechanism %s (PLAIN takes org.apache.kafka.common.security.plain.PlainLoginModule, SCRAM-SHA-256/512 org.apache.kafka.common.security.scram.ScramLoginModule)", module, orDefault(s.Mechanism, "PLAIN"))}
		}
		s.Username = opts["username"]
		s.Password = kafka.NewSecret(opts["password"])
		if s.Username == "" || s.Password.IsZero() {
			return s, &catalog.OptionError{Key: "kafka.sasl.jaas.config", Msg: `option kafka.sasl.jaas.config: username="…" and password="…" are both required`}
		}
	}
	if s.Protocol == "" && (s.Mechanism != "" || s.SkipHostnameVerification || s.Username != "" || s.CAFile != "" || len(s.CAPEM) > 0 || s.CertFile != "" || len(s.CertPEM) > 0 || !s.KeyPEM.IsZero()) {
		// The Kafka client's default protocol is PLAINTEXT, which ignores
		// the other security options; say so rather than connect without
		// them.
		return s, &catalog.OptionError{Key: "kafka.security.protocol", Missing: true, Msg: "kafka tables with TLS or SASL options need kafka.security.protocol (SSL, SASL_SSL or SASL_PLAINTEXT): without it the Kafka client uses PLAINTEXT and ignores them"}
	}
	if _, err := s.Build(); err != nil {
		key := "kafka.security.protocol"
		switch msg := err.Error(); {
		case strings.Contains(msg, "CA"):
			key = "kafka.ssl.truststore.location"
		case strings.Contains(msg, "client"):
			key = "kafka.ssl.keystore.location"
		case strings.Contains(msg, "Mechanism"):
			key = "kafka.sasl.mechanism"
		case strings.Contains(msg, "Username"):
			key = "kafka.sasl.jaas.config"
		}
		return s, &catalog.OptionError{Key: key, Msg: err.Error()}
	}
	return s, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// parseJAAS parses one JAAS login module entry, as Kafka's
// sasl.jaas.config takes it: `<class> <flag> [key=value …];` where a value
// is a double-quoted string (backslash escapes the next character) or a
// bare word. Errors describe the fault by position, never quote the text
// (it holds the password).
func parseJAAS(s string) (module string, opts map[string]string, err error) {
	i := 0
	skip := func() {
		for i < len(s) && unicode.IsSpace(rune(s[i])) {
			i++
		}
	}
	word := func() string {
		start := i
		for i < len(s) && !unicode.IsSpace(rune(s[i])) && s[i] != '=' && s[i] != ';' && s[i] != '"' {
			i++
		}
		return s[start:i]
	}
	skip()
	if module = word(); module == "" {
		return "", nil, fmt.Errorf("expected a login module class at character %d", i+1)
	}
	skip()
	switch flag := word(); strings.ToLower(flag) {
	case "required", "requisite", "sufficient", "optional":
	default:
		return "", nil, fmt.Errorf("expected a control flag (required) after the login module class, at character %d", i+1-len(flag))
	}
	opts = map[string]string{}
	for {
		skip()
		if i >= len(s) {
			return "", nil, fmt.Errorf("the entry does not end with ';'")
		}
		if s[i] == ';' {
			i++
			skip()
			if i != len(s) {
				return "", nil, fmt.Errorf("more than one login module entry (text after ';' at character %d)", i+1)
			}
			return module, opts, nil
		}
		at := i
		key := word()
		skip()
		if key == "" || i >= len(s) || s[i] != '=' {
			return "", nil, fmt.Errorf("expected key=value at character %d", at+1)
		}
		i++
		skip()
		var val strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				i++
				if c == '\\' && i < len(s) {
					val.WriteByte(s[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return "", nil, fmt.Errorf("the value of %s is not closed by '\"'", key)
			}
		} else {
			val.WriteString(word())
		}
		opts[key] = val.String()
	}
}
