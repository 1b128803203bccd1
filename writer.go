package millrace

import (
	"context"
	"log/slog"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

// OutputMode says which result rows each trigger writes.
type OutputMode = sinks.OutputMode

// Output modes.
const (
	// Append writes rows once, when they can no longer change.
	Append = sinks.Append
	// Update writes the rows that changed in the trigger.
	Update = sinks.Update
	// Complete writes the whole result every trigger.
	Complete = sinks.Complete
)

// Trigger says when micro-batches run.
type Trigger = exec.Trigger

// ProcessingTime runs a micro-batch every interval (0: as soon as the
// previous one ends and there is new data).
func ProcessingTime(interval time.Duration) Trigger {
	return Trigger{Kind: exec.TriggerProcessingTime, Interval: interval}
}

// Once runs a single micro-batch with everything available, then stops.
func Once() Trigger { return Trigger{Kind: exec.TriggerOnce} }

// AvailableNow processes everything available at start, in as many
// micro-batches as read limits allow, then stops.
func AvailableNow() Trigger { return Trigger{Kind: exec.TriggerAvailableNow} }

// Query is a running streaming query.
type Query = exec.Query

// Progress is the report of one trigger (Spark's StreamingQueryProgress).
type Progress = exec.Progress

// Summary totals the progress events of one run of a query (Query.Summary).
type Summary = exec.Summary

// Listener receives query events (Spark's StreamingQueryListener).
type Listener = exec.Listener

// StreamWriter configures how a stream is written; Start runs it.
type StreamWriter struct {
	s        *Stream
	cfg      exec.Config
	monitors []Monitor // monitor.go
}

// WriteStream starts configuring the query that writes s to sink.
func (s *Stream) WriteStream(sink sinks.Sink) *StreamWriter {
	return &StreamWriter{s: s, cfg: exec.Config{Sink: sink, Mode: Append, Trigger: ProcessingTime(0)}}
}

// OutputMode sets the output mode (default Append).
func (w *StreamWriter) OutputMode(m OutputMode) *StreamWriter { w.cfg.Mode = m; return w }

// Trigger sets the trigger (default ProcessingTime(0)).
func (w *StreamWriter) Trigger(t Trigger) *StreamWriter { w.cfg.Trigger = t; return w }

// QueryName names the query in progress events.
func (w *StreamWriter) QueryName(name string) *StreamWriter { w.cfg.Name = name; return w }

// Checkpoint sets the checkpoint directory that makes the query
// exactly-once across restarts.
func (w *StreamWriter) Checkpoint(dir string) *StreamWriter { w.cfg.CheckpointDir = dir; return w }

// IgnoreSinkMismatch starts the query even when the sink's output and the
// checkpoint do not belong together — the table was deleted or replaced
// while the checkpoint has committed batches, or the checkpoint was
// deleted while the table holds its old output — which Start otherwise
// refuses (sinks.ErrSinkMismatch): output may be lost or duplicated, as in
// Spark. Needed once: the new binding is recorded.
func (w *StreamWriter) IgnoreSinkMismatch() *StreamWriter { w.cfg.IgnoreSinkMismatch = true; return w }

// Parallelism sets the number of worker goroutines (default GOMAXPROCS).
func (w *StreamWriter) Parallelism(n int) *StreamWriter { w.cfg.Parallelism = n; return w }

// StatePartitions sets the number of state partitions of stateful
// operators (default 16). It is fixed at a checkpoint's first start.
func (w *StreamWriter) StatePartitions(n int) *StreamWriter { w.cfg.StatePartitions = n; return w }

// MinDeltasForSnapshot sets how many per-batch state deltas a state
// partition writes at least before it consolidates them into a snapshot
// (default 10, Spark's minDeltasForSnapshot); a snapshot is written once the
// deltas also weigh as much as the previous one.
func (w *StreamWriter) MinDeltasForSnapshot(n int) *StreamWriter {
	w.cfg.MinDeltasForSnapshot = n
	return w
}

// LateDataSink routes rows dropped by the watermark to sink instead of
// discarding them (they are counted either way).
func (w *StreamWriter) LateDataSink(sink sinks.Sink) *StreamWriter { w.cfg.LateSink = sink; return w }

// DeadLetterSink routes malformed input records (raw text, position and
// error; see exec.DeadLetterSchema) to sink instead of failing the query.
// Each batch's dead letters are written exactly once, under its batch id, and
// counted in sources[].metrics.numDeadLetterRecords of progress events.
func (w *StreamWriter) DeadLetterSink(sink sinks.Sink) *StreamWriter {
	w.cfg.DeadLetterSink = sink
	return w
}

// MaxRowsPerTrigger bounds the records each trigger reads.
func (w *StreamWriter) MaxRowsPerTrigger(n int64) *StreamWriter {
	w.cfg.ReadLimit.MaxRows = n
	return w
}

// ReadLimit bounds what each trigger reads.
func (w *StreamWriter) ReadLimit(l sources.ReadLimit) *StreamWriter { w.cfg.ReadLimit = l; return w }

// Allocator sets the Arrow allocator of the query (tests use a checked one).
func (w *StreamWriter) Allocator(mem memory.Allocator) *StreamWriter { w.cfg.Allocator = mem; return w }

// Listener adds a listener for query events.
func (w *StreamWriter) Listener(l Listener) *StreamWriter {
	w.cfg.Listeners = append(w.cfg.Listeners, l)
	return w
}

// WatermarkIdleTimeout lets an input that has had no rows for d
// (processing time) stop holding the query's watermark back until rows
// reach it again, as Flink's idleness does. By default, as in Spark, the
// watermark is the minimum over inputs and an input without rows holds it
// for ever (one that has never had rows holds it at 0).
func (w *StreamWriter) WatermarkIdleTimeout(d time.Duration) *StreamWriter {
	w.cfg.WatermarkIdleTimeout = d
	return w
}

// MaxEventTimeAhead bounds event times: a row whose event time is more
// than d after its batch's processing time goes to the DeadLetterSink when
// the query has one, and otherwise fails the query, naming the row. Such
// a row never moves the watermark. Without a bound (the default, Spark's
// semantics) one row dated far in the future moves the watermark there
// and every later row is dropped as late; the query logs a warning when
// the watermark jumps like that.
func (w *StreamWriter) MaxEventTimeAhead(d time.Duration) *StreamWriter {
	w.cfg.MaxEventTimeAhead = d
	return w
}

// CheckOverflow makes integer overflow fail the query with ErrOverflow, as
// Spark's ANSI mode does (ARITHMETIC_OVERFLOW), in Sum over integers and in
// Plus, Minus and Times of integer columns. By default, as in Spark without
// ANSI mode, int64 results wrap around silently. The checks cost a compare
// per row; a query's state is the same with or without them.
func (w *StreamWriter) CheckOverflow() *StreamWriter { w.cfg.CheckOverflow = true; return w }

// ErrOverflow is the error a query with CheckOverflow fails with when an
// integer result leaves the int64 range.
var ErrOverflow = agg.ErrOverflow

// Logger sets where the query logs: one info line per batch, and warnings
// (a watermark jumping far ahead, a batch slower than its trigger
// interval, a source falling behind; default slog.Default()).
func (w *StreamWriter) Logger(l *slog.Logger) *StreamWriter { w.cfg.Logger = l; return w }

// Clock sets the processing-time clock (tests fix it).
func (w *StreamWriter) Clock(now func() time.Time) *StreamWriter { w.cfg.Clock = now; return w }

// Start analyzes the query and starts it. Analysis errors (unknown
// columns, type mismatches, an output mode the query cannot support) are
// returned here.
func (w *StreamWriter) Start(ctx context.Context) (*Query, error) {
	if w.s.err != nil {
		return nil, w.s.err
	}
	w.cfg.Plan = w.s.node
	q, err := exec.Start(ctx, w.cfg)
	if err != nil {
		return nil, err
	}
	for _, m := range w.monitors {
		m.Watch(q)
	}
	return q, nil
}

// FaultInjection installs a test hook called at each step of each batch
// (exec.Step* names); an error it returns fails the query at that step, as
// a crash would. Recovery tests use it.
func (w *StreamWriter) FaultInjection(fn func(step string, batchID int64) error) *StreamWriter {
	w.cfg.FaultInjection = fn
	return w
}

// AdaptiveReadLimit sizes each trigger so that processing it takes about
// the trigger interval, following the measured processing rate (bounded by
// MaxRowsPerTrigger when set); progress reports the chosen limit in
// sources[].metrics.adaptiveMaxRows.
func (w *StreamWriter) AdaptiveReadLimit() *StreamWriter {
	w.cfg.AdaptiveReadLimit = true
	return w
}

// RecentProgressSize sets how many progress events RecentProgress keeps
// (default 100, as Spark's spark.sql.streaming.numRecentProgressUpdates).
func (w *StreamWriter) RecentProgressSize(n int) *StreamWriter {
	w.cfg.RecentProgressSize = n
	return w
}
