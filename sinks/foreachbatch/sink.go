package foreachbatch

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
)

// Func receives one micro-batch. An error fails the batch, and with it
// the query; the batch runs again (with the same id) when the query is
// restarted from its checkpoint.
type Func func(ctx context.Context, b *Batch) error

// Batch is one micro-batch handed to a Func.
type Batch struct {
	ID      int64
	QueryID string
	Mode    sinks.OutputMode
	Schema  *arrow.Schema
	// Records hold the batch's rows; valid until the Func returns.
	Records []arrow.RecordBatch
}

// NumRows returns the rows of all records.
func (b *Batch) NumRows() int64 {
	var n int64
	for _, r := range b.Records {
		n += r.NumRows()
	}
	return n
}

// WriteTo writes the batch to sink under the batch's query id and batch
// id, as the query itself would (its errors name the sink; the Func's
// caller adds the batch): a sink that already holds the batch
// (written before a crash, then the batch ran again) skips it, so writing
// one batch to several sinks is idempotent.
func (b *Batch) WriteTo(ctx context.Context, sink sinks.Sink) error {
	w, err := sink.Begin(ctx, sinks.BatchInfo{QueryID: b.QueryID, BatchID: b.ID, Mode: b.Mode, Schema: b.Schema})
	if err != nil {
		return fmt.Errorf("write to %s: %w", sink.Name(), err)
	}
	if w.Skip() {
		return nil
	}
	for _, r := range b.Records {
		if err := w.Write(ctx, r); err != nil {
			w.Abort()
			return fmt.Errorf("write to %s: %w", sink.Name(), err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		w.Abort()
		return fmt.Errorf("write to %s: commit: %w", sink.Name(), err)
	}
	return nil
}

// Sink calls a Func with each batch. Create it with New.
type Sink struct {
	fn Func
}

var _ sinks.Sink = (*Sink)(nil)

// Options configures the sink; it has none yet, and is there for the
// connectors' common constructor shape.
type Options struct{}

// New returns the sink calling fn.
func New(fn Func, _ Options) (*Sink, error) {
	if fn == nil {
		return nil, errors.New("foreachBatch: the function is nil")
	}
	return &Sink{fn: fn}, nil
}

// Name describes the sink in progress events, as Spark names it.
func (s *Sink) Name() string { return "ForeachBatchSink" }

// Begin starts a batch; it never skips (the function decides).
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	return &writer{fn: s.fn, b: Batch{ID: info.BatchID, QueryID: info.QueryID, Mode: info.Mode, Schema: info.Schema}}, nil
}

// Close does nothing.
func (s *Sink) Close() error { return nil }

type writer struct {
	fn Func
	b  Batch
}

func (w *writer) Skip() bool { return false }

// Write keeps rec (Retain) until the batch is handed over.
func (w *writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	rec.Retain()
	w.b.Records = append(w.b.Records, rec)
	return nil
}

// Commit calls the function with the whole batch, then releases it. A
// panic of the function becomes the batch's error: it must not cross the
// engine.
func (w *writer) Commit(ctx context.Context) (err error) {
	defer w.release()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("foreachBatch: batch %d: the function panicked: %v", w.b.ID, r)
		}
	}()
	if err := w.fn(ctx, &w.b); err != nil {
		return fmt.Errorf("foreachBatch: batch %d: %w", w.b.ID, err)
	}
	return nil
}

func (w *writer) Abort() { w.release() }

func (w *writer) release() {
	for _, r := range w.b.Records {
		r.Release()
	}
	w.b.Records = nil
}
