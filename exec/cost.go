package exec

import (
	"fmt"
	"time"
)

// Cost is a batch's cost and right-sizing report (Progress.Cost): the CPU
// time the batch took, in all and per operator, and what the query's CPU
// per input row over its recent batches says about the cores it needs and
// what they cost.
//
// CPU time is the process's (getrusage), measured at the boundaries of the
// batch's phases, which the driver runs one after the other: reading and
// the stateless operators (with the shuffle into the first stateful
// operator), each stateful operator (its update and emit phases and the
// operators after it), the sink commit, the checkpoint commit, and the
// driver's own work (offsets, planning, progress). Everything the process
// does meanwhile counts, the garbage collector included: with several
// queries running at once in one process each one's figures include the
// others'.
type Cost struct {
	// CPUSeconds is the process CPU time of the batch;
	// CPUSecondsPerMillionRows the same per million input rows (0 for a
	// batch without input).
	CPUSeconds               float64 `json:"cpuSeconds"`
	CPUSecondsPerMillionRows float64 `json:"cpuSecondsPerMillionRows"`
	// Operators splits CPUSeconds by phase: "scan" (reading and the
	// stateless operators), each stateful operator by name, in
	// stateOperators order, "sink", "checkpoint" and "driver".
	Operators []OperatorCost `json:"operators"`
	// TotalCPUSeconds and TotalInputRows add up the batches of this run.
	TotalCPUSeconds float64 `json:"totalCpuSeconds"`
	TotalInputRows  int64   `json:"totalInputRows"`
	// RecentCPUSecondsPerMillionRows, RecentInputRowsPerSecond and
	// RecentProcessedRowsPerSecond are taken over the last (up to 10)
	// batches with input: the rows over the time between their triggers,
	// and over their durations.
	RecentCPUSecondsPerMillionRows float64 `json:"recentCpuSecondsPerMillionRows"`
	RecentInputRowsPerSecond       float64 `json:"recentInputRowsPerSecond"`
	RecentProcessedRowsPerSecond   float64 `json:"recentProcessedRowsPerSecond"`
	// BacklogTrend is "growing" when a source's backlog grew over each of
	// the last batches (Config.BacklogWarnBatches), "shrinking" or
	// "steady" otherwise; empty when no source reports a backlog.
	BacklogTrend string `json:"backlogTrend,omitempty"`
	// KeepsUp says whether the query keeps up with its input, and
	// KeepsUpReason why.
	KeepsUp       bool   `json:"keepsUp"`
	KeepsUpReason string `json:"keepsUpReason"`
	// SizingInputRowsPerSecond is the input rate the cores are sized for:
	// Config.CostInputRate, or the recent input rate. CoresNeeded is
	// recent CPU seconds per row × that rate × (1 + Headroom).
	SizingInputRowsPerSecond float64 `json:"sizingInputRowsPerSecond"`
	Headroom                 float64 `json:"headroom"`
	CoresNeeded              float64 `json:"coresNeeded"`
	// CoreHourPrice is Config.CoreHourPrice; CostPerHour is CoresNeeded ×
	// it, CostPerMillionRows what a million input rows cost on those
	// cores (headroom included: provisioned cores are paid for idle or
	// not). Zero without a price.
	CoreHourPrice      float64 `json:"coreHourPrice,omitempty"`
	CostPerHour        float64 `json:"costPerHour,omitempty"`
	CostPerMillionRows float64 `json:"costPerMillionRows,omitempty"`
}

// OperatorCost is one phase's share of a batch's CPU time.
type OperatorCost struct {
	Name                     string  `json:"name"`
	CPUSeconds               float64 `json:"cpuSeconds"`
	CPUSecondsPerMillionRows float64 `json:"cpuSecondsPerMillionRows"`
	// MemoryUsedBytes is a stateful operator's state memory
	// (stateOperators[].memoryUsedBytes).
	MemoryUsedBytes int64 `json:"memoryUsedBytes,omitempty"`
}

// DefaultCostHeadroom is the spare capacity cores are sized with when
// Config.CostHeadroom is 0: 25 % above what the input needs on average.
const DefaultCostHeadroom = 0.25

// costWindow is how many recent batches with input the rates and the CPU
// per row are taken over.
const costWindow = 10

// cpuMeter splits a batch's process CPU time into the phases the driver
// runs one after the other: begin starts a phase, end names it; the time
// outside phases is the driver's.
type cpuMeter struct {
	start, at time.Duration
	ops       []OperatorCost
}

func newCPUMeter() *cpuMeter {
	now := processCPU()
	return &cpuMeter{start: now, at: now}
}

func (m *cpuMeter) begin() { m.at = processCPU() }

func (m *cpuMeter) end(name string) {
	now := processCPU()
	m.ops = append(m.ops, OperatorCost{Name: name, CPUSeconds: (now - m.at).Seconds()})
	m.at = now
}

// finish returns the batch's CPU seconds and the phases, the driver's
// remainder last.
func (m *cpuMeter) finish() (float64, []OperatorCost) {
	total := (processCPU() - m.start).Seconds()
	rest := total
	for _, o := range m.ops {
		rest -= o.CPUSeconds
	}
	return total, append(m.ops, OperatorCost{Name: "driver", CPUSeconds: max(rest, 0)})
}

// costSample is one batch with input, for the recent rates.
type costSample struct {
	rows            int64
	since, dur, cpu float64 // seconds
}

// costTracker keeps what the cost reports need across batches; the
// driver goroutine owns it.
type costTracker struct {
	recent    []costSample
	totalCPU  float64
	totalRows int64
	// backlogs holds, per source, its recent backlogs (nil entries for
	// sources without one); grew counts the batches in a row it grew.
	backlogs [][]int64
	grew     []int
}

// observeBacklog records source i's backlog after a batch and returns how
// many batches in a row it has grown.
func (ct *costTracker) observeBacklog(i, n int, backlog int64, keep int) int {
	if ct.backlogs == nil {
		ct.backlogs = make([][]int64, n)
		ct.grew = make([]int, n)
	}
	h := ct.backlogs[i]
	if len(h) > 0 && backlog > h[len(h)-1] {
		ct.grew[i]++
	} else {
		ct.grew[i] = 0
	}
	h = append(h, backlog)
	if len(h) > keep+1 {
		h = h[len(h)-keep-1:]
	}
	ct.backlogs[i] = h
	return ct.grew[i]
}

// trend sums up the sources' backlogs: growing when one grew over each of
// the last keep batches.
func (ct *costTracker) trend(keep int) string {
	out := ""
	for i, h := range ct.backlogs {
		if len(h) == 0 {
			continue
		}
		switch {
		case ct.grew[i] >= keep:
			return "growing"
		case h[len(h)-1] < h[0]:
			out = "shrinking"
		case out == "":
			out = "steady"
		}
	}
	return out
}

// cost builds the cost report of a batch of rows input rows that took
// dur, since after the trigger before it, and cpu process CPU seconds
// split as ops.
func (ct *costTracker) cost(cfg *Config, rows int64, dur, since time.Duration, cpu float64, ops []OperatorCost, state []StateOperator) *Cost {
	ct.totalCPU += cpu
	ct.totalRows += rows
	if rows > 0 {
		ct.recent = append(ct.recent, costSample{rows: rows, since: since.Seconds(), dur: dur.Seconds(), cpu: cpu})
		if len(ct.recent) > costWindow {
			ct.recent = ct.recent[len(ct.recent)-costWindow:]
		}
	}
	c := &Cost{CPUSeconds: cpu, CPUSecondsPerMillionRows: perMillion(cpu, rows), Operators: ops,
		TotalCPUSeconds: ct.totalCPU, TotalInputRows: ct.totalRows}
	stage := 0
	for i := range c.Operators {
		o := &c.Operators[i]
		o.CPUSecondsPerMillionRows = perMillion(o.CPUSeconds, rows)
		switch o.Name {
		case "scan", "sink", "checkpoint", "driver":
		default:
			if stage < len(state) {
				o.MemoryUsedBytes = state[stage].MemoryUsedBytes
			}
			stage++
		}
	}
	var r costSample
	for _, s := range ct.recent {
		r.rows += s.rows
		r.since += s.since
		r.dur += s.dur
		r.cpu += s.cpu
	}
	c.RecentCPUSecondsPerMillionRows = perMillion(r.cpu, r.rows)
	if r.since > 0 {
		c.RecentInputRowsPerSecond = float64(r.rows) / r.since
	}
	if r.dur > 0 {
		c.RecentProcessedRowsPerSecond = float64(r.rows) / r.dur
	}
	keep := cfg.BacklogWarnBatches
	c.BacklogTrend = ct.trend(keep)
	var avg time.Duration
	if len(ct.recent) > 0 {
		avg = time.Duration(r.dur / float64(len(ct.recent)) * float64(time.Second))
	}
	c.KeepsUp, c.KeepsUpReason = keepsUp(cfg, c.BacklogTrend, avg, keep)
	c.Headroom = cfg.CostHeadroom
	c.SizingInputRowsPerSecond = c.RecentInputRowsPerSecond
	if cfg.CostInputRate > 0 {
		c.SizingInputRowsPerSecond = cfg.CostInputRate
	}
	c.CoresNeeded = c.RecentCPUSecondsPerMillionRows / 1e6 * c.SizingInputRowsPerSecond * (1 + c.Headroom)
	if cfg.CoreHourPrice > 0 {
		c.CoreHourPrice = cfg.CoreHourPrice
		c.CostPerHour = c.CoresNeeded * cfg.CoreHourPrice
		c.CostPerMillionRows = c.RecentCPUSecondsPerMillionRows * (1 + c.Headroom) / 3600 * cfg.CoreHourPrice
	}
	return c
}

// keepsUp judges whether the query keeps up with its input: a source's
// backlog growing batch after batch says no, and so do recent batches
// (avg, their mean duration) longer than the trigger interval.
func keepsUp(cfg *Config, trend string, avg time.Duration, keep int) (bool, string) {
	iv := cfg.Trigger.Interval
	interval := cfg.Trigger.Kind == TriggerProcessingTime && iv > 0
	switch {
	case trend == "growing":
		return false, fmt.Sprintf("a source's backlog grew over each of the last %d batches: input arrives faster than the query reads it", keep)
	case interval && avg > iv:
		return false, fmt.Sprintf("recent batches take %s on average, longer than the trigger interval %s", avg.Round(time.Millisecond), iv)
	case trend == "shrinking":
		return true, "the backlog is shrinking"
	case interval:
		return true, fmt.Sprintf("batches finish within the trigger interval %s and no backlog grows", iv)
	}
	return true, "no source's backlog grows"
}

func perMillion(cpu float64, rows int64) float64 {
	if rows <= 0 {
		return 0
	}
	return cpu / float64(rows) * 1e6
}

// CostTotals adds up the cost reports of a run's batches
// (Query.CostTotals, or SummarizeCost over a progress log); RunCost sums
// them up. Summary stays comparable with ==; these totals hold slices.
type CostTotals struct {
	// CPUSeconds is the process CPU time of the batches; InputRows their
	// input rows.
	CPUSeconds float64
	InputRows  int64
	// Operators adds up each phase's CPU time over the batches
	// (memoryUsedBytes: the last batch's).
	Operators []OperatorCost
	// Last is the cost report of the last batch (nil before one ran).
	Last *Cost
}

func (t *CostTotals) add(p *Progress) {
	if p.Cost == nil {
		return
	}
	t.CPUSeconds += p.Cost.CPUSeconds
	t.InputRows += p.NumInputRows
	t.Last = p.Cost
	if len(t.Operators) != len(p.Cost.Operators) {
		// every batch of a query runs the same phases; start over if not
		t.Operators = make([]OperatorCost, len(p.Cost.Operators))
		for i, o := range p.Cost.Operators {
			t.Operators[i].Name = o.Name
		}
	}
	for i, o := range p.Cost.Operators {
		t.Operators[i].CPUSeconds += o.CPUSeconds
		t.Operators[i].MemoryUsedBytes = o.MemoryUsedBytes
	}
}

func (t CostTotals) clone() CostTotals {
	t.Operators = append([]OperatorCost(nil), t.Operators...)
	return t
}

// CostTotals returns the cost totals of every batch this run of the query
// has reported.
func (q *Query) CostTotals() CostTotals {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.costTotals.clone()
}

// SummarizeCost adds up the cost reports of progress events, as
// Query.CostTotals does: a progress log read back gives a running query's
// cost.
func SummarizeCost(ps []*Progress) CostTotals {
	var t CostTotals
	for _, p := range ps {
		t.add(p)
	}
	return t
}

// RunCost is the cost report of a whole run (CostTotals.RunCost): what the
// query's CPU time per input row over the run says about the cores it
// needs at an input rate, and what they cost.
type RunCost struct {
	CPUSeconds               float64 `json:"cpuSeconds"`
	InputRows                int64   `json:"inputRows"`
	CPUSecondsPerMillionRows float64 `json:"cpuSecondsPerMillionRows"`
	// Operators gives each phase's CPU time over the run, per million
	// input rows too, and stateful operators' state memory at the end.
	Operators []OperatorCost `json:"operators"`
	// KeepsUp and KeepsUpReason are the last batch's judgement.
	KeepsUp       bool   `json:"keepsUp"`
	KeepsUpReason string `json:"keepsUpReason,omitempty"`
	// InputRowsPerSecond is the rate the cores are sized for.
	InputRowsPerSecond float64 `json:"inputRowsPerSecond"`
	Headroom           float64 `json:"headroom"`
	CoresNeeded        float64 `json:"coresNeeded"`
	CoreHourPrice      float64 `json:"coreHourPrice,omitempty"`
	CostPerHour        float64 `json:"costPerHour,omitempty"`
	CostPerMillionRows float64 `json:"costPerMillionRows,omitempty"`
}

// RunCost sizes the run's query for rowsPerSecond of input with headroom
// spare capacity (0.25: 25 %), priced at coreHourPrice per core-hour (0:
// no prices): cores = CPU seconds per row × rate × (1 + headroom).
func (t CostTotals) RunCost(rowsPerSecond, headroom, coreHourPrice float64) RunCost {
	r := RunCost{CPUSeconds: t.CPUSeconds, InputRows: t.InputRows, CPUSecondsPerMillionRows: perMillion(t.CPUSeconds, t.InputRows),
		InputRowsPerSecond: rowsPerSecond, Headroom: max(headroom, 0)}
	for _, o := range t.Operators {
		o.CPUSecondsPerMillionRows = perMillion(o.CPUSeconds, t.InputRows)
		r.Operators = append(r.Operators, o)
	}
	if t.Last != nil {
		r.KeepsUp, r.KeepsUpReason = t.Last.KeepsUp, t.Last.KeepsUpReason
	}
	r.CoresNeeded = r.CPUSecondsPerMillionRows / 1e6 * rowsPerSecond * (1 + r.Headroom)
	if coreHourPrice > 0 {
		r.CoreHourPrice = coreHourPrice
		r.CostPerHour = r.CoresNeeded * coreHourPrice
		r.CostPerMillionRows = r.CPUSecondsPerMillionRows * (1 + r.Headroom) / 3600 * coreHourPrice
	}
	return r
}

// Summarize totals progress events as Query.Summary does: a progress log
// (Config.ProgressLog) read back gives a running query's summary and,
// through RunCost, its cost report.
func Summarize(ps []*Progress) Summary {
	s := Summary{FirstBatchID: -1, LastBatchID: -1}
	for _, p := range ps {
		s.add(p)
	}
	return s
}
