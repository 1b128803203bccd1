package kinesis

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/millrace/millrace/columnar"
)

// Schema returns the schema of every record the source emits: the columns
// of Spark's Kinesis connectors, plus shardId.
func Schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "data", Type: arrow.BinaryTypes.Binary},
		{Name: "streamName", Type: arrow.BinaryTypes.String},
		{Name: "partitionKey", Type: arrow.BinaryTypes.String},
		{Name: "sequenceNumber", Type: arrow.BinaryTypes.String},
		{Name: "approximateArrivalTimestamp", Type: columnar.Timestamp, Nullable: true},
		{Name: "shardId", Type: arrow.BinaryTypes.String},
	}, nil)
}

// recBuilder accumulates one shard's records into Arrow records.
type recBuilder struct {
	b      *array.RecordBuilder
	data   *array.BinaryBuilder
	stream *array.StringBuilder
	key    *array.StringBuilder
	seq    *array.StringBuilder
	ts     *array.TimestampBuilder
	shard  *array.StringBuilder
	n      int
	name   string
	id     string
}

func newRecBuilder(mem memory.Allocator, schema *arrow.Schema, stream, shard string) *recBuilder {
	b := array.NewRecordBuilder(mem, schema)
	return &recBuilder{
		b:      b,
		data:   b.Field(0).(*array.BinaryBuilder),
		stream: b.Field(1).(*array.StringBuilder),
		key:    b.Field(2).(*array.StringBuilder),
		seq:    b.Field(3).(*array.StringBuilder),
		ts:     b.Field(4).(*array.TimestampBuilder),
		shard:  b.Field(5).(*array.StringBuilder),
		name:   stream,
		id:     shard,
	}
}

func (r *recBuilder) add(rec *types.Record) {
	r.data.Append(rec.Data)
	r.stream.Append(r.name)
	r.key.Append(aws.ToString(rec.PartitionKey))
	r.seq.Append(aws.ToString(rec.SequenceNumber))
	if rec.ApproximateArrivalTimestamp != nil {
		r.ts.Append(arrow.Timestamp(rec.ApproximateArrivalTimestamp.UnixMicro()))
	} else {
		r.ts.AppendNull()
	}
	r.shard.Append(r.id)
	r.n++
}

// flush returns the records added since the last flush as one Arrow record.
func (r *recBuilder) flush() arrow.RecordBatch {
	r.n = 0
	return r.b.NewRecordBatch()
}

func (r *recBuilder) release() { r.b.Release() }
