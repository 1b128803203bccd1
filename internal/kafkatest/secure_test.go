package kafkatest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

func mechanism(t *testing.T, name, password string) sasl.Mechanism {
	t.Helper()
	switch name {
	case "PLAIN":
		return plain.Mechanism{Username: SASLUser, Password: password}
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		algo := scram.SHA256
		if name == "SCRAM-SHA-512" {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, SASLUser, password)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	t.Fatalf("mechanism %s", name)
	return nil
}

func caPool(t *testing.T, b *Broker) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(b.CAFile())
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("no CA certificate in", b.CAFile())
	}
	return pool
}

// TestSecureListeners produces and reads back one record over SASL_SSL with
// each mechanism, over SASL_PLAINTEXT, and over SSL with a client
// certificate, with kafka-go alone: the broker side of the connectors'
// tests.
func TestSecureListeners(t *testing.T) {
	b := Start(t)
	topic := TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	cert, key := b.ClientCertFiles()
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	type listener struct {
		name, addr string
		tls        *tls.Config
		mech       sasl.Mechanism
	}
	var ls []listener
	for _, m := range Mechanisms {
		ls = append(ls,
			listener{"SASL_SSL/" + m, b.SASLSSLAddr(), &tls.Config{RootCAs: caPool(t, b)}, mechanism(t, m, SASLPassword)},
			listener{"SASL_PLAINTEXT/" + m, b.SASLPlaintextAddr(), nil, mechanism(t, m, SASLPassword)})
	}
	ls = append(ls, listener{"SSL", b.SSLAddr(), &tls.Config{RootCAs: caPool(t, b), Certificates: []tls.Certificate{pair}}, nil})
	for i, l := range ls {
		t.Run(l.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			w := &kafka.Writer{
				Addr: kafka.TCP(l.addr), Topic: topic, RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond,
				Transport: &kafka.Transport{TLS: l.tls, SASL: l.mech},
			}
			defer w.Close()
			if err := w.WriteMessages(ctx, kafka.Message{Value: []byte(l.name)}); err != nil {
				t.Fatalf("produce over %s: %v", l.name, err)
			}
			conn, err := (&kafka.Dialer{TLS: l.tls, SASLMechanism: l.mech, Timeout: 5 * time.Second}).DialLeader(ctx, "tcp", l.addr, topic, 0)
			if err != nil {
				t.Fatalf("dial %s: %v", l.name, err)
			}
			defer conn.Close()
			if _, err := conn.Seek(int64(i), kafka.SeekAbsolute); err != nil {
				t.Fatal(err)
			}
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			m, err := conn.ReadMessage(1 << 20)
			if err != nil || string(m.Value) != l.name {
				t.Fatalf("read back over %s: %q, %v", l.name, m.Value, err)
			}
		})
	}
}

// TestSecureListenerRefusesWrongPassword checks that the broker really
// authenticates: a wrong password fails the SASL handshake.
func TestSecureListenerRefusesWrongPassword(t *testing.T) {
	b := Start(t)
	for _, m := range Mechanisms {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := (&kafka.Dialer{TLS: &tls.Config{RootCAs: caPool(t, b)}, SASLMechanism: mechanism(t, m, "wrong"), Timeout: 5 * time.Second}).DialContext(ctx, "tcp", b.SASLSSLAddr())
		cancel()
		if err == nil {
			t.Fatalf("%s with a wrong password: connected", m)
		}
		t.Logf("%s: %v", m, err)
	}
}
