package kafka

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	kgo "github.com/segmentio/kafka-go"
)

// HeaderType is the Arrow type of the headers column:
// list<struct<key: string, value: binary>>, as Spark's headers column.
var HeaderType = arrow.ListOf(arrow.StructOf(
	arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
))

// Schema returns the schema of every record the source emits.
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "key", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "topic", Type: arrow.BinaryTypes.String},
		{Name: "partition", Type: arrow.PrimitiveTypes.Int32},
		{Name: "offset", Type: arrow.PrimitiveTypes.Int64},
		{Name: "timestamp", Type: columnar.Timestamp},
		{Name: "headers", Type: HeaderType},
	}, nil)
}

// recBuilder accumulates the messages of one partition into Arrow records.
type recBuilder struct {
	b       *array.RecordBuilder
	key     *array.BinaryBuilder
	value   *array.BinaryBuilder
	topic   *array.StringBuilder
	part    *array.Int32Builder
	off     *array.Int64Builder
	ts      *array.TimestampBuilder
	hdr     *array.ListBuilder
	hdrS    *array.StructBuilder
	hdrK    *array.StringBuilder
	hdrV    *array.BinaryBuilder
	n, max  int
	topicS  string
	partion int32
}

func newRecBuilder(mem memory.Allocator, schema *arrow.Schema, topic string, partition int32, maxRows int) *recBuilder {
	b := array.NewRecordBuilder(mem, schema)
	r := &recBuilder{
		b:       b,
		key:     b.Field(0).(*array.BinaryBuilder),
		value:   b.Field(1).(*array.BinaryBuilder),
		topic:   b.Field(2).(*array.StringBuilder),
		part:    b.Field(3).(*array.Int32Builder),
		off:     b.Field(4).(*array.Int64Builder),
		ts:      b.Field(5).(*array.TimestampBuilder),
		hdr:     b.Field(6).(*array.ListBuilder),
		max:     maxRows,
		topicS:  topic,
		partion: partition,
	}
	r.hdrS = r.hdr.ValueBuilder().(*array.StructBuilder)
	r.hdrK = r.hdrS.FieldBuilder(0).(*array.StringBuilder)
	r.hdrV = r.hdrS.FieldBuilder(1).(*array.BinaryBuilder)
	r.reserve()
	return r
}

func (r *recBuilder) reserve() {
	r.key.Reserve(r.max)
	r.value.Reserve(r.max)
	r.topic.Reserve(r.max)
	r.topic.ReserveData(r.max * len(r.topicS))
	r.part.Reserve(r.max)
	r.off.Reserve(r.max)
	r.ts.Reserve(r.max)
	r.hdr.Reserve(r.max)
}

// add appends one message.
func (r *recBuilder) add(m *kgo.Message) {
	if m.Key == nil {
		r.key.AppendNull()
	} else {
		r.key.Append(m.Key)
	}
	if m.Value == nil {
		r.value.AppendNull()
	} else {
		r.value.Append(m.Value)
	}
	r.topic.Append(r.topicS)
	r.part.UnsafeAppend(r.partion)
	r.off.UnsafeAppend(m.Offset)
	r.ts.UnsafeAppend(arrow.Timestamp(m.Time.UnixMicro()))
	r.hdr.Append(true)
	for i := range m.Headers {
		h := &m.Headers[i]
		r.hdrS.Append(true)
		key := h.Key
		if !utf8.ValidString(key) {
			// The key column is a string, which must hold UTF-8 (Parquet
			// readers refuse anything else). Kafka's Java client, and so
			// Spark, decode header keys with U+FFFD for invalid bytes;
			// converting to runes does the same, byte by byte.
			key = string([]rune(key))
		}
		r.hdrK.Append(key)
		if h.Value == nil {
			r.hdrV.AppendNull()
		} else {
			r.hdrV.Append(h.Value)
		}
	}
	r.n++
}

func (r *recBuilder) full() bool { return r.n >= r.max }

// finish returns the rows added since the last finish as a record.
func (r *recBuilder) finish() arrow.RecordBatch {
	rec := r.b.NewRecordBatch()
	r.n = 0
	r.reserve()
	return rec
}

func (r *recBuilder) release() { r.b.Release() }
