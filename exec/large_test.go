package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// TestLargeBatches replays a few operators over inputs of well over 64K
// rows, so that full 65536-row records (and their selection vectors) reach
// them, against the same oracles. Skipped with -short.
func TestLargeBatches(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs: skipped with -short")
	}
	const n = 150_000
	type largeCase struct {
		name   string
		inputs int
		mode   sinks.OutputMode
		build  func([]plan.Node) (plan.Node, error)
		oracle func([][][][]any) [][][]any
	}
	win := aggSpec{size: 10 * sec, slide: 10 * sec, delay: 2 * sec, mode: sinks.Update}
	dedup := dedupSpec{withTime: true, delay: 1 * sec, mode: sinks.Append}
	within := dedupSpec{within: true, delay: 3 * sec, mode: sinks.Append}
	sess := sessionSpec{gap: 2 * sec, delay: 1 * sec}
	join := joinSpec{how: plan.FullOuterJoin, lower: -2 * sec, upper: 2 * sec, ldelay: 1 * sec, rdelay: 3 * sec}
	cases := []largeCase{
		{"window/update", 1, win.mode, win.build, win.oracle},
		{"dedup_time", 1, dedup.mode, dedup.build, dedup.oracle},
		{"dedup_within", 1, within.mode, within.build, within.oracle},
		{"session", 1, sinks.Append, sess.build, sess.oracle},
		{"join/full_outer", 2, sinks.Append, join.build, join.oracle},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(ci), 65536))
			o := genOpts{n: n, keys: 2000, nullKey: 0.01, nullTime: 0.01, nullVal: 0.1, spanSec: 300}
			nt := 2 // over 64K rows (with noise) per trigger
			var trigs [][][][]any
			if c.inputs == 1 {
				trigs = oneInput(split(rng, genRows(rng, o), nt))
			} else {
				o.n = n / 2
				ls, rs := split(rng, genRows(rng, o), nt), split(rng, genRows(rng, o), nt)
				for i := range ls {
					trigs = append(trigs, [][][]any{ls[i], rs[i]})
				}
			}
			ins := []input{{key: arrow.PrimitiveTypes.Int64}}
			if c.inputs == 2 {
				ins = []input{{prefix: "l", key: arrow.PrimitiveTypes.Int64}, {prefix: "r", key: arrow.PrimitiveTypes.Int64}}
			}
			r := &opRun{inputs: ins, build: c.build, mode: c.mode, triggers: trigs,
				batchSize: 65536, noise: 0.2, rng: rng, statePartitions: 4}
			got := r.run(t)
			compareOut(t, fmt.Sprintf("%s (%d triggers)", c.name, nt), c.mode, got, c.oracle(trigs))
		})
	}
}
