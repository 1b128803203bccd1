package kafka

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sinks"
	kafkasrc "github.com/millrace/millrace/sources/kafka"
)

// writeBatch writes n rows value-<i> as batch id through s.
func writeBatch(t *testing.T, s *Sink, id int64, n int) error {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.String}}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for i := range n {
		rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("value-%d", i))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q-sec", BatchID: id, Schema: schema})
	if err != nil {
		return err
	}
	if err := w.Write(ctx, rec); err != nil {
		w.Abort()
		return err
	}
	return w.Commit(ctx)
}

// TestSinkSecureListeners writes through SASL_SSL with each mechanism and
// through SSL with a client certificate; the records arrive.
func TestSinkSecureListeners(t *testing.T) {
	b := kafkatest.Start(t)
	cert, key := b.ClientCertFiles()
	cases := map[string]struct {
		addr string
		sec  Security
	}{"SSL+client-cert": {b.SSLAddr(), Security{CAFile: b.CAFile(), CertFile: cert, KeyFile: key}}}
	for _, m := range kafkatest.Mechanisms {
		cases["SASL_SSL/"+m] = struct {
			addr string
			sec  Security
		}{b.SASLSSLAddr(), Security{Protocol: kafkasrc.ProtocolSASLSSL, CAFile: b.CAFile(), Mechanism: m, Username: kafkatest.SASLUser, Password: kafkasrc.NewSecret(kafkatest.SASLPassword)}}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			topic := kafkatest.TopicName(t)
			b.CreateTopic(t, topic, 2, nil)
			s, err := New(Options{Brokers: []string{c.addr}, Topic: topic, Security: c.sec})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := writeBatch(t, s, 7, 30); err != nil {
				t.Fatal(err)
			}
			msgs := readAll(t, b, topic, 30)
			if header(msgs[0], HeaderBatchID) != "7" {
				t.Fatalf("headers %v", msgs[0].Headers)
			}
		})
	}
}

// TestSinkWrongPassword: a wrong password fails the batch with an error
// naming the topic, batch, broker, mechanism and user, without the
// password, and within the sink's timeout.
func TestSinkWrongPassword(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	const wrong = "Wrong-sink-pw-91c2"
	s, err := New(Options{Brokers: []string{b.SASLSSLAddr()}, Topic: topic, Timeout: 20 * time.Second, Security: Security{
		CAFile: b.CAFile(), Mechanism: kafkasrc.MechanismSCRAMSHA256, Username: kafkatest.SASLUser, Password: kafkasrc.NewSecret(wrong)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	began := time.Now()
	err = writeBatch(t, s, 3, 5)
	t.Logf("after %s: %v", time.Since(began).Round(time.Millisecond), err)
	if err == nil {
		t.Fatal("batch delivered with a wrong password")
	}
	for _, w := range []string{"topic " + topic + " batch 3", b.SASLSSLAddr(), "SASL SCRAM-SHA-256 authentication as user \"" + kafkatest.SASLUser + "\" failed"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q", w)
		}
	}
	if strings.Contains(err.Error(), wrong) || strings.Contains(s.Name(), wrong) {
		t.Error("error or Name shows the password")
	}
}

// TestSinkPrintsNoSecret: the sink, printed whole, shows no secret.
func TestSinkPrintsNoSecret(t *testing.T) {
	const pw = "Hunter2-sink-print"
	s, err := New(Options{Brokers: []string{"b:1"}, Topic: "t", Security: Security{Mechanism: kafkasrc.MechanismPlain, Username: "u", Password: kafkasrc.NewSecret(pw)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, out := range []string{s.Name(), fmt.Sprintf("%+v", s), fmt.Sprintf("%#v", s), fmt.Sprintf("%+v", s.auth), fmt.Sprintf("%+v", s.w.Transport)} {
		if strings.Contains(out, pw) {
			t.Fatalf("secret printed: %s", out)
		}
	}
}
