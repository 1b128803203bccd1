package kafka

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sources"
)

// secureSource returns a source on addr with sec.
func secureSource(t *testing.T, addr, topic string, sec Security) *Source {
	t.Helper()
	s, err := New(Options{Brokers: []string{addr}, Topics: []string{topic}, StartingOffsets: "earliest",
		Security: sec, Logf: t.Logf, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestSecureListenersRead reads the same records through every secured
// listener of the broker: SASL_SSL with each mechanism, SASL_PLAINTEXT,
// and SSL with a client certificate; batches are the same as over
// PLAINTEXT (same offsets, same rows).
func TestSecureListenersRead(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 2, nil)
	p := newProducer(b, topic)
	p.produce(t, 20, 0, 1)
	cert, key := b.ClientCertFiles()
	certPEM, err1 := os.ReadFile(cert)
	keyPEM, err2 := os.ReadFile(key)
	caPEM, err3 := os.ReadFile(b.CAFile())
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		addr string
		sec  Security
	}{
		"SSL+client-cert": {b.SSLAddr(), Security{Protocol: ProtocolSSL, CAFile: b.CAFile(), CertFile: cert, KeyFile: key}},
		"SSL+inline PEM":  {b.SSLAddr(), Security{CAPEM: caPEM, CertPEM: certPEM, KeyPEM: NewSecret(string(keyPEM))}},
		"SSL, host name not checked": {b.SSLAddr(), Security{Protocol: ProtocolSSL, CAFile: b.CAFile(), CertFile: cert, KeyFile: key,
			ServerName: "broker.elsewhere.example", SkipHostnameVerification: true}},
	}
	for _, m := range kafkatest.Mechanisms {
		cases["SASL_SSL/"+m] = struct {
			addr string
			sec  Security
		}{b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: b.CAFile(), Mechanism: m,
			Username: kafkatest.SASLUser, Password: NewSecret(kafkatest.SASLPassword)}}
		cases["SASL_PLAINTEXT/"+m] = struct {
			addr string
			sec  Security
		}{b.SASLPlaintextAddr(), Security{Mechanism: m, Username: kafkatest.SASLUser, Password: NewSecret(kafkatest.SASLPassword)}}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			mem := checkedMem(t)
			s := secureSource(t, c.addr, topic, c.sec)
			ctx := context.Background()
			start, err := s.InitialOffset(ctx)
			if err != nil {
				t.Fatal(err)
			}
			end, err := s.LatestOffset(ctx, start, sources.ReadLimit{MaxRows: 25})
			if err != nil {
				t.Fatal(err)
			}
			first := readBatch(t, mem, s, start, end)
			end2, err := s.LatestOffset(ctx, end, sources.ReadLimit{})
			if err != nil {
				t.Fatal(err)
			}
			second := readBatch(t, mem, s, end, end2)
			if len(first) != 25 || len(second) != 15 {
				t.Fatalf("batches of %d and %d rows, want 25 and 15", len(first), len(second))
			}
			sameRows(t, "all", sortRows(append(first, second...)), p.rowsIn(offsets{}, mustDecode(t, end2)))
		})
	}
}

// TestSecureErrors: a wrong password, an unknown CA and a missing client
// certificate fail InitialOffset within the timeout with an error naming
// the broker (and the mechanism and user for SASL), never the password.
func TestSecureErrors(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	other, err := kafkatest.NewCA("some other CA")
	if err != nil {
		t.Fatal(err)
	}
	otherCA := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(otherCA, other.PEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	const wrong = "Wrong-pw-4e1b"
	cases := []struct {
		name, addr string
		sec        Security
		want       []string
	}{
		{"wrong password PLAIN", b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: b.CAFile(), Mechanism: MechanismPlain, Username: kafkatest.SASLUser, Password: NewSecret(wrong)},
			[]string{"SASL PLAIN authentication as user \"" + kafkatest.SASLUser + "\" failed", b.SASLSSLAddr(), "check the username and password"}},
		{"wrong password SCRAM-SHA-256", b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: b.CAFile(), Mechanism: MechanismSCRAMSHA256, Username: kafkatest.SASLUser, Password: NewSecret(wrong)},
			[]string{"SASL SCRAM-SHA-256 authentication", b.SASLSSLAddr()}},
		{"wrong password SCRAM-SHA-512", b.SASLPlaintextAddr(), Security{Mechanism: MechanismSCRAMSHA512, Username: kafkatest.SASLUser, Password: NewSecret(wrong)},
			[]string{"SASL SCRAM-SHA-512 authentication", b.SASLPlaintextAddr(), "SASL_PLAINTEXT"}},
		{"unknown CA", b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: otherCA, Mechanism: MechanismPlain, Username: kafkatest.SASLUser, Password: NewSecret(kafkatest.SASLPassword)},
			[]string{"not signed by the CA in " + otherCA, b.SASLSSLAddr()}},
		{"system roots", b.SSLAddr(), Security{Protocol: ProtocolSSL},
			[]string{"not signed by the system's trusted CAs", b.SSLAddr()}},
		{"host name", b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: b.CAFile(), ServerName: "broker.elsewhere.example", Mechanism: MechanismPlain, Username: kafkatest.SASLUser, Password: NewSecret(kafkatest.SASLPassword)},
			[]string{"does not name the host dialled", "kafka.ssl.endpoint.identification.algorithm"}},
		{"host name not checked, chain still is", b.SASLSSLAddr(), Security{Protocol: ProtocolSASLSSL, CAFile: otherCA, SkipHostnameVerification: true, ServerName: "broker.elsewhere.example", Mechanism: MechanismPlain, Username: kafkatest.SASLUser, Password: NewSecret(kafkatest.SASLPassword)},
			[]string{"not signed by the CA in " + otherCA}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := secureSource(t, c.addr, topic, c.sec)
			began := time.Now()
			_, err := s.InitialOffset(context.Background())
			if err == nil {
				t.Fatal("InitialOffset succeeded")
			}
			t.Logf("%s after %s", err, time.Since(began).Round(time.Millisecond))
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q", w)
				}
			}
			if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), kafkatest.SASLPassword) {
				t.Errorf("error shows the password")
			}
		})
	}
	// A client of another protocol than the listener's: an error saying so,
	// not a hang.
	for name, c := range map[string]struct {
		addr string
		sec  Security
	}{
		"TLS to PLAINTEXT":            {b.Addr(), Security{Protocol: ProtocolSSL, CAFile: b.CAFile()}},
		"SASL_PLAINTEXT to SSL":       {b.SSLAddr(), Security{Mechanism: "PLAIN", Username: "u", Password: NewSecret("x")}},
		"PLAINTEXT to SASL_SSL":       {b.SASLSSLAddr(), Security{}},
		"PLAINTEXT to SASL_PLAINTEXT": {b.SASLPlaintextAddr(), Security{}},
		"SSL to SASL_SSL":             {b.SASLSSLAddr(), Security{CAFile: b.CAFile()}},
	} {
		s := secureSource(t, c.addr, topic, c.sec)
		if _, err := s.InitialOffset(context.Background()); err == nil || !strings.Contains(err.Error(), "closed the connection: the broker stopped, or its listener's security protocol is not this client's") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Without a client certificate the SSL listener refuses the handshake:
	// an error, not a hang.
	s := secureSource(t, b.SSLAddr(), topic, Security{Protocol: ProtocolSSL, CAFile: b.CAFile()})
	if _, err := s.InitialOffset(context.Background()); err == nil || !strings.Contains(err.Error(), "requires a client certificate") {
		t.Fatalf("SSL without a client certificate: %v", err)
	}
}
