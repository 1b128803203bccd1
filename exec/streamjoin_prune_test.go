package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// joinBackSpec is Nexmark q7's shape over the harness's rows (k, t, v):
// the rows carrying their tumbling window w, joined with the per-window
// max (or min) of v on (w = mw, v = mv), inner, Append mode, watermark on
// t. The join prunes left rows dominated by their window's running
// extreme (exec/streamjoin_prune.go); the oracle knows nothing of that.
type joinBackSpec struct {
	size, delay int64
	min         bool
}

func (s joinBackSpec) String() string {
	f := "max"
	if s.min {
		f = "min"
	}
	return fmt.Sprintf("%s/size%d/delay%d", f, s.size/sec, s.delay/sec)
}

func (s joinBackSpec) build(ins []plan.Node) (plan.Node, error) {
	x, err := plan.NewWatermark(ins[0], "t", time.Duration(s.delay)*time.Microsecond)
	if err != nil {
		return nil, err
	}
	w := plan.Window{Time: plan.ColumnRef{Name: "t"}, Size: time.Duration(s.size) * time.Microsecond, Slide: time.Duration(s.size) * time.Microsecond}
	left, err := plan.NewProject(x, []plan.Expr{plan.ColumnRef{Name: "k"}, plan.ColumnRef{Name: "t"}, plan.ColumnRef{Name: "v"}, plan.Alias{E: w, Name: "w"}})
	if err != nil {
		return nil, err
	}
	f := plan.AggMax
	if s.min {
		f = plan.AggMin
	}
	right, err := plan.NewAggregate(x, []plan.Expr{plan.Alias{E: w, Name: "mw"}}, []plan.Expr{
		plan.Alias{E: plan.Agg{Func: plan.AggCountAll}, Name: "n"},
		plan.Alias{E: plan.Agg{Func: f, Arg: plan.ColumnRef{Name: "v"}}, Name: "mv"},
	})
	if err != nil {
		return nil, err
	}
	cond := plan.Binary{Op: plan.OpAnd,
		L: plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "w"}, R: plan.ColumnRef{Name: "mw"}},
		R: plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "v"}, R: plan.ColumnRef{Name: "mv"}}}
	j, err := plan.NewJoin(left, right, cond, plan.InnerJoin)
	if err != nil {
		return nil, err
	}
	if _, ok := plan.FindExtremeJoinBack(j); !ok {
		return nil, fmt.Errorf("the test's plan is not recognised as a join back of an extreme")
	}
	return plan.NewProject(j, []plan.Expr{plan.ColumnRef{Name: "k"}, plan.ColumnRef{Name: "t"}, plan.ColumnRef{Name: "v"}, plan.ColumnRef{Name: "n"}})
}

// oracle: the watermark moves with the rows that have a value; a row of
// trigger i is late when its window ends at or below the
// watermark w[i] its data batch runs with (the aggregate's and the join's
// rule alike); a window is written when the watermark reaches its end, in
// the trigger whose no-data batch moves it there; its output is every
// non-late row of the window whose v is the extreme of the non-late
// non-null v, with the window's count of non-late rows.
func (s joinBackSpec) oracle(trigs [][][][]any) [][][]any {
	// the join's inferred filter (v is not null) runs before its copy of
	// the watermark, and the query's watermark is the smaller of the two
	// copies': the latest time of a row with a value, less the delay
	valued := make([][][][]any, len(trigs))
	for i, tr := range trigs {
		valued[i] = [][][]any{nil}
		for _, r := range tr[0] {
			if r[2] != nil {
				valued[i][0] = append(valued[i][0], r)
			}
		}
	}
	w := wmSeq(valued, 1, []int64{s.delay})
	type win struct {
		rows   [][]any
		n      int64
		best   int64
		has    bool
		closed bool
	}
	wins := map[int64]*win{}
	res := make([][][]any, len(trigs))
	for i, tr := range trigs {
		for _, r := range tr[0] {
			t, ok := r[1].(int64)
			if !ok {
				continue
			}
			end := floorDiv(t, s.size)*s.size + s.size
			if w[i] > 0 && end <= w[i] {
				continue // late
			}
			g := wins[end]
			if g == nil {
				g = &win{}
				wins[end] = g
			}
			g.n++
			g.rows = append(g.rows, r)
			if v, ok := r[2].(int64); ok && (!g.has || (!s.min && v > g.best) || (s.min && v < g.best)) {
				g.best, g.has = v, true
			}
		}
		for end, g := range wins {
			if g.closed || w[i+1] == 0 || end > w[i+1] {
				continue
			}
			g.closed = true
			for _, r := range g.rows {
				if v, ok := r[2].(int64); ok && g.has && v == g.best {
					res[i] = append(res[i], []any{r[0], r[1], r[2], g.n})
				}
			}
		}
	}
	return res
}

// TestJoinBackExtreme replays q7's shape over random rows (ties: v takes
// 41 values; null keys, times and values; late rows; out-of-order rows),
// random trigger splits, batch sizes, state partitions and several input
// tasks, against the naive oracle; and checks that pruning ran.
func TestJoinBackExtreme(t *testing.T) {
	pruned := int64(0)
	for _, s := range []joinBackSpec{{size: 5 * sec, delay: 2 * sec}, {size: 10 * sec, delay: 0, min: true}} {
		everySize().run(t, "join_back/"+s.String(), 700, s.mk(&pruned))
	}
	if pruned == 0 {
		t.Fatal("no row was pruned by dominance: the pattern was not applied")
	}
}

// TestJoinBackExtremeRestarts is TestJoinBackExtreme with the query
// stopped and restarted from its checkpoint before about half the
// triggers: the running extremes are not checkpointed, the buffers are.
func TestJoinBackExtremeRestarts(t *testing.T) {
	pruned := int64(0)
	for _, s := range []joinBackSpec{{size: 5 * sec, delay: 2 * sec}, {size: 10 * sec, delay: 1 * sec, min: true}} {
		withRestarts().run(t, "join_back/"+s.String(), 800, s.mk(&pruned))
	}
}

func (s joinBackSpec) mk(pruned *int64) func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
	return func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
		rows := genRows(rng, genOpts{n: 100 + rng.IntN(200), keys: 5, nullKey: 0.05, nullTime: 0.05, nullVal: 0.1, spanSec: 60, stringK: seed%2 == 0})
		r := &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: sinks.Append,
			triggers: oneInput(split(rng, rows, 1+rng.IntN(9))), streams: 1 + rng.IntN(2)}
		return r, func(trigs [][][][]any) ([][][]any, []int64) {
			*pruned += r.metrics["numRowsPrunedByDominance"]
			return s.oracle(trigs), nil
		}
	}
}

func TestJoinBackExtremeUnpruned(t *testing.T) {
	defer exec.SetDominancePruning(exec.SetDominancePruning(false))
	pruned := int64(0)
	for _, s := range []joinBackSpec{{size: 5 * sec, delay: 2 * sec}, {size: 10 * sec, delay: 0, min: true}} {
		everySize().run(t, "join_back/"+s.String(), 700, s.mk(&pruned))
	}
}

// TestJoinBackExtremeAcrossVersions restarts the query from its checkpoint
// with pruning switched on and off at each restart: a checkpoint written
// without pruning (before it existed) resumes with it, and one written
// with it resumes without it. The buffers' layout and the fingerprint are
// the same; only the rows held differ, and those pruned never match.
func TestJoinBackExtremeAcrossVersions(t *testing.T) {
	defer exec.SetDominancePruning(exec.SetDominancePruning(false))
	pruned := int64(0)
	for _, s := range []joinBackSpec{{size: 5 * sec, delay: 2 * sec}, {size: 10 * sec, delay: 1 * sec, min: true}} {
		mk := s.mk(&pruned)
		withRestarts().run(t, "join_back_versions/"+s.String(), 900, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			exec.SetDominancePruning(false) // each run starts on the "old" engine
			r, o := mk(rng, seed)
			r.onRestart = func() { exec.SetDominancePruning(!exec.SetDominancePruning(false)) }
			return r, o
		})
	}
	if pruned == 0 {
		t.Fatal("no row was pruned after a restart")
	}
}

// TestJoinBackExtremeRetain drops the dominated buffered rows after every
// update (join.Buffer.Retain), with and without restarts, and over rows
// whose values rise, so that every batch raises its window's maximum.
func TestJoinBackExtremeRetain(t *testing.T) {
	defer exec.SetMinRetainRows(exec.SetMinRetainRows(1))
	pruned := int64(0)
	for _, s := range []joinBackSpec{{size: 5 * sec, delay: 2 * sec}, {size: 10 * sec, delay: 1 * sec, min: true}} {
		everySize().run(t, "join_back_retain/"+s.String(), 1000, s.mk(&pruned))
		withRestarts().run(t, "join_back_retain/"+s.String(), 1100, s.mk(&pruned))
		rising := func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			r, o := s.mk(&pruned)(rng, seed)
			for _, tr := range r.triggers {
				for _, row := range tr[0] {
					if v, ok := row[2].(int64); ok {
						if t, ok := row[1].(int64); ok {
							v = t / 100_000 // rises with time; ties within 0.1 s
							if s.min {
								v = -v
							}
						}
						row[2] = v
					}
				}
			}
			return r, o
		}
		everySize().run(t, "join_back_retain_rising/"+s.String(), 1200, rising)
	}
	if pruned == 0 {
		t.Fatal("no row was pruned")
	}
}
