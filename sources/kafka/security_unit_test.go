package kafka

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretRedacted: a Secret never prints, whatever prints it.
func TestSecretRedacted(t *testing.T) {
	const pw = "Hunter2-unit"
	o := Options{Brokers: []string{"b:9092"}, Topics: []string{"t"}, Security: Security{Mechanism: "PLAIN", Username: "u", Password: NewSecret(pw), KeyPEM: NewSecret(pw)}}
	js, _ := json.Marshal(o.Security)
	var sb strings.Builder
	slog.New(slog.NewTextHandler(&sb, nil)).Info("opts", "security", o.Security, "password", o.Security.Password)
	slog.New(slog.NewJSONHandler(&sb, nil)).Info("opts", "security", o.Security, "password", o.Security.Password)
	for _, s := range []string{fmt.Sprint(o), fmt.Sprintf("%+v", o), fmt.Sprintf("%#v", o), fmt.Sprintf("%q %x %s", o.Security.Password, o.Security.Password, o.Security.Password), string(js), sb.String()} {
		if strings.Contains(s, pw) || strings.Contains(s, fmt.Sprintf("%x", pw)) {
			t.Fatalf("secret printed: %s", s)
		}
	}
	if NewSecret(pw).Reveal() != pw || !NewSecret("").IsZero() || (Secret{}).Reveal() != "" {
		t.Fatal("Reveal")
	}
}

// TestSecurityValidation: inconsistent settings are errors that name the
// field, never the password.
func TestSecurityValidation(t *testing.T) {
	const pw = "Hunter2-validation"
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "truststore.jks")
	os.WriteFile(notPEM, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600)
	for _, c := range []struct {
		sec  Security
		want string
	}{
		{Security{Protocol: "TLS"}, `Security.Protocol "TLS"`},
		{Security{Protocol: ProtocolPlaintext, Mechanism: "PLAIN", Username: "u", Password: NewSecret(pw)}, "Mechanism PLAIN is set but Security.Protocol is PLAINTEXT"},
		{Security{Protocol: ProtocolSASLPlaintext, CAFile: "x"}, "TLS settings"},
		{Security{Protocol: ProtocolSASLSSL, Username: "u"}, "needs Security.Username and Security.Password"},
		{Security{Mechanism: "GSSAPI", Username: "u", Password: NewSecret(pw)}, `Mechanism "GSSAPI"`},
		{Security{CAFile: filepath.Join(dir, "missing.pem")}, "missing.pem"},
		{Security{CAFile: notPEM}, "holds no PEM certificate"},
		{Security{CertFile: notPEM}, "needs both the certificate and its key"},
		{Security{CertPEM: []byte("x"), KeyPEM: NewSecret("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")}, "is encrypted"},
	} {
		_, err := c.sec.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.sec, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), pw) {
			t.Errorf("error shows the password: %v", err)
		}
	}
	for sec, proto := range map[*Security]string{
		{}: ProtocolPlaintext,
		{Mechanism: "SCRAM-SHA-512", Username: "u", Password: NewSecret(pw)}:                   ProtocolSASLPlaintext,
		{Mechanism: "PLAIN", Username: "u", Password: NewSecret(pw), InsecureSkipVerify: true}: ProtocolSASLSSL,
		{InsecureSkipVerify: true}: ProtocolSSL,
	} {
		a, err := sec.Build()
		if err != nil || a.protocol != proto {
			t.Errorf("%+v: protocol %v, %v; want %s", *sec, a, err, proto)
		}
	}
}

// TestSourcePrintsNoSecret: printing the source itself (its unexported
// fields, which fmt prints raw, without calling String) shows no secret.
func TestSourcePrintsNoSecret(t *testing.T) {
	const pw = "Hunter2-source-print"
	s, err := New(Options{Brokers: []string{"b:9092"}, Topics: []string{"t"}, Security: Security{Mechanism: "PLAIN", Username: "u", Password: NewSecret(pw)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fmt.Sprintf("%v", s), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), fmt.Sprintf("%+v", s.admin), fmt.Sprintf("%#v", s.pool)} {
		if strings.Contains(out, pw) {
			t.Fatalf("secret printed: %s", out)
		}
	}
}
