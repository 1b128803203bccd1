package kafka

import (
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	kgo "github.com/segmentio/kafka-go"
)

// TestHeaderKeyInvalidUTF8: the headers' key column is a string, which must
// hold UTF-8; a key with invalid bytes (Kafka lets any producer send one)
// is stored with U+FFFD for each, as Kafka's Java client and Spark decode
// it. Before the fix the bytes went into the column as they were.
func TestHeaderKeyInvalidUTF8(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := newRecBuilder(mem, Schema(), "t", 0, 4)
	defer r.release()
	r.add(&kgo.Message{Offset: 1, Time: time.Unix(1, 0), Value: []byte("v"),
		Headers: []kgo.Header{{Key: "ok", Value: []byte{0xff}}, {Key: "a\xffb\xc3", Value: nil}}})
	rec := r.finish()
	defer rec.Release()
	hs := rec.Column(6).(*array.List).ListValues().(*array.Struct)
	keys, vals := hs.Field(0).(*array.String), hs.Field(1).(*array.Binary)
	if keys.Len() != 2 || keys.Value(0) != "ok" || keys.Value(1) != "a\uFFFDb\uFFFD" || !utf8.ValidString(keys.Value(1)) {
		t.Fatalf("keys %q", keys)
	}
	if string(vals.Value(0)) != "\xff" || !vals.IsNull(1) {
		t.Fatal("header values (binary) must be kept as they are")
	}
}
