package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// capture is a slog handler keeping the records it is given.
type capture struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (h *capture) Enabled(context.Context, slog.Level) bool { return true }
func (h *capture) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.recs = append(h.recs, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *capture) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *capture) WithGroup(string) slog.Handler      { return h }

// at returns the records of level l whose message holds sub.
func (h *capture) at(l slog.Level, sub string) []slog.Record {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []slog.Record
	for _, r := range h.recs {
		if r.Level == l && strings.Contains(r.Message, sub) {
			out = append(out, r)
		}
	}
	return out
}

func attrs(r slog.Record) map[string]slog.Value {
	m := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value; return true })
	return m
}

var evSchema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}}}, nil)

// logRun is a query counting rows per key and 1-minute window of ts
// (watermark 10 s) over a memory source, its triggers driven by hand.
type logRun struct {
	t   *testing.T
	src *memsrc.Source
	q   *Query
	log *capture
	now time.Time
}

func newLogRun(t *testing.T, tweak func(*Config)) *logRun {
	t.Helper()
	src, err := memsrc.New(evSchema, memsrc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wm, err := plan.NewWatermark(&plan.Scan{Source: src}, "ts", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	win := plan.Window{Time: plan.ColumnRef{Name: "ts"}, Size: time.Minute, Slide: time.Minute}
	node, err := plan.NewAggregate(wm, []plan.Expr{win, plan.ColumnRef{Name: "k"}}, []plan.Expr{plan.Agg{Func: plan.AggCountAll}})
	if err != nil {
		t.Fatal(err)
	}
	bh, _ := blackhole.New()
	r := &logRun{t: t, src: src, log: &capture{}, now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	cfg := Config{Plan: node, Sink: bh, Mode: sinks.Update, StatePartitions: 2,
		Logger: slog.New(r.log), Clock: func() time.Time { return r.now }}
	if tweak != nil {
		tweak(&cfg)
	}
	if r.q, err = newQuery(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.q.c.release() })
	return r
}

// trigger adds one input batch per time in ts (none: no input) and runs a
// trigger.
func (r *logRun) trigger(ts ...time.Time) {
	r.t.Helper()
	for _, x := range ts {
		if _, err := r.src.AddRows([]any{int64(1), x.UnixMicro()}); err != nil {
			r.t.Fatal(err)
		}
	}
	if _, err := r.q.trigger(context.Background(), r.now); err != nil {
		r.t.Fatal(err)
	}
	r.now = r.now.Add(time.Second)
}

func TestLogBatchInfoLine(t *testing.T) {
	r := newLogRun(t, nil)
	base := r.now.Add(-time.Hour)
	r.trigger(base, base.Add(time.Second))
	r.trigger(base.Add(time.Minute))
	lines := r.log.at(slog.LevelInfo, "batch done")
	if len(lines) != 2 {
		t.Fatalf("%d batch lines, want 2: %v", len(lines), r.log.recs)
	}
	a := attrs(lines[1])
	if a["batch"].Int64() != 1 || a["inputRows"].Int64() != 1 || a["watermark"].String() != "2026-12-01T10:59:51.000Z" {
		t.Fatalf("batch line %v", a)
	}
	// durations are measured on the real clock, not the query's (which
	// tests and simulations fix): here a fixed clock far from now
	if d, ok := a["durationMs"]; !ok || d.Int64() > time.Hour.Milliseconds() || r.q.LastProgress().BatchDuration > time.Hour.Milliseconds() {
		t.Fatalf("batch line %v, batchDuration %d ms", a, r.q.LastProgress().BatchDuration)
	}
	if w := r.log.at(slog.LevelWarn, ""); len(w) != 0 {
		t.Fatalf("warnings in a healthy run: %v", w)
	}
}

// One row dated months ahead (but not past the processing time) moves the
// watermark there: the warning names the batch that carried it.
func TestLogWatermarkJumpWarning(t *testing.T) {
	r := newLogRun(t, nil)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.trigger(base)
	r.trigger(base.Add(time.Minute))         // a normal step: no warning
	r.trigger(base.Add(60 * 24 * time.Hour)) // batch 2 carries the bad row
	r.trigger(base.Add(2 * time.Minute))     // judged by batch 2's watermark (Spark's rule)
	r.trigger(base.Add(3 * time.Minute))     // late: dropped
	w := r.log.at(slog.LevelWarn, "watermark jumped far ahead")
	if len(w) != 1 {
		t.Fatalf("%d jump warnings, want 1: %v", len(w), r.log.recs)
	}
	if !strings.Contains(w[0].Message, "in batch 2") || !strings.Contains(w[0].Message, "every later row") || attrs(w[0])["batch"].Int64() != 2 {
		t.Fatalf("warning %q %v", w[0].Message, attrs(w[0]))
	}
	if n := r.q.Summary().NumRowsDroppedByWatermark; n == 0 {
		t.Fatal("no row dropped after the jump")
	}

	// a configured threshold: a 5-minute step is far for a 2-minute one
	r = newLogRun(t, func(c *Config) { c.WatermarkJumpWarning = 2 * time.Minute })
	r.trigger(base)
	r.trigger(base.Add(5 * time.Minute))
	r.trigger(base.Add(6 * time.Minute))
	if w := r.log.at(slog.LevelWarn, "watermark jumped far ahead in batch 1"); len(w) != 1 {
		t.Fatalf("%d warnings with a 2-minute threshold, want 1: %v", len(w), r.log.recs)
	}
}

func TestLogSlowBatchWarning(t *testing.T) {
	// every batch takes longer than a nanosecond
	r := newLogRun(t, func(c *Config) { c.Trigger = Trigger{Kind: TriggerProcessingTime, Interval: time.Nanosecond} })
	r.trigger(r.now.Add(-time.Minute))
	w := r.log.at(slog.LevelWarn, "longer than the trigger interval")
	if len(w) != 1 || attrs(w[0])["batch"].Int64() != 0 || !strings.Contains(w[0].Message, "batch 0") {
		t.Fatalf("slow-batch warnings %v", r.log.recs)
	}
	if c := r.q.LastProgress().Cost; c.KeepsUp {
		t.Fatalf("a query whose batches outlast the interval keeps up: %+v", c)
	}
	// without an interval there is nothing to be slower than
	r = newLogRun(t, nil)
	r.trigger(r.now.Add(-time.Minute))
	if w := r.log.at(slog.LevelWarn, ""); len(w) != 0 {
		t.Fatalf("warnings %v", w)
	}
}

// Two rows arrive per trigger and the read limit lets one through: the
// backlog grows by one each batch, and after three the query warns.
func TestLogSourceFallingBehindWarning(t *testing.T) {
	r := newLogRun(t, func(c *Config) { c.ReadLimit = sources.ReadLimit{MaxRows: 1} })
	ts := r.now.Add(-time.Hour)
	for i := 0; i < 4; i++ {
		r.trigger(ts, ts)
		if w := r.log.at(slog.LevelWarn, "falling behind"); len(w) != 0 && i < 3 {
			t.Fatalf("warned after %d batches: %v", i+1, w)
		}
	}
	w := r.log.at(slog.LevelWarn, "is falling behind")
	if len(w) != 1 {
		t.Fatalf("%d falling-behind warnings, want 1: %v", len(w), r.log.recs)
	}
	a := attrs(w[0])
	if a["batch"].Int64() != 3 || a["backlog"].Int64() != 4 || a["unit"].String() != "rows" || !strings.Contains(w[0].Message, "MemorySource") {
		t.Fatalf("warning %q %v", w[0].Message, a)
	}
	p := r.q.LastProgress()
	if p.Sources[0].Backlog == nil || *p.Sources[0].Backlog != 4 || p.Cost.BacklogTrend != "growing" || p.Cost.KeepsUp {
		t.Fatalf("progress: backlog %v, cost %+v", p.Sources[0].Backlog, p.Cost)
	}
}

func TestProgressLogAndCost(t *testing.T) {
	var buf bytes.Buffer
	r := newLogRun(t, func(c *Config) {
		c.ProgressLog = &buf
		c.CoreHourPrice = 0.04
		c.CostInputRate = 1e6
	})
	base := r.now.Add(-time.Hour)
	r.trigger(base, base)
	r.trigger(base.Add(time.Minute))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d progress lines, want 2:\n%s", len(lines), buf.String())
	}
	var p Progress
	if err := json.Unmarshal([]byte(lines[1]), &p); err != nil {
		t.Fatal(err)
	}
	c := p.Cost
	if p.BatchID != 1 || c == nil || c.TotalInputRows != 3 || c.SizingInputRowsPerSecond != 1e6 || c.Headroom != DefaultCostHeadroom {
		t.Fatalf("progress line %s", lines[1])
	}
	var sum float64
	var names []string
	for _, o := range c.Operators {
		sum += o.CPUSeconds
		names = append(names, o.Name)
	}
	if strings.Join(names, ",") != "scan,stateStoreSave,sink,checkpoint,driver" {
		t.Fatalf("operators %v", names)
	}
	if math.Abs(sum-c.CPUSeconds) > 1e-9 {
		t.Fatalf("operators add up to %g CPU s, the batch took %g", sum, c.CPUSeconds)
	}
	wantCores := c.RecentCPUSecondsPerMillionRows * (1 + DefaultCostHeadroom) // per million rows/s × 1M rows/s
	if math.Abs(c.CoresNeeded-wantCores) > 1e-9 || math.Abs(c.CostPerHour-wantCores*0.04) > 1e-9 {
		t.Fatalf("cores %g (want %g), cost/h %g", c.CoresNeeded, wantCores, c.CostPerHour)
	}
	s := r.q.CostTotals()
	if s.Last == nil || math.Abs(s.CPUSeconds-c.TotalCPUSeconds) > 1e-9 || len(s.Operators) != 5 || s.InputRows != 3 {
		t.Fatalf("cost totals %+v, cost report %g CPU s", s, c.TotalCPUSeconds)
	}
	rc := s.RunCost(2e6, 0.5, 0.1)
	sum = 0
	for _, o := range rc.Operators {
		sum += o.CPUSeconds
	}
	want := s.CPUSeconds / 3 * 2e6 * 1.5 // CPU s per row × 2M rows/s × 1.5
	if math.Abs(sum-s.CPUSeconds) > 1e-9 || rc.InputRows != 3 || math.Abs(rc.CoresNeeded-want) > 1e-9 || math.Abs(rc.CostPerHour-want*0.1) > 1e-9 {
		t.Fatalf("run cost %+v (operators add up to %g of %g CPU s; want %g cores)", rc, sum, s.CPUSeconds, want)
	}
}
