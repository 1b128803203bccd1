package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// staticSpec is a stream-static join: the stream (k, t, v), watermarked or
// not, joined with a static table (sk, sv) on k = sk.
type staticSpec struct {
	how   plan.JoinType
	delay int64 // µs, -1: no watermark
}

func (s staticSpec) String() string {
	return fmt.Sprintf("%s/delay%dms", s.how, s.delay/1000)
}

func (s staticSpec) build(ins []plan.Node) (plan.Node, error) {
	n := ins[0]
	if s.delay >= 0 {
		var err error
		if n, err = plan.NewWatermark(n, "t", time.Duration(s.delay)*time.Microsecond); err != nil {
			return nil, err
		}
	}
	cond := plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "k"}, R: plan.ColumnRef{Name: "sk"}}
	return plan.NewJoin(n, ins[1], cond, s.how)
}

// oracle: each trigger's rows joined with the table, nothing buffered and
// nothing late; null keys match nothing (a left outer join writes such a
// row with nulls, an anti join writes it alone, an inner or semi join
// drops it).
func (s staticSpec) oracle(trigs [][][][]any, static [][]any) [][][]any {
	out := make([][][]any, len(trigs))
	for i, tr := range trigs {
		for _, r := range tr[0] {
			matched := false
			for _, st := range static {
				if r[0] == nil || st[0] == nil || keyOf(r[0]) != keyOf(st[0]) {
					continue
				}
				matched = true
				if s.how != plan.LeftSemiJoin && s.how != plan.LeftAntiJoin {
					out[i] = append(out[i], append(append([]any(nil), r...), st...))
				}
			}
			switch {
			case matched && s.how == plan.LeftSemiJoin:
				out[i] = append(out[i], r)
			case !matched && s.how == plan.LeftOuterJoin:
				out[i] = append(out[i], append(append([]any(nil), r...), nil, nil))
			case !matched && s.how == plan.LeftAntiJoin:
				out[i] = append(out[i], r)
			}
		}
	}
	return out
}

var staticSpecs = []staticSpec{
	{how: plan.InnerJoin, delay: -1},
	{how: plan.InnerJoin, delay: 2 * sec},
	{how: plan.LeftOuterJoin, delay: -1},
	{how: plan.LeftOuterJoin, delay: 0},
	{how: plan.LeftSemiJoin, delay: -1},
	{how: plan.LeftSemiJoin, delay: 5 * sec},
	{how: plan.LeftAntiJoin, delay: -1},
	{how: plan.LeftAntiJoin, delay: 3 * sec},
}

// TestStaticJoins: stream-static inner, left outer, left semi and left
// anti joins
// against the naive oracle, over a table with duplicate and null keys.
func TestStaticJoins(t *testing.T) {
	for _, s := range staticSpecs {
		everySize().run(t, s.String(), 400, func(rng *rand.Rand, seed uint64) (*opRun, oracleFn) {
			stringK := seed%2 == 0
			rows := genRows(rng, genOpts{n: 40 + rng.IntN(60), keys: 6, nullKey: 0.1, nullTime: 0.05, nullVal: 0.15, spanSec: 60, stringK: stringK})
			// table keys 1..4 (some twice) and a null key: stream keys 0
			// and 5 match nothing
			var static [][]any
			for k := 1; k <= 4; k++ {
				for c := 0; c < 1+rng.IntN(2); c++ {
					var key any = int64(k)
					if stringK {
						key = fmt.Sprint("k", k)
					}
					static = append(static, []any{key, int64(100*k + c)})
				}
			}
			static = append(static, []any{nil, int64(-1)})
			r := &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: sinks.Append,
				triggers: oneInput(split(rng, rows, 1+rng.IntN(7))), static: static, staticKey: keyType(seed)}
			return r, rowsOnly(func(trigs [][][][]any) [][][]any { return s.oracle(trigs, static) })
		})
	}
}
