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
	kgo "github.com/segmentio/kafka-go"
)

func TestMain(m *testing.M) { kafkatest.Main(m) }

func readAll(t *testing.T, b *kafkatest.Broker, topic string, n int) []kgo.Message {
	t.Helper()
	_, next := b.Offsets(t, topic)
	var out []kgo.Message
	for p, end := range next {
		conn, err := kgo.DialLeader(context.Background(), "tcp", b.Addr(), topic, p)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		batch := conn.ReadBatch(1, 10<<20)
		for int64(len(out)) < int64(n) {
			m, err := batch.ReadMessage()
			if err != nil {
				break
			}
			out = append(out, m)
			if m.Offset+1 >= end {
				break
			}
		}
		batch.Close()
		conn.Close()
	}
	if len(out) != n {
		t.Fatalf("read %d records from %s, want %d", len(out), topic, n)
	}
	return out
}

func header(m kgo.Message, k string) string {
	for _, h := range m.Headers {
		if h.Key == k {
			return string(h.Value)
		}
	}
	return "<none>"
}

func TestSinkKeyValueAndHeaders(t *testing.T) {
	b := kafkatest.Start(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 2, nil)
	s, err := New(Options{Brokers: []string{b.Addr()}, Topic: topic, FlushRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "value", Type: arrow.BinaryTypes.Binary}}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	for i := 0; i < 20; i++ {
		if i == 3 {
			rb.Field(0).AppendNull()
		} else {
			rb.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("k%d", i))
		}
		rb.Field(1).(*array.BinaryBuilder).Append([]byte(fmt.Sprintf("v%d", i)))
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q-1", BatchID: 42, Schema: schema})
	if err != nil || w.Skip() {
		t.Fatal(err)
	}
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, b, topic, 20)
	seen := map[string]string{}
	for _, m := range msgs {
		if header(m, HeaderQueryID) != "q-1" || header(m, HeaderBatchID) != "42" {
			t.Fatalf("headers %v", m.Headers)
		}
		seen[string(m.Value)] = string(m.Key)
	}
	for i := 0; i < 20; i++ {
		want := fmt.Sprintf("k%d", i)
		if i == 3 {
			want = ""
		}
		if k, ok := seen[fmt.Sprintf("v%d", i)]; !ok || k != want {
			t.Fatalf("v%d: key %q (present %v), want %q", i, k, ok, want)
		}
	}
}

func TestSinkRowAsJSON(t *testing.T) {
	b := kafkatest.Start(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	s, _ := New(Options{Brokers: []string{b.Addr()}, Topic: topic})
	defer s.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64}, {Name: "clicks", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2}, nil)
	rb.Field(1).(*array.Int64Builder).AppendValues([]int64{10, 20}, nil)
	rec := rb.NewRecordBatch()
	defer rec.Release()
	ctx := context.Background()
	w, _ := s.Begin(ctx, sinks.BatchInfo{QueryID: "q", BatchID: 0, Schema: schema})
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	msgs := readAll(t, b, topic, 2)
	if string(msgs[0].Value) != `{"campaign_id":1,"clicks":10}` || string(msgs[1].Value) != `{"campaign_id":2,"clicks":20}` || msgs[0].Key != nil {
		t.Fatalf("values %q %q key %q", msgs[0].Value, msgs[1].Value, msgs[0].Key)
	}
}

func TestSinkDeliveryErrorNamesTopic(t *testing.T) {
	b := kafkatest.Start(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	topic := kafkatest.TopicName(t) // never created
	s, _ := New(Options{Brokers: []string{b.Addr()}, Topic: topic, Timeout: 3 * time.Second})
	defer s.Close()
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.String}}, nil)
	rb := array.NewRecordBuilder(mem, schema)
	defer rb.Release()
	rb.Field(0).(*array.StringBuilder).Append("x")
	rec := rb.NewRecordBatch()
	defer rec.Release()
	ctx := context.Background()
	w, _ := s.Begin(ctx, sinks.BatchInfo{QueryID: "q", BatchID: 7, Schema: schema})
	if err := w.Write(ctx, rec); err != nil {
		t.Fatal(err)
	}
	err := w.Commit(ctx)
	if err == nil || !strings.Contains(err.Error(), "topic "+topic+" batch 7") {
		t.Fatalf("error %v", err)
	}
	t.Log(err)
}
