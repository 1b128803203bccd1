package ui

import (
	"strconv"
	"time"

	"github.com/millrace/millrace/exec"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the Prometheus metrics a Server exports at /metrics, fed by
// the progress events. Names are stable (millrace_ prefix, base units:
// seconds and bytes); every series has the labels query (the query's
// name, "" when unnamed) and id (its id, stable across restarts from a
// checkpoint), operator series also operator (the state operator's name)
// and operator_id (its index in the progress event's stateOperators),
// source series source and source_id. Counters count over every run the
// Server has seen; gauges are the latest batch's.
type metrics struct {
	reg *prometheus.Registry

	batches, inputRows, outputRows, lateRows, deadLetters, errors *prometheus.CounterVec
	active, lastBatch, lastInput, inRate, procRate                *prometheus.GaugeVec
	watermark, lag, phase                                         *prometheus.GaugeVec
	batchDuration, sinkCommit                                     *prometheus.HistogramVec

	srcRows                         *prometheus.CounterVec
	srcInRate, srcProcRate          *prometheus.GaugeVec
	opRows, opBytes                 *prometheus.GaugeVec
	opUpdated, opRemoved, opDropped *prometheus.CounterVec

	// the cost report (Progress.Cost), when the engine measures it
	cpu, phaseCPU                         *prometheus.CounterVec
	cpuPerMRows, cores, costHour, keepsUp *prometheus.GaugeVec
}

var (
	queryLabels  = []string{"query", "id"}
	phaseLabels  = []string{"query", "id", "phase"}
	opLabels     = []string{"query", "id", "operator", "operator_id"}
	sourceLabels = []string{"query", "id", "source", "source_id"}
	// 1 ms … 65 s: a batch of a small query to a slow trigger's
	durationBuckets = prometheus.ExponentialBuckets(0.001, 2, 17)
)

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		m.reg.MustRegister(v)
		return v
	}
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
		m.reg.MustRegister(v)
		return v
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: durationBuckets}, queryLabels)
		m.reg.MustRegister(v)
		return v
	}
	m.batches = counter("millrace_query_batches_total", "Batches the query ran (progress events), no-data batches included.", queryLabels)
	m.inputRows = counter("millrace_query_input_rows_total", "Rows the query read and processed (numInputRows summed over batches).", queryLabels)
	m.outputRows = counter("millrace_query_output_rows_total", "Rows the query wrote to its sink.", queryLabels)
	m.lateRows = counter("millrace_query_late_rows_total", "Rows dropped as late by the watermark, over every stateful operator.", queryLabels)
	m.deadLetters = counter("millrace_query_dead_letter_rows_total", "Malformed records sent to the dead-letter sink.", queryLabels)
	m.errors = counter("millrace_query_errors_total", "Query runs that ended with an error.", queryLabels)
	m.active = gauge("millrace_query_active", "1 while the query runs, 0 once it ended.", queryLabels)
	m.lastBatch = gauge("millrace_query_last_batch_id", "Id of the latest batch reported.", queryLabels)
	m.lastInput = gauge("millrace_query_last_batch_input_rows", "Input rows of the latest batch.", queryLabels)
	m.inRate = gauge("millrace_query_input_rows_per_second", "Input rate of the latest batch (rows over the time since the previous trigger).", queryLabels)
	m.procRate = gauge("millrace_query_processed_rows_per_second", "Processing rate of the latest batch (rows over its duration).", queryLabels)
	m.watermark = gauge("millrace_query_watermark_seconds", "Event-time watermark after the latest batch, Unix seconds.", queryLabels)
	m.lag = gauge("millrace_query_event_time_lag_seconds", "Latest batch's processing time minus its watermark: how far event time trails.", queryLabels)
	m.phase = gauge("millrace_query_batch_phase_seconds", "Latest batch's duration by phase (its durationMs: getBatch, walCommit, addBatch, sinkCommit, commitOffsets, triggerExecution …).", phaseLabels)
	m.batchDuration = histogram("millrace_query_batch_duration_seconds", "Batch durations (triggerExecution).")
	m.sinkCommit = histogram("millrace_sink_commit_seconds", "Sink commit latency per batch.")
	m.srcRows = counter("millrace_source_input_rows_total", "Rows read from each source.", sourceLabels)
	m.srcInRate = gauge("millrace_source_input_rows_per_second", "Input rate of each source in the latest batch.", sourceLabels)
	m.srcProcRate = gauge("millrace_source_processed_rows_per_second", "Processing rate of each source in the latest batch.", sourceLabels)
	m.opRows = gauge("millrace_operator_state_rows", "Rows in the operator's state after the latest batch.", opLabels)
	m.opBytes = gauge("millrace_operator_state_bytes", "Memory the operator's state used after the latest batch.", opLabels)
	m.opUpdated = counter("millrace_operator_state_rows_updated_total", "State rows the operator updated.", opLabels)
	m.opRemoved = counter("millrace_operator_state_rows_removed_total", "State rows the operator removed (evicted).", opLabels)
	m.opDropped = counter("millrace_operator_late_rows_total", "Rows the operator dropped as late by the watermark.", opLabels)
	m.cpu = counter("millrace_query_cpu_seconds_total", "Process CPU time of the query's batches (the cost report's cpuSeconds).", queryLabels)
	m.phaseCPU = counter("millrace_query_phase_cpu_seconds_total", "Process CPU time by phase: scan, each stateful operator, sink, checkpoint, driver (cost.operators).", phaseLabels)
	m.cpuPerMRows = gauge("millrace_query_cpu_seconds_per_million_rows", "CPU seconds per million input rows over the recent batches.", queryLabels)
	m.cores = gauge("millrace_query_cores_needed", "Cores the sizing input rate needs with the headroom, from the recent CPU per row.", queryLabels)
	m.costHour = gauge("millrace_query_cost_per_hour", "Cost per hour of the cores needed at the core-hour price (0 without a price).", queryLabels)
	m.keepsUp = gauge("millrace_query_keeps_up", "1 while the query keeps up with its input, 0 when it falls behind.", queryLabels)
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) started(id, name string) {
	m.active.WithLabelValues(name, id).Set(1)
	// the counters exist from the start, at 0, so rate() sees the first batch
	for _, c := range []*prometheus.CounterVec{m.batches, m.inputRows, m.outputRows, m.lateRows, m.deadLetters, m.errors} {
		c.WithLabelValues(name, id)
	}
}

func (m *metrics) progress(p *exec.Progress) {
	l := []string{p.Name, p.ID}
	m.active.WithLabelValues(l...).Set(1)
	m.batches.WithLabelValues(l...).Inc()
	m.inputRows.WithLabelValues(l...).Add(float64(p.NumInputRows))
	m.outputRows.WithLabelValues(l...).Add(float64(p.Sink.NumOutputRows))
	m.deadLetters.WithLabelValues(l...).Add(float64(p.NumDeadLetterRows))
	m.lastBatch.WithLabelValues(l...).Set(float64(p.BatchID))
	m.lastInput.WithLabelValues(l...).Set(float64(p.NumInputRows))
	m.inRate.WithLabelValues(l...).Set(p.InputRowsPerSecond)
	m.procRate.WithLabelValues(l...).Set(p.ProcessedRowsPerSecond)
	m.batchDuration.WithLabelValues(l...).Observe(float64(p.BatchDuration) / 1e3)
	if ms, ok := p.DurationMs["sinkCommit"]; ok {
		m.sinkCommit.WithLabelValues(l...).Observe(float64(ms) / 1e3)
	}
	for phase, ms := range p.DurationMs {
		m.phase.WithLabelValues(p.Name, p.ID, phase).Set(float64(ms) / 1e3)
	}
	if wm, ok := eventTime(p, "watermark"); ok {
		m.watermark.WithLabelValues(l...).Set(float64(wm.UnixMilli()) / 1e3)
		if at, err := time.Parse(time.RFC3339Nano, p.Timestamp); err == nil {
			m.lag.WithLabelValues(l...).Set(at.Sub(wm).Seconds())
		}
	}
	var late int64
	for i, op := range p.StateOperators {
		ol := []string{p.Name, p.ID, op.OperatorName, strconv.Itoa(i)}
		m.opRows.WithLabelValues(ol...).Set(float64(op.NumRowsTotal))
		m.opBytes.WithLabelValues(ol...).Set(float64(op.MemoryUsedBytes))
		m.opUpdated.WithLabelValues(ol...).Add(float64(op.NumRowsUpdated))
		m.opRemoved.WithLabelValues(ol...).Add(float64(op.NumRowsRemoved))
		m.opDropped.WithLabelValues(ol...).Add(float64(op.NumRowsDroppedByWatermark))
		late += op.NumRowsDroppedByWatermark
	}
	m.lateRows.WithLabelValues(l...).Add(float64(late))
	if c := p.Cost; c != nil {
		m.cpu.WithLabelValues(l...).Add(c.CPUSeconds)
		for _, o := range c.Operators {
			m.phaseCPU.WithLabelValues(p.Name, p.ID, o.Name).Add(o.CPUSeconds)
		}
		m.cpuPerMRows.WithLabelValues(l...).Set(c.RecentCPUSecondsPerMillionRows)
		m.cores.WithLabelValues(l...).Set(c.CoresNeeded)
		m.costHour.WithLabelValues(l...).Set(c.CostPerHour)
		keeps := 0.0
		if c.KeepsUp {
			keeps = 1
		}
		m.keepsUp.WithLabelValues(l...).Set(keeps)
	}
	for i, s := range p.Sources {
		sl := []string{p.Name, p.ID, s.Description, strconv.Itoa(i)}
		m.srcRows.WithLabelValues(sl...).Add(float64(s.NumInputRows))
		m.srcInRate.WithLabelValues(sl...).Set(s.InputRowsPerSecond)
		m.srcProcRate.WithLabelValues(sl...).Set(s.ProcessedRowsPerSecond)
	}
}

func (m *metrics) terminated(id, name string, failed bool) {
	m.active.WithLabelValues(name, id).Set(0)
	if failed {
		m.errors.WithLabelValues(name, id).Inc()
	}
}

// eventTime parses one of the progress event's eventTime entries.
func eventTime(p *exec.Progress, key string) (time.Time, bool) {
	s, ok := p.EventTime[key]
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}
