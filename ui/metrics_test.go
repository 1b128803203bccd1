package ui_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
	"github.com/millrace/millrace/ui"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// clickCounts is the demo's query: clicks per (window, campaign) with a
// watermark, over a generator whose late events the watermark drops.
func clickCounts(t *testing.T, events, perTrigger, rate int64) *millrace.Stream {
	t.Helper()
	src, err := clicks.New(clicks.Options{
		Seed: 3, Events: events, MaxEventsPerTrigger: perTrigger, EventsPerSecond: rate,
		Campaigns: 4, LateFraction: 0.05,
	})
	if err != nil {
		t.Fatal(err)
	}
	return millrace.ReadStream(src).
		WithWatermark("event_time", 5*time.Second).
		GroupBy(millrace.Window(millrace.Col("event_time"), 10*time.Second), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"))
}

// scrape reads srv's /metrics and parses the exposition format.
func scrape(srv *ui.Server) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(srv.URL() + "metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// value is the sample of family name whose labels include want (nil when
// there is none).
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func num(m *dto.Metric) float64 {
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return -1
}

// checkAgainst compares the scraped metrics with the progress events of
// the run so far, and returns what differs.
func checkAgainst(fams map[string]*dto.MetricFamily, ps []*exec.Progress) []string {
	last := ps[len(ps)-1]
	q := map[string]string{"query": last.Name, "id": last.ID}
	var in, out, late, sinkCommits int64
	var cpu float64
	for _, p := range ps {
		if p.Cost != nil {
			cpu += p.Cost.CPUSeconds
		}
		in += p.NumInputRows
		out += p.Sink.NumOutputRows
		for _, op := range p.StateOperators {
			late += op.NumRowsDroppedByWatermark
		}
		if _, ok := p.DurationMs["sinkCommit"]; ok {
			sinkCommits++
		}
	}
	var bad []string
	want := []struct {
		name   string
		labels map[string]string
		v      float64
	}{
		{"millrace_query_batches_total", q, float64(len(ps))},
		{"millrace_query_input_rows_total", q, float64(in)},
		{"millrace_query_output_rows_total", q, float64(out)},
		{"millrace_query_late_rows_total", q, float64(late)},
		{"millrace_query_last_batch_id", q, float64(last.BatchID)},
		{"millrace_query_last_batch_input_rows", q, float64(last.NumInputRows)},
		{"millrace_query_input_rows_per_second", q, last.InputRowsPerSecond},
		{"millrace_query_processed_rows_per_second", q, last.ProcessedRowsPerSecond},
		{"millrace_query_batch_duration_seconds", q, float64(len(ps))},
		{"millrace_sink_commit_seconds", q, float64(sinkCommits)},
		{"millrace_query_batch_phase_seconds", map[string]string{"query": last.Name, "id": last.ID, "phase": "addBatch"}, float64(last.DurationMs["addBatch"]) / 1e3},
		{"millrace_source_input_rows_total", map[string]string{"query": last.Name, "id": last.ID, "source_id": "0"}, float64(in)},
	}
	for i, op := range last.StateOperators {
		ol := map[string]string{"query": last.Name, "id": last.ID, "operator": op.OperatorName, "operator_id": strconv.Itoa(i)}
		want = append(want,
			struct {
				name   string
				labels map[string]string
				v      float64
			}{"millrace_operator_state_rows", ol, float64(op.NumRowsTotal)},
			struct {
				name   string
				labels map[string]string
				v      float64
			}{"millrace_operator_state_bytes", ol, float64(op.MemoryUsedBytes)})
	}
	if last.Cost != nil {
		want = append(want, struct {
			name   string
			labels map[string]string
			v      float64
		}{"millrace_query_cores_needed", q, last.Cost.CoresNeeded})
	}
	if got := num(value(fams, "millrace_query_cpu_seconds_total", q)); math.Abs(got-cpu) > 1e-9*max(1, cpu) {
		bad = append(bad, fmt.Sprintf("millrace_query_cpu_seconds_total = %v, the cost reports add up to %v", got, cpu))
	}
	if wm, err := time.Parse(time.RFC3339Nano, last.EventTime["watermark"]); err == nil {
		want = append(want, struct {
			name   string
			labels map[string]string
			v      float64
		}{"millrace_query_watermark_seconds", q, float64(wm.UnixMilli()) / 1e3})
	}
	for _, w := range want {
		if got := num(value(fams, w.name, w.labels)); got != w.v {
			bad = append(bad, fmt.Sprintf("%s%v = %v, progress says %v", w.name, w.labels, got, w.v))
		}
	}
	return bad
}

// midRun scrapes /metrics from inside the query's progress callback of
// batch at (the ui Server, an earlier listener, has seen the event; the
// query waits for the scrape), so that the scrape sees exactly the
// events so far.
type midRun struct {
	srv *ui.Server
	at  int64

	mu      sync.Mutex
	ps      []*exec.Progress
	scraped bool
	bad     []string
	err     error
}

func (m *midRun) OnQueryStarted(id, runID, name string)       {}
func (m *midRun) OnQueryTerminated(id, runID string, _ error) {}
func (m *midRun) OnQueryProgress(p *exec.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ps = append(m.ps, p)
	if p.BatchID != m.at {
		return
	}
	fams, err := scrape(m.srv)
	if err != nil {
		m.err = err
		return
	}
	m.scraped = true
	m.bad = checkAgainst(fams, m.ps)
	if a := num(value(fams, "millrace_query_active", map[string]string{"id": p.ID})); a != 1 {
		m.bad = append(m.bad, fmt.Sprintf("millrace_query_active = %v during the run", a))
	}
}

func TestMetricsScrapedDuringRun(t *testing.T) {
	srv, err := ui.Start(ui.Options{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	sink, _ := blackhole.New()
	mid := &midRun{srv: srv, at: 4}
	ctx := context.Background()
	q, err := clickCounts(t, 80_000, 10_000, 0).WriteStream(sink).
		QueryName("scrape").
		Trigger(millrace.AvailableNow()).
		StatePartitions(2).
		Monitor(srv).
		Listener(mid).
		Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	mid.mu.Lock()
	defer mid.mu.Unlock()
	if mid.err != nil || !mid.scraped {
		t.Fatalf("no scrape at batch %d (batches %d): %v", mid.at, len(mid.ps), mid.err)
	}
	for _, b := range mid.bad {
		t.Errorf("during the run: %s", b)
	}
	// after the run: the totals of every event, and the query no longer active
	fams, err := scrape(srv)
	if err != nil {
		t.Fatal(err)
	}
	ps := q.RecentProgress()
	if len(ps) != len(mid.ps) {
		t.Fatalf("RecentProgress has %d events, the listener saw %d", len(ps), len(mid.ps))
	}
	for _, b := range checkAgainst(fams, ps) {
		t.Errorf("after the run: %s", b)
	}
	if a := num(value(fams, "millrace_query_active", map[string]string{"id": q.ID()})); a != 0 {
		t.Errorf("millrace_query_active = %v after the run, want 0", a)
	}
	sum := q.Summary()
	if sum.NumRowsDroppedByWatermark == 0 || sum.NumInputRows != 80_000 {
		t.Errorf("the run should read 80000 rows and drop some late: %+v", sum)
	}
}
