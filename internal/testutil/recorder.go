package testutil

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
)

// Recorder is a sink that keeps the rows of every committed batch, in order,
// as Go values. It is idempotent by batch id like a real sink.
type Recorder struct {
	mu      sync.Mutex
	batches map[int64][][]any
	order   []int64
	modes   map[int64]sinks.OutputMode
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{batches: map[int64][][]any{}, modes: map[int64]sinks.OutputMode{}}
}

// Name implements sinks.Sink.
func (r *Recorder) Name() string { return "Recorder" }

// Close implements sinks.Sink.
func (r *Recorder) Close() error { return nil }

// Begin implements sinks.Sink.
func (r *Recorder) Begin(_ context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, done := r.batches[info.BatchID]
	return &recWriter{r: r, id: info.BatchID, mode: info.Mode, skip: done}, nil
}

type recWriter struct {
	r    *Recorder
	id   int64
	mode sinks.OutputMode
	skip bool
	rows [][]any
}

func (w *recWriter) Skip() bool { return w.skip }

func (w *recWriter) Write(_ context.Context, rec arrow.RecordBatch) error {
	w.rows = append(w.rows, Rows(rec)...)
	return nil
}

func (w *recWriter) Commit(context.Context) error {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	if _, done := w.r.batches[w.id]; done {
		return nil
	}
	w.r.batches[w.id] = w.rows
	w.r.modes[w.id] = w.mode
	w.r.order = append(w.r.order, w.id)
	return nil
}

func (w *recWriter) Abort() {}

// Batches returns the committed batches in commit order: ids and rows.
func (r *Recorder) Batches() ([]int64, [][][]any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := append([]int64(nil), r.order...)
	out := make([][][]any, len(ids))
	for i, id := range ids {
		out[i] = r.batches[id]
	}
	return ids, out
}

// All returns every committed row.
func (r *Recorder) All() [][]any {
	_, bs := r.Batches()
	var out [][]any
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}
