package exec_test

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// sessionSpec is groupBy(session_window(t, gap), k) with the aggregates of
// aggExprs, in Append mode (the only one Millrace runs sessions in).
type sessionSpec struct {
	gap, delay int64 // µs
}

func (s sessionSpec) String() string {
	return fmt.Sprintf("session%ds/delay%dms", s.gap/sec, s.delay/1000)
}

func (s sessionSpec) build(ins []plan.Node) (plan.Node, error) {
	n, err := plan.NewWatermark(ins[0], "t", time.Duration(s.delay)*time.Microsecond)
	if err != nil {
		return nil, err
	}
	keys := []plan.Expr{plan.Session{Time: plan.ColumnRef{Name: "t"}, Gap: time.Duration(s.gap) * time.Microsecond}, plan.ColumnRef{Name: "k"}}
	return plan.NewAggregate(n, keys, aggExprs())
}

// oracle: rows with a null event time belong to no session; a row is late
// when its own session [t, t+gap) ended at or before the watermark its batch
// ran with. Each trigger the open rows of a key, sorted by time, form
// sessions (a row at most gap after the session's last row extends it, so
// touching sessions merge, as in Spark); a session whose end (last row +
// gap) the trigger's final watermark reaches is written and its rows
// forgotten.
func (s sessionSpec) oracle(trigs [][][][]any) [][][]any {
	out, _ := s.oracleState(trigs)
	return out
}

// late: a row whose own session [t, t+gap) ended at or before the
// watermark.
func (s sessionSpec) late(trigs [][][][]any) ([][][]any, []int64) {
	return lateRows(trigs, wmSeq(trigs, 1, []int64{s.delay}), func(r []any, w int64) bool {
		t, ok := r[1].(int64)
		return ok && t+s.gap <= w
	})
}

// oracleState is oracle with the rows of open sessions buffered after each
// trigger.
func (s sessionSpec) oracleState(trigs [][][][]any) ([][][]any, []int64) {
	w := wmSeq(trigs, 1, []int64{s.delay})
	type row struct {
		t int64
		v any
	}
	open := map[string][]row{}
	keys := map[string]any{}
	out := make([][][]any, len(trigs))
	state := make([]int64, len(trigs))
	for i, tr := range trigs {
		for _, r := range tr[0] {
			t, ok := r[1].(int64)
			if !ok || t+s.gap <= w[i] {
				continue
			}
			ks := keyOf(r[0])
			keys[ks] = r[0]
			open[ks] = append(open[ks], row{t, r[2]})
		}
		for ks, rows := range open {
			sort.SliceStable(rows, func(a, b int) bool { return rows[a].t < rows[b].t })
			var keep []row
			for lo := 0; lo < len(rows); {
				end := rows[lo].t + s.gap
				hi := lo + 1
				for hi < len(rows) && rows[hi].t <= end {
					end = max(end, rows[hi].t+s.gap)
					hi++
				}
				if end <= w[i+1] {
					var a acc
					for _, r := range rows[lo:hi] {
						a.add(r.v)
					}
					out[i] = append(out[i], append([]any{[]any{rows[lo].t, end}, keys[ks]}, a.values()...))
				} else {
					keep = append(keep, rows[lo:hi]...)
				}
				lo = hi
			}
			open[ks] = keep
			state[i] += int64(len(keep))
		}
	}
	return out, state
}

var sessionSpecs = []sessionSpec{
	{gap: 3 * sec, delay: 0},
	{gap: 5 * sec, delay: 2 * sec},
	{gap: 2 * sec, delay: 5 * sec},
}

func runSessionSpecs(t *testing.T, rp replay) {
	for _, s := range sessionSpecs {
		rp.run(t, s.String(), 200, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			rows := genRows(rng, genOpts{n: 40 + rng.IntN(80), keys: 3, nullKey: 0.1, nullTime: 0.05, nullVal: 0.15, spanSec: 90, stringK: seed%2 == 0})
			trigs := oneInput(split(rng, rows, 1+rng.IntN(7)))
			// own sessions ending at the watermark and 1µs after it
			atWatermarks(rng, trigs, 0, wmSeq(trigs, 1, []int64{s.delay}), []int64{s.gap, s.gap - 1})
			return &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: sinks.Append,
				triggers: trigs, streams: 1 + rng.IntN(2), late: s.late}, s.oracleState
		})
	}
}

// TestSessionWindows: session windows against the naive oracle.
func TestSessionWindows(t *testing.T) {
	rp := everySize()
	rp.seeds = 3
	runSessionSpecs(t, rp)
}

// TestSessionWindowsRestarts: the same, restarted from the checkpoint
// between triggers (the buffered rows of open sessions read back).
func TestSessionWindowsRestarts(t *testing.T) { runSessionSpecs(t, withRestarts()) }
