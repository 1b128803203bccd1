package nexmark

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/blackhole"
)

// flatSink is the benchmark's sink: a blackhole that reads struct columns
// (q11's session_window, q12's window) field by field. The blackhole's
// checksum counts a struct column's rows but not its values; flatSink
// hands it records whose top-level struct columns are replaced by their
// fields, in order, so that a window's start and end are checksummed as
// two timestamp columns. Records without structs pass unchanged, so q0–q2
// checksum exactly as the plain blackhole does.
//
// A Complete-mode batch rewrites the whole result table, so adding up the
// batches would count every row once per trigger: flatSink checksums a
// Complete batch itself and keeps only the last committed one (Last), the
// query's final table, and does not pass it to the blackhole.
type flatSink struct {
	*blackhole.Sink
	last *lastBatch
}

// lastBatch is the rows and checksum of the last committed Complete batch.
type lastBatch struct {
	mu  sync.Mutex
	res Result
}

var _ sinks.Sink = flatSink{}

func newFlatSink(s *blackhole.Sink) flatSink { return flatSink{s, &lastBatch{}} }

// Last returns the rows and checksum of the last committed Complete-mode
// batch (zero when there was none).
func (s flatSink) Last() Result {
	s.last.mu.Lock()
	defer s.last.mu.Unlock()
	return s.last.res
}

// Begin returns the blackhole's writer for the batch, flattening; for a
// Complete-mode batch, a writer that replaces Last on commit.
func (s flatSink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	if info.Mode == sinks.Complete {
		return &completeWriter{last: s.last}, nil
	}
	w, err := s.Sink.Begin(ctx, info)
	if err != nil {
		return nil, err
	}
	return flatWriter{w}, nil
}

type flatWriter struct {
	sinks.BatchWriter
}

// Write flattens rec's struct columns and writes it to the blackhole.
func (w flatWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	flat, ok := flatten(rec)
	if !ok {
		return w.BatchWriter.Write(ctx, rec)
	}
	defer flat.Release()
	return w.BatchWriter.Write(ctx, flat)
}

// completeWriter checksums one Complete-mode batch (struct columns
// flattened) and makes it the sink's last batch on commit.
type completeWriter struct {
	last *lastBatch
	res  Result
}

func (w *completeWriter) Skip() bool { return false }

// Write adds rec's rows to the batch's count and checksum.
func (w *completeWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if flat, ok := flatten(rec); ok {
		defer flat.Release()
		rec = flat
	}
	w.res.Rows += rec.NumRows()
	w.res.Checksum += blackhole.RecordChecksum(rec)
	return nil
}

// Commit makes the batch the sink's last batch.
func (w *completeWriter) Commit(ctx context.Context) error {
	w.last.mu.Lock()
	w.last.res = w.res
	w.last.mu.Unlock()
	return nil
}

// Abort discards the batch.
func (w *completeWriter) Abort() { w.res = Result{} }

// flatten returns rec with its top-level struct columns replaced by their
// fields (ok false, and nothing to release, when rec has none).
func flatten(rec arrow.RecordBatch) (arrow.RecordBatch, bool) {
	has := false
	for _, f := range rec.Schema().Fields() {
		if f.Type.ID() == arrow.STRUCT {
			has = true
			break
		}
	}
	if !has {
		return nil, false
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, f := range rec.Schema().Fields() {
		st, ok := rec.Column(i).(*array.Struct)
		if !ok {
			fields = append(fields, f)
			cols = append(cols, rec.Column(i))
			continue
		}
		typ := f.Type.(*arrow.StructType)
		for j := range st.NumField() {
			sub := typ.Field(j)
			sub.Name = f.Name + "." + sub.Name
			fields = append(fields, sub)
			cols = append(cols, st.Field(j)) // already sliced to the struct's offset
		}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), true
}
