package exec

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

// DeadLetterSchema is the schema of the rows a dead-letter sink receives:
// where the malformed record was, its raw text, and why it was rejected.
// The columns are strings, which must hold UTF-8 (Parquet readers refuse
// anything else), so a byte of the raw record (or of a file name) that is
// not part of valid UTF-8 is written as U+FFFD; source and position locate
// the original bytes.
var DeadLetterSchema = arrow.NewSchema([]arrow.Field{
	{Name: "source", Type: arrow.BinaryTypes.String},
	{Name: "position", Type: arrow.PrimitiveTypes.Int64},
	{Name: "record", Type: arrow.BinaryTypes.String},
	{Name: "error", Type: arrow.BinaryTypes.String},
}, nil)

// deadLetters collects one source's malformed records of the running batch.
type deadLetters struct {
	mu   sync.Mutex
	recs []sources.BadRecord
}

func (d *deadLetters) Add(r sources.BadRecord) {
	d.mu.Lock()
	d.recs = append(d.recs, r)
	d.mu.Unlock()
}

func (d *deadLetters) take() []sources.BadRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := d.recs
	d.recs = nil
	return out
}

// installDeadLetters gives every source that can route malformed records
// a collector, when the query has a dead-letter sink.
func (q *Query) installDeadLetters() error {
	if q.cfg.DeadLetterSink == nil {
		return nil
	}
	q.deadLetters = make([]*deadLetters, len(q.c.scans))
	any := false
	for i, s := range q.c.scans {
		if ds, ok := s.Source.(sources.DeadLetterSetter); ok {
			q.deadLetters[i] = &deadLetters{}
			ds.SetDeadLetters(q.deadLetters[i])
			any = true
		}
	}
	if !any && !hasParseJSON(q.cfg.Plan) && q.cfg.MaxEventTimeAhead <= 0 {
		return fmt.Errorf("a dead-letter sink is set but neither a source nor FromJSON of the query can route malformed records, and MaxEventTimeAhead is not set")
	}
	return nil
}

// writeDeadLetters writes the malformed records of batch b to the
// dead-letter sink, exactly once by batch id, and counts them per source.
func (q *Query) writeDeadLetters(ctx context.Context, b *batchRun) error {
	if q.deadLetters == nil {
		return nil
	}
	b.badRecords = make([]int64, len(q.c.scans))
	var all []sources.BadRecord
	for i, d := range q.deadLetters {
		if d == nil {
			continue
		}
		recs := d.take()
		b.badRecords[i] = int64(len(recs))
		all = append(all, recs...)
	}
	if d := q.c.operatorDeadLetters; d != nil {
		recs := d.take()
		b.operatorBadRecords = int64(len(recs))
		all = append(all, recs...)
	}
	w, err := q.cfg.DeadLetterSink.Begin(ctx, sinks.BatchInfo{QueryID: q.id, BatchID: b.id, Mode: sinks.Append, Schema: DeadLetterSchema})
	if err != nil {
		return fmt.Errorf("dead-letter sink %s: %w", q.cfg.DeadLetterSink.Name(), err)
	}
	if w.Skip() {
		return nil
	}
	if len(all) > 0 {
		bld := array.NewRecordBuilder(q.mem, DeadLetterSchema)
		defer bld.Release()
		for _, r := range all {
			bld.Field(0).(*array.StringBuilder).Append(validUTF8(r.Source))
			bld.Field(1).(*array.Int64Builder).Append(r.Position)
			bld.Field(2).(*array.StringBuilder).Append(validUTF8(string(r.Raw)))
			msg := ""
			if r.Err != nil {
				msg = r.Err.Error()
			}
			bld.Field(3).(*array.StringBuilder).Append(validUTF8(msg))
		}
		rec := bld.NewRecordBatch()
		defer rec.Release()
		if err := w.Write(ctx, rec); err != nil {
			w.Abort()
			return fmt.Errorf("dead-letter sink %s: %w", q.cfg.DeadLetterSink.Name(), err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		return fmt.Errorf("dead-letter sink %s: %w", q.cfg.DeadLetterSink.Name(), err)
	}
	return nil
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD (converting to runes does exactly that).
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

func hasParseJSON(n plan.Node) bool {
	if _, ok := n.(*plan.ParseJSON); ok {
		return true
	}
	for _, c := range n.Children() {
		if hasParseJSON(c) {
			return true
		}
	}
	return false
}
