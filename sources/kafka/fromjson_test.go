package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/kafka"
	memsrc "github.com/millrace/millrace/sources/memory"
	kgo "github.com/segmentio/kafka-go"
)

// message is one Kafka record of the FromJSON tests.
type message struct {
	key     []byte
	value   []byte
	offset  int64
	headers [][2]string // key, value ("\x00" for a null value)
}

var clickJSON = arrow.NewSchema([]arrow.Field{
	{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "user", Type: arrow.BinaryTypes.String},
}, nil)

// fromJSONMessages returns n messages of topic clicks with headers on most,
// and with the record at badAt (if ≥ 0) malformed.
func fromJSONMessages(n, badAt int) []message {
	msgs := make([]message, n)
	for i := range msgs {
		m := message{offset: int64(i), value: fmt.Appendf(nil, `{"campaign_id": %d, "user": "u%d"}`, i%7, i)}
		if i%3 != 0 {
			m.key = fmt.Appendf(nil, "k%d", i)
		}
		switch i % 4 {
		case 1:
			m.headers = [][2]string{{"trace", fmt.Sprintf("t-%d", i)}}
		case 2:
			m.headers = [][2]string{{"trace", fmt.Sprintf("t-%d", i)}, {"empty", "\x00"}, {"n", fmt.Sprint(i)}}
		case 3:
			m.headers = [][2]string{} // present but empty
		}
		if i == badAt {
			m.value = []byte(`{"campaign_id": "seven", "user": "x"}`)
		}
		msgs[i] = m
	}
	return msgs
}

// kafkaRecord builds a record of the Kafka source's schema (headers
// included) from messages of one partition.
func kafkaRecord(t *testing.T, mem memory.Allocator, topic string, partition int32, msgs []message) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(mem, kafka.Schema())
	defer b.Release()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hdr := b.Field(6).(*array.ListBuilder)
	hs := hdr.ValueBuilder().(*array.StructBuilder)
	for _, m := range msgs {
		if m.key == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.BinaryBuilder).Append(m.key)
		}
		b.Field(1).(*array.BinaryBuilder).Append(m.value)
		b.Field(2).(*array.StringBuilder).Append(topic)
		b.Field(3).(*array.Int32Builder).Append(partition)
		b.Field(4).(*array.Int64Builder).Append(m.offset)
		b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(base.Add(time.Duration(m.offset) * time.Second).UnixMicro()))
		hdr.Append(true)
		for _, h := range m.headers {
			hs.Append(true)
			hs.FieldBuilder(0).(*array.StringBuilder).Append(h[0])
			if h[1] == "\x00" {
				hs.FieldBuilder(1).AppendNull()
			} else {
				hs.FieldBuilder(1).(*array.BinaryBuilder).Append([]byte(h[1]))
			}
		}
	}
	return b.NewRecordBatch()
}

// wantHeaders renders a message's headers as the JSON arrow-go marshals a
// list<struct<key, value>> row to (binary values are base64).
func wantHeaders(t *testing.T, m message) string {
	t.Helper()
	type kv struct {
		Key   string  `json:"key"`
		Value *[]byte `json:"value"`
	}
	hs := []kv{}
	for _, h := range m.headers {
		e := kv{Key: h[0]}
		if h[1] != "\x00" {
			v := []byte(h[1])
			e.Value = &v
		}
		hs = append(hs, e)
	}
	b, err := json.Marshal(hs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonRecorder is a sink that keeps every committed row rendered as JSON
// per column (arrow's GetOneForMarshal), so list and struct columns such as
// the Kafka headers compare exactly.
type jsonRecorder struct {
	mu   sync.Mutex
	done map[int64]bool
	rows []map[string]string
}

func newJSONRecorder() *jsonRecorder { return &jsonRecorder{done: map[int64]bool{}} }

func (r *jsonRecorder) Name() string { return "jsonRecorder" }
func (r *jsonRecorder) Close() error { return nil }
func (r *jsonRecorder) Begin(_ context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &jsonWriter{r: r, id: info.BatchID, skip: r.done[info.BatchID]}, nil
}

type jsonWriter struct {
	r    *jsonRecorder
	id   int64
	skip bool
	rows []map[string]string
}

func (w *jsonWriter) Skip() bool { return w.skip }
func (w *jsonWriter) Abort()     {}
func (w *jsonWriter) Write(_ context.Context, rec arrow.RecordBatch) error {
	for i := 0; i < int(rec.NumRows()); i++ {
		row := map[string]string{}
		for c, f := range rec.Schema().Fields() {
			b, err := json.Marshal(rec.Column(c).GetOneForMarshal(i))
			if err != nil {
				return err
			}
			row[f.Name] = string(b)
		}
		w.rows = append(w.rows, row)
	}
	return nil
}
func (w *jsonWriter) Commit(context.Context) error {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if !w.r.done[w.id] {
		w.r.done[w.id] = true
		w.r.rows = append(w.r.rows, w.rows...)
	}
	return nil
}

func (r *jsonRecorder) all() []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]string(nil), r.rows...)
}

// checkFromJSON runs FromJSON with a dead-letter sink over src and checks
// that every good message comes out with its key, offset and headers intact
// and that the malformed one (at offset bad of partition 0) is a dead
// letter naming topic, partition and offset, with its raw bytes.
func checkFromJSON(t *testing.T, mem memory.Allocator, src sources.Source, topic string, msgs []message, bad int) {
	t.Helper()
	out, dead := newJSONRecorder(), newJSONRecorder()
	q, err := millrace.ReadStream(src).FromJSON("value", clickJSON).WriteStream(out).
		DeadLetterSink(dead).Allocator(mem).Trigger(millrace.AvailableNow()).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		t.Fatalf("query failed: %v", err)
	}
	got := out.all()
	if len(got) != len(msgs)-1 {
		t.Fatalf("%d rows out, want %d", len(got), len(msgs)-1)
	}
	byOffset := map[string]map[string]string{}
	for _, r := range got {
		byOffset[r["offset"]] = r
	}
	for _, m := range msgs {
		r := byOffset[fmt.Sprint(m.offset)]
		if int(m.offset) == bad {
			if r != nil {
				t.Fatalf("malformed record at offset %d reached the output: %v", bad, r)
			}
			continue
		}
		if r == nil {
			t.Fatalf("offset %d missing from the output", m.offset)
		}
		wantKey := "null"
		if m.key != nil {
			b, _ := json.Marshal(m.key)
			wantKey = string(b)
		}
		if r["key"] != wantKey || r["campaign_id"] != fmt.Sprint(m.offset%7) || r["user"] != fmt.Sprintf(`"u%d"`, m.offset) || r["topic"] != `"`+topic+`"` {
			t.Fatalf("offset %d: row %v", m.offset, r)
		}
		if w := wantHeaders(t, m); r["headers"] != w {
			t.Fatalf("offset %d: headers %s, want %s", m.offset, r["headers"], w)
		}
	}
	dl := dead.all()
	if len(dl) != 1 {
		t.Fatalf("%d dead letters, want 1: %v", len(dl), dl)
	}
	wantSrc := fmt.Sprintf(`"topic %s partition 0 offset %d"`, topic, bad)
	wantRaw, _ := json.Marshal(string(msgs[bad].value))
	if dl[0]["source"] != wantSrc || dl[0]["position"] != fmt.Sprint(bad) || dl[0]["record"] != string(wantRaw) || !strings.Contains(dl[0]["error"], "campaign_id") {
		t.Fatalf("dead letter %v, want source %s position %d record %s", dl[0], wantSrc, bad, wantRaw)
	}
}

// TestFromJSONDeadLetterKafkaSchema is the regression test of issue 10
// item 12: records of the Kafka source's schema (headers included) through
// FromJSON with a dead-letter sink, one of them malformed. Dropping the bad
// row gathers every other column, and the gather of the headers column
// (list<struct<key, value>>) panicked with a nil pointer dereference.
func TestFromJSONDeadLetterKafkaSchema(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	msgs := fromJSONMessages(40, 17)
	src, err := memsrc.New(kafka.Schema(), memsrc.Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	// Two batches, the second a slice (offset ≠ 0) as a reader may emit.
	first := kafkaRecord(t, mem, "clicks", 0, msgs[:10])
	all := kafkaRecord(t, mem, "clicks", 0, msgs)
	rest := all.NewSlice(10, int64(len(msgs)))
	for _, rec := range []arrow.RecordBatch{first, rest} {
		if _, err := src.AddBatch(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	all.Release()
	checkFromJSON(t, mem, src, "clicks", msgs, 17)
}

// TestFromJSONDeadLetterBroker is TestFromJSONDeadLetterKafkaSchema
// against a real broker through the Kafka source.
func TestFromJSONDeadLetterBroker(t *testing.T) {
	b := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	b.CreateTopic(t, topic, 1, nil)
	msgs := fromJSONMessages(40, 17)
	var kms []kgo.Message
	for _, m := range msgs {
		km := kgo.Message{Partition: 0, Key: m.key, Value: m.value}
		for _, h := range m.headers {
			var v []byte
			if h[1] != "\x00" {
				v = []byte(h[1])
			}
			km.Headers = append(km.Headers, kgo.Header{Key: h[0], Value: v})
		}
		kms = append(kms, km)
	}
	b.Produce(t, topic, kms...)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src, err := kafka.New(kafka.Options{Brokers: []string{b.Addr()}, Topics: []string{topic}, StartingOffsets: "earliest", BatchRows: 16, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	checkFromJSON(t, mem, src, topic, msgs, 17)
}

// runFromJSON runs FromJSON over msgs of the Kafka schema (topic clicks,
// partition 0) on the memory source and returns the output, the dead
// letters and the query's error.
func runFromJSON(t *testing.T, msgs []message, deadLetter bool, opts ...millrace.JSONOptions) ([]map[string]string, []map[string]string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src, err := memsrc.New(kafka.Schema(), memsrc.Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rec := kafkaRecord(t, mem, "clicks", 0, msgs)
	if _, err := src.AddBatch(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	out, dead := newJSONRecorder(), newJSONRecorder()
	w := millrace.ReadStream(src).FromJSON("value", clickJSON, opts...).WriteStream(out).Allocator(mem).Trigger(millrace.AvailableNow())
	if deadLetter {
		w = w.DeadLetterSink(dead)
	}
	q, err := w.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = q.AwaitTermination(context.Background())
	return out.all(), dead.all(), err
}

// TestFromJSONInvalidUTF8 is the regression test of issue 10 item 11 for
// FromJSON: a Kafka value whose JSON string holds invalid UTF-8 used to be
// decoded into the string column as is. By default it fails the query
// naming topic, partition and offset; a dead-letter sink gets it (its
// record column, a string, with U+FFFD for the bad byte); with
// JSONOptions{ReplaceInvalidUTF8: true} the row holds U+FFFD.
func TestFromJSONInvalidUTF8(t *testing.T) {
	msgs := fromJSONMessages(6, -1)
	msgs[4].value = []byte("{\"campaign_id\": 4, \"user\": \"u\xff4\"}")

	_, _, err := runFromJSON(t, msgs, false)
	if err == nil || !strings.Contains(err.Error(), "topic clicks partition 0 offset 4") || !strings.Contains(err.Error(), "field user: invalid UTF-8") {
		t.Fatalf("error %v: want it to name the record and the field", err)
	}

	out, dl, err := runFromJSON(t, msgs, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 5 || len(dl) != 1 || dl[0]["source"] != `"topic clicks partition 0 offset 4"` ||
		dl[0]["record"] != `"{\"campaign_id\": 4, \"user\": \"u`+"\uFFFD"+`4\"}"` {
		t.Fatalf("%d rows out; dead letters %v", len(out), dl)
	}

	out, dl, err = runFromJSON(t, msgs, false, millrace.JSONOptions{ReplaceInvalidUTF8: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 6 || len(dl) != 0 {
		t.Fatalf("%d rows out, %d dead letters", len(out), len(dl))
	}
	for _, r := range out {
		if r["offset"] == "4" && r["user"] != `"u`+"\uFFFD"+`4"` {
			t.Fatalf("offset 4: user %s, want u\uFFFD4", r["user"])
		}
	}
}
