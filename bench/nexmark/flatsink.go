package nexmark

import (
	"context"

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
type flatSink struct {
	*blackhole.Sink
}

var _ sinks.Sink = flatSink{}

func newFlatSink(s *blackhole.Sink) flatSink { return flatSink{s} }

// Begin returns the blackhole's writer for the batch, flattening.
func (s flatSink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
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
