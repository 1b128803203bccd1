package blackhole

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
)

// Sink is the blackhole sink. Create it with New.
type Sink struct {
	rows     atomic.Int64
	batches  atomic.Int64
	checksum atomic.Uint64
}

var (
	_ sinks.Sink     = (*Sink)(nil)
	_ sinks.Metricer = (*Sink)(nil)
)

// New returns an empty blackhole sink. It has no options; the error is
// always nil, and there for the connectors' common constructor shape.
func New() (*Sink, error) { return &Sink{}, nil }

// Name describes the sink in progress events.
func (s *Sink) Name() string { return "BlackholeSink" }

// Rows returns the rows of all committed batches.
func (s *Sink) Rows() int64 { return s.rows.Load() }

// Batches returns the number of committed batches.
func (s *Sink) Batches() int64 { return s.batches.Load() }

// Checksum returns the checksum of all committed rows (see the package
// documentation).
func (s *Sink) Checksum() uint64 { return s.checksum.Load() }

// Metrics reports rows and batches.
func (s *Sink) Metrics() map[string]string {
	return map[string]string{
		"rows":    strconv.FormatInt(s.Rows(), 10),
		"batches": strconv.FormatInt(s.Batches(), 10),
	}
}

// Begin returns a writer for the batch; it never skips.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	return &writer{sink: s}, nil
}

// Close does nothing.
func (s *Sink) Close() error { return nil }

type writer struct {
	sink *Sink
	rows int64
	sum  uint64
}

func (w *writer) Skip() bool { return false }

// Write reads every value of rec into the batch's checksum.
func (w *writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	w.sum += RecordChecksum(rec)
	w.rows += rec.NumRows()
	return nil
}

func (w *writer) Commit(ctx context.Context) error {
	w.sink.rows.Add(w.rows)
	w.sink.checksum.Add(w.sum)
	w.sink.batches.Add(1)
	return nil
}

func (w *writer) Abort() { w.rows, w.sum = 0, 0 }
