package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/catalog"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources/kafka"
)

func TestParseJAAS(t *testing.T) {
	for _, c := range []struct {
		in, module string
		opts       map[string]string
		err        string
	}{
		{`org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="a b\"c";`,
			"org.apache.kafka.common.security.plain.PlainLoginModule", map[string]string{"username": "alice", "password": `a b"c`}, ""},
		{"  org.apache.kafka.common.security.scram.ScramLoginModule   Required\n username = bob password=pw ; ",
			"org.apache.kafka.common.security.scram.ScramLoginModule", map[string]string{"username": "bob", "password": "pw"}, ""},
		{`X required username="a" password="b"`, "", nil, "does not end with ';'"},
		{`X username="a";`, "", nil, "control flag"},
		{`X required username "a";`, "", nil, "expected key=value at character 12"},
		{`X required password="secret-unclosed;`, "", nil, "value of password is not closed"},
		{`X required a=b; Y required c=d;`, "", nil, "more than one login module"},
	} {
		m, opts, err := parseJAAS(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") {
				t.Errorf("%q: error quotes the text: %v", c.in, err)
			}
			continue
		}
		if err != nil || m != c.module || len(opts) != len(c.opts) {
			t.Fatalf("%q: %q %v %v", c.in, m, opts, err)
		}
		for k, v := range c.opts {
			if opts[k] != v {
				t.Errorf("%q: %s = %q, want %q", c.in, k, opts[k], v)
			}
		}
	}
}

// TestKafkaSecurityOptions maps Spark's option names onto kafka.Security;
// bad combinations are errors naming the option and never the password.
func TestKafkaSecurityOptions(t *testing.T) {
	const pw = "Pw-catalog-5d2e"
	dir := t.TempDir()
	ca, err := kafkatest.NewCA("catalog test CA")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	os.WriteFile(caFile, ca.PEM(), 0o600)
	cert, key, _ := ca.Issue("client", 9)
	ks := filepath.Join(dir, "keystore.pem")
	os.WriteFile(ks, append(key, cert...), 0o600)
	base := func(kv ...string) map[string]string {
		m := map[string]string{"kafka.bootstrap.servers": "h:1", "subscribe": "t", "topic": "out"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	plainJAAS := `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="` + pw + `";`
	scramJAAS := strings.Replace(plainJAAS, "plain.PlainLoginModule", "scram.ScramLoginModule", 1)
	tb, err := open(t, catalog.Decl{Name: "k", Format: "kafka", Options: base(
		"kafka.security.protocol", "SASL_SSL", "kafka.sasl.mechanism", "SCRAM-SHA-512", "kafka.sasl.jaas.config", scramJAAS,
		"kafka.ssl.truststore.location", caFile, "kafka.ssl.truststore.type", "PEM", "kafka.ssl.keystore.location", ks,
		"kafka.ssl.endpoint.identification.algorithm", "")})
	if err != nil {
		t.Fatal(err)
	}
	got := tb.(*kafkaTable).src.Security
	want := kafka.Security{Protocol: "SASL_SSL", Mechanism: "SCRAM-SHA-512", Username: "u", Password: kafka.NewSecret(pw), CAFile: caFile, CertFile: ks, KeyFile: ks}
	if got.Protocol != want.Protocol || got.Mechanism != want.Mechanism || got.Username != want.Username || got.Password.Reveal() != pw ||
		got.CAFile != want.CAFile || got.CertFile != ks || got.KeyFile != ks || !got.SkipHostnameVerification {
		t.Fatalf("security %+v, want %+v", got, want)
	}
	if _, err := tb.NewSink(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts map[string]string
		key  string
		msg  string
	}{
		{base("kafka.sasl.jaas.config", plainJAAS), "kafka.security.protocol", "need kafka.security.protocol"},
		{base("kafka.ssl.truststore.location", caFile), "kafka.security.protocol", "need kafka.security.protocol"},
		{base("kafka.security.protocol", "SASL_SSL", "kafka.sasl.mechanism", "SCRAM-SHA-256", "kafka.sasl.jaas.config", plainJAAS), "kafka.sasl.jaas.config", "does not go with kafka.sasl.mechanism SCRAM-SHA-256"},
		{base("kafka.security.protocol", "SASL_SSL", "kafka.sasl.jaas.config", strings.TrimSuffix(plainJAAS, ";")), "kafka.sasl.jaas.config", "does not end with ';'"},
		{base("kafka.security.protocol", "SASL_SSL", "kafka.sasl.jaas.config", strings.Replace(plainJAAS, `username="u" `, "", 1)), "kafka.sasl.jaas.config", "both required"},
		{base("kafka.security.protocol", "SASL_SSL"), "kafka.sasl.jaas.config", "needs Security.Username and Security.Password"},
		{base("kafka.security.protocol", "SSL", "kafka.ssl.truststore.location", filepath.Join(dir, "nope.pem")), "kafka.ssl.truststore.location", "nope.pem"},
		{base("kafka.security.protocol", "SSL", "kafka.ssl.truststore.type", "JKS"), "kafka.ssl.truststore.type", "only PEM"},
		{base("kafka.security.protocol", "SASL_SSL", "kafka.sasl.mechanism", "GSSAPI", "kafka.sasl.jaas.config", plainJAAS), "kafka.sasl.jaas.config", "does not go with"},
		{base("kafka.security.protocol", "SSL", "kafka.ssl.key.password", pw), "kafka.ssl.key.password", "unknown option"},
		{base("kafka.security.protocol", "SSL", "kafka.ssl.endpoint.identification.algorithm", "dns"), "kafka.ssl.endpoint.identification.algorithm", "want https"},
	} {
		_, err := open(t, catalog.Decl{Name: "k", Format: "kafka", Options: c.opts})
		var oe *catalog.OptionError
		if !errors.As(err, &oe) || oe.Key != c.key || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: error %v (key %v), want %s: %q", c.opts, err, oe, c.key, c.msg)
		}
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("error shows the password: %v", err)
		}
	}
}
