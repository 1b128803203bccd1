package exec_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// Chained stateful operators: the upstream one runs in Append mode and the
// downstream one takes its input watermark from it (Spark 3.4+'s watermark
// propagation): a deduplication passes the query's watermark on, a
// stream-stream join the smaller of its two state watermarks.

// dedupWindowSpec is dropDuplicates(k, t) then groupBy(window(t, size), k)
// with aggExprs, in Append mode.
type dedupWindowSpec struct {
	size, delay int64
}

func (s dedupWindowSpec) build(ins []plan.Node) (plan.Node, error) {
	d, err := dedupSpec{withTime: true, delay: s.delay}.build(ins)
	if err != nil {
		return nil, err
	}
	w := plan.Window{Time: plan.ColumnRef{Name: "t"}, Size: time.Duration(s.size) * time.Microsecond, Slide: time.Duration(s.size) * time.Microsecond}
	return plan.NewAggregate(d, []plan.Expr{w, plan.ColumnRef{Name: "k"}}, aggExprs())
}

// oracle: the deduplication's output of each trigger is the aggregation's
// input in that trigger, with the query's watermarks.
func (s dedupWindowSpec) oracle(trigs [][][][]any) [][][]any {
	w := wmSeq(trigs, 1, []int64{s.delay})
	dd := oneInput(dedupSpec{withTime: true, delay: s.delay, mode: sinks.Append}.oracle(trigs))
	out, _ := aggSpec{size: s.size, slide: s.size, delay: s.delay, mode: sinks.Append}.oracleW(dd, w)
	return out
}

// joinWindowSpec is an inner stream-stream join, then
// groupBy(window(lt, size), lk) with count(*) as n and sum(rv) as s.
type joinWindowSpec struct {
	join joinSpec
	size int64
}

func (s joinWindowSpec) build(ins []plan.Node) (plan.Node, error) {
	j, err := s.join.build(ins)
	if err != nil {
		return nil, err
	}
	w := plan.Window{Time: plan.ColumnRef{Name: "lt"}, Size: time.Duration(s.size) * time.Microsecond, Slide: time.Duration(s.size) * time.Microsecond}
	return plan.NewAggregate(j, []plan.Expr{w, plan.ColumnRef{Name: "lk"}}, []plan.Expr{
		plan.Alias{E: plan.Agg{Func: plan.AggCountAll}, Name: "n"},
		plan.Alias{E: plan.Agg{Func: plan.AggSum, Arg: plan.ColumnRef{Name: "rv"}}, Name: "s"},
	})
}

// oracle: the join's output of each trigger feeds the aggregation, whose
// watermark is the join's output watermark, the smaller of its state
// watermarks trunc_ms(w − upper) − 1 ms and trunc_ms(w + lower) − 1 ms,
// never below 0 (0 while the query has none). Joined rows are never late
// there (their left row was not); a window is written when that watermark
// reaches its end.
func (s joinWindowSpec) oracle(trigs [][][][]any) [][][]any {
	joined := s.join.oracle(trigs)
	w := s.join.watermarks(trigs)
	out := func(wm int64) int64 {
		if wm == 0 {
			return 0
		}
		return max(0, min(((wm-s.join.upper)/1000-1)*1000, ((wm+s.join.lower)/1000-1)*1000))
	}
	type group struct {
		key     []any
		end     int64
		a       acc
		emitted bool
	}
	groups := map[string]*group{}
	var order []string
	res := make([][][]any, len(trigs))
	for i, rows := range joined {
		for _, r := range rows { // lk, lt, lv, rk, rt, rv
			t := r[1].(int64)
			st := floorDiv(t, s.size) * s.size
			key := []any{[]any{st, st + s.size}, r[0]}
			ks := keyOf(key...)
			g := groups[ks]
			if g == nil {
				g = &group{key: key, end: st + s.size}
				groups[ks] = g
				order = append(order, ks)
			}
			g.a.add(r[5])
		}
		closeAt := out(w[i+1])
		for _, ks := range order {
			g := groups[ks]
			if !g.emitted && closeAt > 0 && g.end <= closeAt {
				v := g.a.values()
				res[i] = append(res[i], append(append([]any(nil), g.key...), v[0], v[2]))
				g.emitted = true
			}
		}
	}
	return res
}

// TestDedupThenWindow: dropDuplicates(k, t) feeding a window aggregation.
func TestDedupThenWindow(t *testing.T) {
	for _, s := range []dedupWindowSpec{{size: 5 * sec, delay: 0}, {size: 10 * sec, delay: 3 * sec}} {
		name := "dedup_window/" + aggSpec{size: s.size, slide: s.size, delay: s.delay}.String()
		everySize().run(t, name, 500, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			rows := genRows(rng, genOpts{n: 60 + rng.IntN(60), keys: 5, nullKey: 0.1, nullTime: 0.05, nullVal: 0.15, spanSec: 60, stringK: seed%2 == 0})
			for j := 0; j < len(rows)/4; j++ { // duplicates
				a := rng.IntN(len(rows))
				rows = append(rows, rows[a])
			}
			return &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: sinks.Append,
				triggers: oneInput(split(rng, rows, 1+rng.IntN(7)))}, rowsOnly(s.oracle)
		})
	}
}

// TestJoinThenWindow: an inner stream-stream join feeding a window
// aggregation that closes windows by the join's output watermark.
func TestJoinThenWindow(t *testing.T) {
	for _, s := range []joinWindowSpec{
		{join: joinSpec{how: plan.InnerJoin, lower: 0, upper: 5 * sec}, size: 10 * sec},
		{join: joinSpec{how: plan.InnerJoin, lower: -3 * sec, upper: 2 * sec, ldelay: 2 * sec, rdelay: 1 * sec}, size: 5 * sec},
	} {
		everySize().run(t, "join_window/"+s.join.String(), 600, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			key := keyType(seed)
			return &opRun{inputs: []input{{prefix: "l", key: key}, {prefix: "r", key: key}}, build: s.build,
				mode: sinks.Append, triggers: genJoinInputs(rng, seed%2 == 0, 0.05), streams: 1 + rng.IntN(2)}, rowsOnly(s.oracle)
		})
	}
}
