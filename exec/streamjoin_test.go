package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// joinSpec is a stream-stream join of left (lk, lt, lv) and right (rk, rt,
// rv), both watermarked: lk = rk AND rt BETWEEN lt + lower AND lt + upper.
type joinSpec struct {
	how          plan.JoinType
	lower, upper int64 // µs
	ldelay       int64 // µs
	rdelay       int64
}

func (s joinSpec) String() string {
	return fmt.Sprintf("%s/range[%gs,%gs]/delays%gs,%gs", s.how, float64(s.lower)/1e6, float64(s.upper)/1e6,
		float64(s.ldelay)/1e6, float64(s.rdelay)/1e6)
}

// durLit is a duration literal as the API writes one: int64 µs.
func durLit(us int64) plan.Expr { return plan.Literal{Value: us} }

// plusDur is col + d as a join condition writes it (col − |d| for d < 0).
func plusDur(col string, d int64) plan.Expr {
	if d < 0 {
		return plan.Binary{Op: plan.OpSub, L: plan.ColumnRef{Name: col}, R: durLit(-d)}
	}
	return plan.Binary{Op: plan.OpAdd, L: plan.ColumnRef{Name: col}, R: durLit(d)}
}

func (s joinSpec) build(ins []plan.Node) (plan.Node, error) {
	l, err := plan.NewWatermark(ins[0], "lt", time.Duration(s.ldelay)*time.Microsecond)
	if err != nil {
		return nil, err
	}
	r, err := plan.NewWatermark(ins[1], "rt", time.Duration(s.rdelay)*time.Microsecond)
	if err != nil {
		return nil, err
	}
	rt := plan.ColumnRef{Name: "rt"}
	cond := plan.Binary{Op: plan.OpAnd,
		L: plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "lk"}, R: plan.ColumnRef{Name: "rk"}},
		R: plan.Binary{Op: plan.OpAnd,
			L: plan.Binary{Op: plan.OpGe, L: rt, R: plusDur("lt", s.lower)},
			R: plan.Binary{Op: plan.OpLe, L: rt, R: plusDur("lt", s.upper)}}}
	return plan.NewJoin(l, r, cond, s.how)
}

// emits says whether the join writes the unmatched rows of side 0 (left)
// or 1 (right).
func (s joinSpec) emits(side int) bool {
	switch s.how {
	case plan.LeftOuterJoin:
		return side == 0
	case plan.RightOuterJoin:
		return side == 1
	case plan.FullOuterJoin:
		return true
	}
	return false
}

// inferredFilter drops the rows with a null key on a side whose unmatched
// rows are never written, as Spark's inferred IS NOT NULL filter does below
// the watermark.
func (s joinSpec) inferredFilter(trigs [][][][]any) [][][][]any {
	filtered := make([][][][]any, len(trigs))
	for i, tr := range trigs {
		filtered[i] = make([][][]any, 2)
		for side, rows := range tr {
			for _, r := range rows {
				if r[0] != nil || s.emits(side) {
					filtered[i][side] = append(filtered[i][side], r)
				}
			}
		}
	}
	return filtered
}

// watermarks is the query's watermark sequence (wmSeq) of a join's input.
func (s joinSpec) watermarks(trigs [][][][]any) []int64 {
	return wmSeq(s.inferredFilter(trigs), 1, []int64{s.ldelay, s.rdelay})
}

// oracle evaluates the join over all rows, trigger by trigger, with Spark's
// rules. Rows with a null key on a side whose unmatched rows are never
// written are filtered before the watermark (Spark's inferred IS NOT NULL
// filter, pushed below it). A row is late when its time is at or below the
// watermark its batch ran with. A side's rows leave the state at the end of
// the first trigger whose final watermark w puts their time at or below the
// side's state watermark: trunc_ms(w − upper) − 1 ms for the left,
// trunc_ms(w + lower) − 1 ms for the right. Two rows whose keys are equal
// (not null) and times in range join in the trigger the later of them
// arrives, if the earlier one is still in the state then (it left at the end
// of an earlier trigger otherwise). A left semi join writes a left row at
// its first match; an outer join writes a row that never matched, with
// nulls for the other side, in the trigger it leaves. A row with a null
// time never matches and leaves at the end of the first trigger, from the
// one it arrived in, that ends with a watermark (Spark keeps it for ever;
// docs/ARCHITECTURE.md, departures).
func (s joinSpec) oracle(trigs [][][][]any) [][][]any {
	out, _ := s.oracleState(trigs)
	return out
}

// late: a row whose time is at or before the watermark, on either side
// (after the inferred filter); the late-data sink gets the left side's.
func (s joinSpec) late(trigs [][][][]any) ([][][]any, []int64) {
	f := s.inferredFilter(trigs)
	w := wmSeq(f, 1, []int64{s.ldelay, s.rdelay})
	isLate := func(r []any, w int64) bool { t, ok := r[1].(int64); return ok && t <= w }
	rows, counts := lateRows(f, w, isLate)
	for i, tr := range f {
		for _, r := range tr[1] {
			if isLate(r, w[i]) {
				counts[i]++
			}
		}
	}
	return rows, counts
}

// oracleState is oracle with the rows of both sides buffered after each
// trigger.
func (s joinSpec) oracleState(trigs [][][][]any) ([][][]any, []int64) {
	filtered := s.inferredFilter(trigs)
	w := wmSeq(filtered, 1, []int64{s.ldelay, s.rdelay})
	stateWM := func(side int, wm int64) int64 {
		if side == 0 {
			return ((wm-s.upper)/1000 - 1) * 1000
		}
		return ((wm+s.lower)/1000 - 1) * 1000
	}
	type srow struct {
		r       []any
		side    int
		arrived int
		t       int64
		hasT    bool
		matched bool
		gone    bool
	}
	var all []*srow
	byKey := map[string][]*srow{}
	out := make([][][]any, len(trigs))
	state := make([]int64, len(trigs))
	nulls := []any{nil, nil, nil}
	for i, tr := range filtered {
		var fresh []*srow
		for side, rows := range tr {
			for _, r := range rows {
				t, ok := r[1].(int64)
				if ok && t <= w[i] {
					continue // late
				}
				x := &srow{r: r, side: side, arrived: i, t: t, hasT: ok}
				fresh = append(fresh, x)
				all = append(all, x)
				if r[0] != nil && ok {
					byKey[keyOf(r[0])] = append(byKey[keyOf(r[0])], x)
				}
			}
		}
		// pairs with a row of this trigger: the other row arrived earlier
		// and is still buffered, or arrived now too (rows of a key are
		// indexed only to keep the large cases quick)
		for _, x := range fresh {
			if x.r[0] == nil || !x.hasT {
				continue
			}
			for _, y := range byKey[keyOf(x.r[0])] {
				if y.side == x.side || y.gone || (y.arrived == i && x.side == 1) {
					continue // y of the same side, gone, or a pair counted from its left row
				}
				l, r := x, y
				if x.side == 1 {
					l, r = y, x
				}
				if l.r[0] == nil || !l.hasT || !r.hasT || keyOf(l.r[0]) != keyOf(r.r[0]) ||
					r.t-l.t < s.lower || r.t-l.t > s.upper {
					continue
				}
				if s.how == plan.LeftSemiJoin {
					if !l.matched {
						out[i] = append(out[i], l.r)
					}
				} else {
					out[i] = append(out[i], append(append([]any(nil), l.r...), r.r...))
				}
				l.matched, r.matched = true, true
			}
		}
		for _, x := range all {
			// a row with a null time can never match: it leaves at the
			// first eviction, once there is a watermark (Millrace's
			// departure)
			if x.gone || w[i+1] == 0 || (x.hasT && x.t > stateWM(x.side, w[i+1])) {
				continue
			}
			x.gone = true
			if !x.matched && s.emits(x.side) {
				if x.side == 0 {
					out[i] = append(out[i], append(append([]any(nil), x.r...), nulls...))
				} else {
					out[i] = append(out[i], append(append([]any(nil), nulls...), x.r...))
				}
			}
		}
		for _, x := range all {
			if !x.gone {
				state[i]++
			}
		}
	}
	return out, state
}

var joinSpecs = []joinSpec{
	{how: plan.InnerJoin, lower: 0, upper: 5 * sec, ldelay: 0, rdelay: 0},
	{how: plan.InnerJoin, lower: -3 * sec, upper: 3 * sec, ldelay: 2 * sec, rdelay: 5 * sec},
	{how: plan.LeftOuterJoin, lower: 0, upper: 5 * sec, ldelay: 0, rdelay: 2 * sec},
	{how: plan.LeftOuterJoin, lower: -10 * sec, upper: -2 * sec, ldelay: 5 * sec, rdelay: 0},
	{how: plan.RightOuterJoin, lower: -3 * sec, upper: 3 * sec, ldelay: 2 * sec, rdelay: 0},
	{how: plan.RightOuterJoin, lower: 2 * sec, upper: 10 * sec, ldelay: 0, rdelay: 5 * sec},
	{how: plan.FullOuterJoin, lower: 0, upper: 3 * sec, ldelay: 0, rdelay: 0},
	{how: plan.FullOuterJoin, lower: -5 * sec, upper: 5 * sec, ldelay: 2 * sec, rdelay: 10 * sec},
	{how: plan.LeftSemiJoin, lower: 0, upper: 5 * sec, ldelay: 0, rdelay: 0},
	{how: plan.LeftSemiJoin, lower: -3 * sec, upper: 3 * sec, ldelay: 5 * sec, rdelay: 2 * sec},
}

// genJoinInputs draws the rows of both sides over the same span and cuts
// them into the same number of triggers (a trigger may have rows on one
// side only).
func genJoinInputs(rng *rand.Rand, stringK bool, nullTime float64) [][][][]any {
	o := genOpts{n: 30 + rng.IntN(50), keys: 4, nullKey: 0.1, nullTime: nullTime, nullVal: 0.15, spanSec: 60, stringK: stringK}
	left := genRows(rng, o)
	o.n = 30 + rng.IntN(50)
	right := genRows(rng, o)
	n := 1 + rng.IntN(7)
	ls, rs := split(rng, left, n), split(rng, right, n)
	trigs := make([][][][]any, n)
	for i := range trigs {
		trigs[i] = [][][]any{ls[i], rs[i]}
	}
	return trigs
}

func runJoinSpecs(t *testing.T, specs []joinSpec, nullTime float64, rp replay) {
	for _, s := range specs {
		rp.run(t, s.String(), 300, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			key := keyType(seed)
			trigs := genJoinInputs(rng, seed%2 == 0, nullTime)
			// rows at the watermark and 1µs above it on both sides
			w := s.watermarks(trigs)
			atWatermarks(rng, trigs, 0, w, []int64{0, -1})
			atWatermarks(rng, trigs, 1, w, []int64{0, -1})
			return &opRun{inputs: []input{{prefix: "l", key: key}, {prefix: "r", key: key}}, build: s.build,
				mode: sinks.Append, triggers: trigs, streams: 1 + rng.IntN(2), late: s.late}, s.oracleState
		})
	}
}

// TestStreamJoins: every stream-stream join type against the naive oracle.
func TestStreamJoins(t *testing.T) { runJoinSpecs(t, joinSpecs, 0, everySize()) }

// TestStreamJoinsNullTimes: rows with a null event time never match; an
// outer join writes them unmatched (a departure from Spark, which keeps them
// for ever; docs/ARCHITECTURE.md).
func TestStreamJoinsNullTimes(t *testing.T) { runJoinSpecs(t, joinSpecs, 0.1, everySize()) }

// TestStreamJoinsRestarts: every join type restarted from the checkpoint
// between triggers (both buffers and their matched flags read back).
func TestStreamJoinsRestarts(t *testing.T) { runJoinSpecs(t, joinSpecs, 0.05, withRestarts()) }
