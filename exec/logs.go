package exec

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/millrace/millrace/sources"
)

// The query logs to Config.Logger: one info line per batch, and warnings
// for what an operator must know — a watermark jumping far ahead
// (watermark.go), a batch slower than its trigger interval, a source whose
// backlog keeps growing.

// logBatch writes the batch's info line and the warnings its figures call
// for.
func (q *Query) logBatch(p *Progress, total time.Duration) {
	log := q.cfg.Logger
	attrs := []any{"query", q.cfg.Name, "id", q.id, "batch", p.BatchID, "inputRows", p.NumInputRows,
		"outputRows", p.Sink.NumOutputRows, "durationMs", total.Milliseconds()}
	if wm, ok := p.EventTime["watermark"]; ok {
		attrs = append(attrs, "watermark", wm)
	}
	if p.Cost != nil {
		attrs = append(attrs, "cpuSeconds", round3(p.Cost.CPUSeconds))
	}
	log.Info("millrace: batch done", attrs...)
	if iv := q.cfg.Trigger.Interval; q.cfg.Trigger.Kind == TriggerProcessingTime && iv > 0 && total > iv {
		// Spark's "Current batch is falling behind" warning
		log.Warn(fmt.Sprintf("millrace: batch %d took %s, longer than the trigger interval %s: the query is falling behind its trigger, and the next batch starts late with more to read (raise parallelism, add cores, or lengthen the interval)",
			p.BatchID, total.Round(time.Millisecond), iv),
			"query", q.cfg.Name, "batch", p.BatchID, "durationMs", total.Milliseconds(), "triggerIntervalMs", iv.Milliseconds())
	}
}

// observeBacklogs reads the backlog of each source that reports one into
// the batch's progress, and warns when one has grown over the last
// Config.BacklogWarnBatches batches (again every as many batches while it
// keeps growing).
func (q *Query) observeBacklogs(p *Progress) {
	keep := q.cfg.BacklogWarnBatches
	for i, s := range q.c.scans {
		bl, ok := s.Source.(sources.Backlogger)
		if !ok || i >= len(p.Sources) {
			continue
		}
		n, unit := bl.Backlog()
		p.Sources[i].Backlog, p.Sources[i].BacklogUnit = &n, unit
		grew := q.cost.observeBacklog(i, len(q.c.scans), n, keep)
		if grew > 0 && grew%keep == 0 {
			q.cfg.Logger.Warn(fmt.Sprintf("millrace: source %d (%s) is falling behind: its backlog grew over each of the last %d batches, to %d %s after batch %d; input arrives faster than the query reads it (raise the read limit, parallelism or cores)",
				i, s.Source.Name(), grew, n, unit, p.BatchID),
				"query", q.cfg.Name, "batch", p.BatchID, "source", s.Source.Name(), "backlog", n, "unit", unit, "batches", grew)
		}
	}
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// progressLog writes each progress event as one line of JSON.
type progressLog struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

// NewProgressLog returns a listener that writes each progress event to w
// as one line of JSON (Config.ProgressLog). A write error stops the
// writing and is logged once, to slog.Default(); the query goes on.
func NewProgressLog(w io.Writer) Listener { return &progressLog{w: w} }

func (l *progressLog) OnQueryStarted(string, string, string)   {}
func (l *progressLog) OnQueryTerminated(string, string, error) {}

func (l *progressLog) OnQueryProgress(p *Progress) {
	b, err := json.Marshal(p)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if _, err := l.w.Write(append(b, '\n')); err != nil {
		l.err = err
		slog.Default().Warn("millrace: progress log: write failed; no more progress events will be written to it", "query", p.Name, "batch", p.BatchID, "error", err)
	}
}
