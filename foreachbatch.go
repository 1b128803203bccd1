package millrace

import (
	"context"
	"errors"

	"github.com/millrace/millrace/sinks/foreachbatch"
)

// Batch is one micro-batch handed to a ForeachBatch function: its id, the
// query id, the output mode, the schema and the rows as Arrow records
// (valid while the function runs: their buffers may be reused after it
// returns, so copy what you keep, such as a string column's Value, which
// points into its buffer, or Retain the record).
type Batch = foreachbatch.Batch

// ForeachBatch starts configuring a query that calls fn with each
// micro-batch, as Spark's foreachBatch: once per batch, again with the same
// id and rows when a batch that did not commit runs again after a restart.
// Write idempotently by batch id (Batch.WriteTo into this module's
// exactly-once sinks does) for exactly-once output; see package
// sinks/foreachbatch.
func (s *Stream) ForeachBatch(fn func(ctx context.Context, b *Batch) error) *StreamWriter {
	sink, err := foreachbatch.New(fn, foreachbatch.Options{})
	if err != nil {
		return &StreamWriter{s: &Stream{node: s.node, err: errors.Join(s.err, err)}}
	}
	return s.WriteStream(sink)
}
