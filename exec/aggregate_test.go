package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// aggSpec is a hash aggregation: groupBy([window(t, size, slide)], k) with
// count(*), count(v), sum(v), min(v), max(v), avg(v).
type aggSpec struct {
	size, slide int64 // µs; 0: no window, group by k alone
	offset      int64 // the window's start time (µs), 0 for the epoch
	delay       int64 // watermark delay in µs, -1: no watermark
	mode        sinks.OutputMode
}

func (s aggSpec) String() string {
	w := "groupby"
	switch {
	case s.size > 0 && s.slide == s.size:
		w = fmt.Sprintf("window%ds", s.size/sec)
	case s.size > 0:
		w = fmt.Sprintf("sliding%ds/%ds", s.size/sec, s.slide/sec)
	}
	if s.offset != 0 {
		w += fmt.Sprintf("+%dms", s.offset/1000)
	}
	return fmt.Sprintf("%s/%s/delay%dms", w, modeName(s.mode), s.delay/1000)
}

func modeName(m sinks.OutputMode) string {
	return [...]string{"append", "update", "complete"}[m]
}

func aggExprs() []plan.Expr {
	v := plan.ColumnRef{Name: "v"}
	return []plan.Expr{
		plan.Alias{E: plan.Agg{Func: plan.AggCountAll}, Name: "n"},
		plan.Alias{E: plan.Agg{Func: plan.AggCount, Arg: v}, Name: "c"},
		plan.Alias{E: plan.Agg{Func: plan.AggSum, Arg: v}, Name: "s"},
		plan.Alias{E: plan.Agg{Func: plan.AggMin, Arg: v}, Name: "mn"},
		plan.Alias{E: plan.Agg{Func: plan.AggMax, Arg: v}, Name: "mx"},
		plan.Alias{E: plan.Agg{Func: plan.AggAvg, Arg: v}, Name: "a"},
	}
}

func (s aggSpec) build(ins []plan.Node) (plan.Node, error) {
	n := ins[0]
	if s.delay >= 0 {
		var err error
		if n, err = plan.NewWatermark(n, "t", time.Duration(s.delay)*time.Microsecond); err != nil {
			return nil, err
		}
	}
	keys := []plan.Expr{plan.ColumnRef{Name: "k"}}
	if s.size > 0 {
		w := plan.Window{Time: plan.ColumnRef{Name: "t"}, Size: time.Duration(s.size) * time.Microsecond, Slide: time.Duration(s.slide) * time.Microsecond,
			Offset: time.Duration(s.offset) * time.Microsecond}
		keys = append([]plan.Expr{w}, keys...)
	}
	return plan.NewAggregate(n, keys, aggExprs())
}

// windowsOf returns the starts of the windows holding t, latest first.
func (s aggSpec) windowsOf(t int64) []int64 {
	var starts []int64
	for st := floorDiv(t-s.offset, s.slide)*s.slide + s.offset; st+s.size > t; st -= s.slide {
		starts = append(starts, st)
	}
	return starts
}

// oracle evaluates the aggregation naively, trigger by trigger: a row is
// late when the watermark its batch ran with has closed every window that
// holds it (Append and Update, with an event-time key); a window is written
// once when the trigger's final watermark reaches its end (Append), every
// group a trigger's accepted rows touched is written with its values
// (Update), every group every trigger (Complete, where nothing is late).
// Rows with a null event time belong to no window.
func (s aggSpec) oracle(trigs [][][][]any) [][][]any {
	out, _ := s.oracleW(trigs, wmSeq(trigs, 1, []int64{s.delay}))
	return out
}

// late: with an event-time window and a watermark (not in Complete mode), a
// row whose last window ended at or before the watermark.
func (s aggSpec) late(trigs [][][][]any) ([][][]any, []int64) {
	if s.mode == sinks.Complete || s.size == 0 || s.delay < 0 {
		return lateRows(trigs, wmSeq(trigs, 1, []int64{s.delay}), func([]any, int64) bool { return false })
	}
	return lateRows(trigs, wmSeq(trigs, 1, []int64{s.delay}), func(r []any, w int64) bool {
		t, ok := r[1].(int64)
		return ok && floorDiv(t-s.offset, s.slide)*s.slide+s.offset+s.size <= w
	})
}

// oracleState is oracle with the groups in the state after each trigger:
// a window leaves it when the watermark reaches its end, except in
// Complete mode.
func (s aggSpec) oracleState(trigs [][][][]any) ([][][]any, []int64) {
	return s.oracleW(trigs, wmSeq(trigs, 1, []int64{s.delay}))
}

// oracleW is oracleState with the watermarks given (an aggregation fed by
// another stateful operator sees the query's, computed from its input).
func (s aggSpec) oracleW(trigs [][][][]any, w []int64) ([][][]any, []int64) {
	type group struct {
		key     []any
		end     int64
		a       acc
		emitted bool
		evicted bool
	}
	groups := map[string]*group{}
	var order []string
	dropLate := s.mode != sinks.Complete && s.size > 0 && s.delay >= 0
	out := make([][][]any, len(trigs))
	state := make([]int64, len(trigs))
	for i, tr := range trigs {
		touched := map[string]bool{}
		addTo := func(key []any, end int64, v any) {
			ks := keyOf(key...)
			g := groups[ks]
			if g == nil {
				g = &group{key: key, end: end}
				groups[ks] = g
				order = append(order, ks)
			}
			g.a.add(v)
			touched[ks] = true
		}
		for _, r := range tr[0] {
			if s.size == 0 {
				addTo([]any{r[0]}, 0, r[2])
				continue
			}
			t, ok := r[1].(int64)
			if !ok {
				continue
			}
			for _, st := range s.windowsOf(t) {
				if dropLate && st+s.size <= w[i] {
					continue
				}
				addTo([]any{[]any{st, st + s.size}, r[0]}, st+s.size, r[2])
			}
		}
		row := func(g *group) []any { return append(append([]any(nil), g.key...), g.a.values()...) }
		for _, ks := range order {
			g := groups[ks]
			switch s.mode {
			case sinks.Append:
				if !g.emitted && g.end <= w[i+1] {
					out[i] = append(out[i], row(g))
					g.emitted = true
				}
			case sinks.Update:
				if touched[ks] {
					out[i] = append(out[i], row(g))
				}
			case sinks.Complete:
				out[i] = append(out[i], row(g))
			}
			if dropLate && g.end <= w[i+1] {
				g.evicted = true
			}
			if !g.evicted {
				state[i]++
			}
		}
	}
	return out, state
}

// compareState checks the state rows the (last) stateful operator reports
// after each trigger that ran a batch (numRowsTotal of its last batch)
// against the oracle's; nil checks nothing.
func compareState(t *testing.T, what string, got []trigOut, want []int64) {
	t.Helper()
	if want == nil {
		return
	}
	for i := range want {
		ps := got[i].progress
		if len(ps) == 0 {
			continue
		}
		ops := ps[len(ps)-1].StateOperators
		if len(ops) == 0 {
			t.Fatalf("%s: trigger %d: no stateful operator in the progress", what, i)
		}
		if n := ops[len(ops)-1].NumRowsTotal; n != want[i] {
			t.Fatalf("%s: trigger %d: the state holds %d rows, want %d", what, i, n, want[i])
		}
	}
}

// compareOut checks each trigger's output: the rows of its batches, or in
// Complete mode the last batch written so far.
func compareOut(t *testing.T, what string, mode sinks.OutputMode, got []trigOut, want [][][]any) {
	t.Helper()
	var last [][]any
	for i := range want {
		g := got[i].rows()
		if mode == sinks.Complete {
			if n := len(got[i].batches); n > 0 {
				last = got[i].batches[n-1]
			}
			g = last
		}
		check(t, what, i, g, want[i])
	}
}

var aggSpecs = []aggSpec{
	{size: 5 * sec, slide: 5 * sec, delay: 0, mode: sinks.Append},
	{size: 10 * sec, slide: 10 * sec, delay: 2 * sec, mode: sinks.Append},
	{size: 5 * sec, slide: 5 * sec, delay: 3 * sec, mode: sinks.Update},
	{size: 10 * sec, slide: 10 * sec, delay: 2 * sec, mode: sinks.Complete},
	{size: 0, delay: -1, mode: sinks.Update},
	{size: 0, delay: 5 * sec, mode: sinks.Complete},
}

var slidingSpecs = []aggSpec{
	{size: 10 * sec, slide: 5 * sec, delay: 0, mode: sinks.Append},
	{size: 6 * sec, slide: 3 * sec, delay: 2 * sec, mode: sinks.Update},
	{size: 10 * sec, slide: 2 * sec, delay: 5 * sec, mode: sinks.Complete},
	{size: 7 * sec, slide: 3 * sec, delay: 1 * sec, mode: sinks.Append},
}

// runAggSpecs replays each spec, each run with its own rows (nulls in keys,
// times and values), trigger split and noise rows.
func runAggSpecs(t *testing.T, specs []aggSpec, rp replay) {
	for _, s := range specs {
		rp.run(t, s.String(), 0, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			rows := genRows(rng, genOpts{n: 60 + rng.IntN(60), keys: 4, nullKey: 0.1, nullTime: 0.05, nullVal: 0.15, spanSec: 60, stringK: seed%2 == 0})
			trigs := oneInput(split(rng, rows, 1+rng.IntN(7)))
			if s.size > 0 && s.delay >= 0 {
				// the last window of W − size + slide − 1µs ends at W
				// when W is on a slide boundary
				w := wmSeq(trigs, 1, []int64{s.delay})
				atWatermarks(rng, trigs, 0, w, []int64{s.size - s.slide + 1, s.size - s.slide, 0, 1, s.size})
			}
			return &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: s.mode,
				triggers: trigs, streams: 1 + rng.IntN(2), late: s.late}, s.oracleState
		})
	}
}

// TestHashAggregation: tumbling-window and plain hash aggregation in all
// three output modes against the naive oracle.
func TestHashAggregation(t *testing.T) { runAggSpecs(t, aggSpecs, everySize()) }

// TestSlidingWindows: sliding windows, including a slide that does not
// divide the size.
func TestSlidingWindows(t *testing.T) { runAggSpecs(t, slidingSpecs, everySize()) }

// TestAggregationRestarts: the same with the query restarted from its
// checkpoint between triggers (state snapshots and deltas read back).
func TestAggregationRestarts(t *testing.T) {
	runAggSpecs(t, append(append([]aggSpec(nil), aggSpecs...), slidingSpecs...), withRestarts())
}
