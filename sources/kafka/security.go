package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	kgo "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// Security protocols, as Kafka's security.protocol names them.
const (
	ProtocolPlaintext     = "PLAINTEXT"
	ProtocolSSL           = "SSL"
	ProtocolSASLPlaintext = "SASL_PLAINTEXT"
	ProtocolSASLSSL       = "SASL_SSL"
)

// SASL mechanisms the connectors speak.
const (
	MechanismPlain       = "PLAIN"
	MechanismSCRAMSHA256 = "SCRAM-SHA-256"
	MechanismSCRAMSHA512 = "SCRAM-SHA-512"
)

// Secret is a password or private key. It formats as "*****" with every
// fmt verb, in JSON and in slog, so that printing Options (or an error
// built from them) never shows it; Reveal returns the value. The value
// sits behind a pointer so that even fmt's raw printing of a struct's
// unexported fields (which calls no String method) shows an address, not
// the secret. Make one with NewSecret; the zero Secret is empty.
type Secret struct{ p *string }

// NewSecret wraps s.
func NewSecret(s string) Secret {
	if s == "" {
		return Secret{}
	}
	return Secret{&s}
}

const redacted = "*****"

// String returns "*****" (or "" for an empty secret).
func (s Secret) String() string {
	if s.IsZero() {
		return ""
	}
	return redacted
}

// GoString returns the redacted form for %#v.
func (s Secret) GoString() string { return `kafka.NewSecret("` + s.String() + `")` }

// MarshalJSON writes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.String() + `"`), nil }

// MarshalText writes the redacted form.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue logs the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.p == nil || *s.p == "" }

// Reveal returns the secret itself, for handing to the Kafka client.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return *s.p
}

// Security configures TLS and SASL for the connections to the brokers,
// shared by the source and the sink (sinks/kafka.Options.Security). The
// zero value is PLAINTEXT: no TLS, no authentication.
type Security struct {
	// Protocol is PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (Kafka's
	// security.protocol). Empty means inferred: SASL_* when Mechanism is
	// set, *SSL when any TLS field is set.
	Protocol string

	// CAFile and CAPEM are the certificates (PEM) trusted to sign the
	// brokers' certificates; both empty means the system's roots.
	CAFile string
	CAPEM  []byte
	// CertFile and KeyFile are a client certificate (chain) and its
	// unencrypted private key (PEM), for brokers that require one. They may
	// name the same file (Kafka's PEM keystore: key and chain together).
	// CertPEM and KeyPEM give them inline instead.
	CertFile, KeyFile string
	CertPEM           []byte
	KeyPEM            Secret
	// ServerName overrides the name checked against the broker's
	// certificate (default: the host of the address dialled).
	ServerName string
	// SkipHostnameVerification checks the broker's certificate chain but
	// not the name in it (Kafka's ssl.endpoint.identification.algorithm
	// set to ""), for brokers whose certificates do not name the address
	// the client dials.
	SkipHostnameVerification bool
	// InsecureSkipVerify accepts any broker certificate. Never implied: a
	// certificate that does not verify is an error unless this is set.
	InsecureSkipVerify bool

	// Mechanism is PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	Mechanism string
	// Username and Password are the SASL credentials.
	Username string
	Password Secret
}

// Auth is a validated Security, ready for kafka-go's Dialer and Transport
// (Security.Build).
type Auth struct {
	protocol  string
	tls       *tls.Config // nil: no TLS
	mech      sasl.Mechanism
	mechName  string
	username  string
	trustDesc string // where the trusted CAs come from, for errors
}

// Build validates s, reads its files and returns what the dialers use.
// Errors name the field or file at fault and never contain the password
// or a key.
func (s Security) Build() (*Auth, error) {
	hasTLS := s.CAFile != "" || len(s.CAPEM) > 0 || s.CertFile != "" || s.KeyFile != "" ||
		len(s.CertPEM) > 0 || !s.KeyPEM.IsZero() || s.ServerName != "" || s.InsecureSkipVerify || s.SkipHostnameVerification
	proto := strings.ToUpper(strings.TrimSpace(s.Protocol))
	if proto == "" {
		switch {
		case s.Mechanism != "" && hasTLS:
			proto = ProtocolSASLSSL
		case s.Mechanism != "":
			proto = ProtocolSASLPlaintext
		case hasTLS:
			proto = ProtocolSSL
		default:
			proto = ProtocolPlaintext
		}
	}
	useTLS, useSASL := false, false
	switch proto {
	case ProtocolPlaintext:
	case ProtocolSSL:
		useTLS = true
	case ProtocolSASLPlaintext:
		useSASL = true
	case ProtocolSASLSSL:
		useTLS, useSASL = true, true
	default:
		return nil, fmt.Errorf("kafka: Security.Protocol %q: want PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL", s.Protocol)
	}
	cs := &Auth{protocol: proto}
	if hasTLS && !useTLS {
		return nil, fmt.Errorf("kafka: TLS settings (CA, client certificate, ServerName) are set but Security.Protocol is %s; use SSL or SASL_SSL", proto)
	}
	if s.Mechanism != "" && !useSASL {
		return nil, fmt.Errorf("kafka: Security.Mechanism %s is set but Security.Protocol is %s; use SASL_SSL or SASL_PLAINTEXT", s.Mechanism, proto)
	}
	if useTLS {
		cfg, desc, err := s.tlsConfig()
		if err != nil {
			return nil, err
		}
		cs.tls, cs.trustDesc = cfg, desc
	}
	if useSASL {
		if s.Username == "" || s.Password.IsZero() {
			return nil, fmt.Errorf("kafka: Security.Protocol %s needs Security.Username and Security.Password", proto)
		}
		cs.username = s.Username
		cs.mechName = strings.ToUpper(strings.TrimSpace(s.Mechanism))
		switch cs.mechName {
		case "", MechanismPlain:
			cs.mechName = MechanismPlain // Kafka's default sasl.mechanism
			// A pointer, so that printing an Auth shows an address rather
			// than the password.
			cs.mech = &plain.Mechanism{Username: s.Username, Password: s.Password.Reveal()}
		case MechanismSCRAMSHA256, MechanismSCRAMSHA512:
			algo := scram.SHA256
			if cs.mechName == MechanismSCRAMSHA512 {
				algo = scram.SHA512
			}
			m, err := scram.Mechanism(algo, s.Username, s.Password.Reveal())
			if err != nil {
				// SASLprep refused the username or password; say which
				// without showing the password.
				return nil, fmt.Errorf("kafka: SASL %s for user %q: the username or password is not valid for SCRAM (SASLprep)", cs.mechName, s.Username)
			}
			cs.mech = m
		default:
			return nil, fmt.Errorf("kafka: Security.Mechanism %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.Mechanism)
		}
	}
	return cs, nil
}

func (s Security) tlsConfig() (*tls.Config, string, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.ServerName, InsecureSkipVerify: s.InsecureSkipVerify}
	desc := "the system's trusted CAs"
	if s.CAFile != "" || len(s.CAPEM) > 0 {
		pool := x509.NewCertPool()
		data, src := s.CAPEM, "Security.CAPEM"
		if s.CAFile != "" {
			var err error
			if data, err = os.ReadFile(s.CAFile); err != nil {
				return nil, "", fmt.Errorf("kafka: CA file: %w", err)
			}
			src = s.CAFile
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, "", fmt.Errorf("kafka: CA %s holds no PEM certificate (JKS and PKCS12 truststores are not read: export the CA with keytool -exportcert -rfc)", src)
		}
		cfg.RootCAs = pool
		desc = "the CA in " + src
	}
	if s.SkipHostnameVerification && !s.InsecureSkipVerify {
		// crypto/tls verifies chain and name together; turn both off and
		// verify the chain alone once the handshake has the certificates.
		roots := cfg.RootCAs
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(st tls.ConnectionState) error {
			if len(st.PeerCertificates) == 0 {
				return errors.New("the broker sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
			for _, c := range st.PeerCertificates[1:] {
				opts.Intermediates.AddCert(c)
			}
			_, err := st.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	certPEM, keyPEM := s.CertPEM, []byte(s.KeyPEM.Reveal())
	certSrc := "Security.CertPEM"
	if s.CertFile != "" {
		var err error
		if certPEM, err = os.ReadFile(s.CertFile); err != nil {
			return nil, "", fmt.Errorf("kafka: client certificate: %w", err)
		}
		certSrc = s.CertFile
	}
	if s.KeyFile != "" {
		var err error
		if keyPEM, err = os.ReadFile(s.KeyFile); err != nil {
			return nil, "", fmt.Errorf("kafka: client key: %w", err)
		}
	}
	switch {
	case len(certPEM) > 0 && len(keyPEM) > 0:
		if encryptedKey(keyPEM) {
			return nil, "", fmt.Errorf("kafka: the client key of %s is encrypted; give an unencrypted PKCS#8 key (openssl pkcs8 -topk8 -nocrypt)", certSrc)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			// crypto/tls's errors name what is wrong, never the key bytes.
			return nil, "", fmt.Errorf("kafka: client certificate %s and its key: %w", certSrc, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	case len(certPEM) > 0 || len(keyPEM) > 0:
		return nil, "", fmt.Errorf("kafka: a client certificate needs both the certificate and its key (Security.CertFile/CertPEM and KeyFile/KeyPEM)")
	}
	return cfg, desc, nil
}

func encryptedKey(data []byte) bool {
	for len(data) > 0 {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			return false
		}
		if b.Type == "ENCRYPTED PRIVATE KEY" || b.Headers["Proc-Type"] != "" {
			return true
		}
	}
	return false
}

// Dialer sets the TLS and SASL of cs on d and returns d.
func (cs *Auth) Dialer(d *kgo.Dialer) *kgo.Dialer {
	if cs != nil {
		d.TLS, d.SASLMechanism = cs.tls, cs.mech
	}
	return d
}

// Transport sets the TLS and SASL of cs on t and returns t.
func (cs *Auth) Transport(t *kgo.Transport) *kgo.Transport {
	if cs != nil {
		t.TLS, t.SASL = cs.tls, cs.mech
	}
	return t
}

func (cs *Auth) mechDesc() string {
	if cs.mech == nil {
		return ""
	}
	return ", SASL " + cs.mechName
}

// Explain turns an authentication or TLS failure talking to brokers into an
// error that says what to check; other errors come back unchanged. The
// password is never part of it.
func (cs *Auth) Explain(brokers []string, err error) error {
	if err == nil {
		return nil
	}
	if cs == nil {
		cs = &Auth{protocol: ProtocolPlaintext}
	}
	where := strings.Join(brokers, ",")
	if cs.mech != nil && errors.Is(err, kgo.SASLAuthenticationFailed) {
		return fmt.Errorf("kafka: SASL %s authentication as user %q failed at brokers [%s] (%s): check the username and password: %w",
			cs.mechName, cs.username, where, cs.protocol, err)
	}
	if cs.mech != nil && errors.Is(err, kgo.UnsupportedSASLMechanism) {
		return fmt.Errorf("kafka: brokers [%s] do not accept SASL mechanism %s on this listener (%s): %w", where, cs.mechName, cs.protocol, err)
	}
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	var rec tls.RecordHeaderError
	switch {
	case errors.As(err, &ua):
		return fmt.Errorf("kafka: TLS to brokers [%s]: the broker's certificate is not signed by %s: set the CA (kafka.ssl.truststore.location / Security.CAFile): %w", where, cs.trustDesc, err)
	case errors.As(err, &hn):
		return fmt.Errorf("kafka: TLS to brokers [%s]: the broker's certificate does not name the host dialled; set Security.ServerName, or skip the name check (Security.SkipHostnameVerification, kafka.ssl.endpoint.identification.algorithm ''): %w", where, err)
	case errors.As(err, &ci):
		return fmt.Errorf("kafka: TLS to brokers [%s]: the broker's certificate is invalid: %w", where, err)
	case cs.tls != nil && (strings.Contains(err.Error(), "remote error: tls: bad certificate") || strings.Contains(err.Error(), "remote error: tls: certificate required")):
		// crypto/tls reports a peer's alert only as text.
		return fmt.Errorf("kafka: TLS to brokers [%s]: the broker refused the handshake; it probably requires a client certificate (kafka.ssl.keystore.location / Security.CertFile and KeyFile): %w", where, err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// A listener of another protocol hangs up on the first request.
		return fmt.Errorf("kafka: brokers [%s] closed the connection: the broker stopped, or its listener's security protocol is not this client's (%s%s): %w", where, cs.protocol, cs.mechDesc(), err)
	case errors.As(err, &rec):
		return fmt.Errorf("kafka: TLS to brokers [%s]: the broker did not answer TLS; is this a PLAINTEXT or SASL_PLAINTEXT listener? (%s): %w", where, cs.protocol, err)
	}
	return err
}
