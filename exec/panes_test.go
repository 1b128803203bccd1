package exec_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sinks"
)

// Sliding windows by panes (exec/aggregate_panes.go) against the per-row
// path: the same trigger sequences run both ways must write the same rows
// in the same order with the same progress (state rows, updates, removals,
// late rows), both must match the naive oracle, and a checkpoint written by
// either path must restart with the other.

// paneSpecs are sliding windows whose size is a multiple of the slide
// (ratios 2 to 6) and tumbling windows (ratio 1: a pre-aggregation), in
// every output mode, with and without a watermark, windows starting at the
// epoch or at an offset (startTime).
var paneSpecs = []aggSpec{
	{size: 4 * sec, slide: 2 * sec, delay: 0, mode: sinks.Append},
	{size: 6 * sec, slide: 2 * sec, delay: 1 * sec, mode: sinks.Update},
	{size: 10 * sec, slide: 2 * sec, delay: 3 * sec, mode: sinks.Complete},
	{size: 9 * sec, slide: 3 * sec, delay: 2 * sec, mode: sinks.Append},
	{size: 8 * sec, slide: 2 * sec, delay: 0, mode: sinks.Update},
	{size: 12 * sec, slide: 2 * sec, delay: 5 * sec, mode: sinks.Append},
	{size: 6 * sec, slide: 1 * sec, delay: -1, mode: sinks.Update},
	{size: 10 * sec, slide: 5 * sec, delay: 4 * sec, mode: sinks.Complete},
	{size: 6 * sec, slide: 2 * sec, offset: 700_000, delay: 1 * sec, mode: sinks.Append},
	{size: 9 * sec, slide: 3 * sec, offset: 1_250_000, delay: 2 * sec, mode: sinks.Update},
	{size: 4 * sec, slide: 4 * sec, delay: 1 * sec, mode: sinks.Append},
	{size: 5 * sec, slide: 5 * sec, delay: -1, mode: sinks.Update},
	{size: 3 * sec, slide: 3 * sec, delay: 0, mode: sinks.Complete},
	{size: 4 * sec, slide: 4 * sec, offset: 500_000, delay: 2 * sec, mode: sinks.Update},
}

// paneRun draws a run of spec s from seed and size: rows with nulls in
// keys, times and values, disorder and rows right at the watermarks,
// split at random into triggers, read from one or two sources.
func paneRun(s aggSpec, seed uint64, size int) *opRun {
	rng := rand.New(rand.NewPCG(seed, uint64(size)))
	rows := genRows(rng, genOpts{n: 40 + rng.IntN(120), keys: 1 + rng.IntN(5), nullKey: 0.1, nullTime: 0.05, nullVal: 0.15, spanSec: 60, stringK: seed%2 == 0})
	trigs := oneInput(split(rng, rows, 1+rng.IntN(9)))
	if s.delay >= 0 {
		w := wmSeq(trigs, 1, []int64{s.delay})
		atWatermarks(rng, trigs, 0, w, []int64{s.size - s.slide + 1, s.size - s.slide, 0, 1, s.size, s.slide})
	}
	return &opRun{inputs: []input{{key: keyType(seed)}}, build: s.build, mode: s.mode, triggers: trigs,
		streams: 1 + rng.IntN(2), late: s.late, batchSize: size, noise: 0.3,
		statePartitions: 1 + rng.IntN(4), lateSink: rng.IntN(2) == 0}
}

// runPath runs r with the pane path on or off; the harness's own draws
// (noise rows, sources) come from the same seed either way.
func runPath(t *testing.T, r *opRun, panes bool, seed uint64) []trigOut {
	t.Helper()
	defer exec.SetSlidingByPanes(panes)()
	r.rng = rand.New(rand.NewPCG(seed, 99))
	return r.run(t)
}

// sameOutput checks that two runs wrote the same batches, rows in the same
// order, with the same state progress.
func sameOutput(t *testing.T, what string, a, b []trigOut) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d triggers vs %d", what, len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].batches, b[i].batches) {
			t.Fatalf("%s: trigger %d: per-row path wrote\n%v\npane path wrote\n%v", what, i, a[i].batches, b[i].batches)
		}
		// input tasks write late rows as they go: their order is the
		// scheduler's on either path
		if d := testutil.Diff(a[i].late, b[i].late); d != "" {
			t.Fatalf("%s: trigger %d: late rows: %s", what, i, d)
		}
		if len(a[i].progress) != len(b[i].progress) {
			t.Fatalf("%s: trigger %d: %d batches vs %d", what, i, len(a[i].progress), len(b[i].progress))
		}
		for j, pa := range a[i].progress {
			pb := b[i].progress[j]
			for k, oa := range pa.StateOperators {
				ob := pb.StateOperators[k]
				ga := [4]int64{oa.NumRowsTotal, oa.NumRowsUpdated, oa.NumRowsRemoved, oa.NumRowsDroppedByWatermark}
				gb := [4]int64{ob.NumRowsTotal, ob.NumRowsUpdated, ob.NumRowsRemoved, ob.NumRowsDroppedByWatermark}
				if ga != gb {
					t.Fatalf("%s: trigger %d batch %d: state rows/updated/removed/late %v (per row) vs %v (panes)", what, i, j, ga, gb)
				}
			}
		}
	}
}

// TestSlidingPanesMatchPerRowPath: random trigger splits of random rows,
// every ratio and output mode, the pane path against the per-row path and
// both against the naive oracle; in Complete mode the last result is also
// the naive aggregation of all input at once.
func TestSlidingPanesMatchPerRowPath(t *testing.T) {
	sizes := []int{1, 3, 7, 1024}
	seeds := uint64(4)
	if testing.Short() {
		seeds = 2
	}
	for _, s := range paneSpecs {
		for seed := uint64(1); seed <= seeds; seed++ {
			for _, size := range sizes {
				name := fmt.Sprintf("%s/seed%d/batch%d", s, seed, size)
				t.Run(name, func(t *testing.T) {
					rowPath := runPath(t, paneRun(s, seed, size), false, seed)
					r := paneRun(s, seed, size)
					panes := runPath(t, r, true, seed)
					what := name + "\n" + describe(r.triggers)
					sameOutput(t, what, rowPath, panes)
					if s.size == s.slide {
						// tumbling: both paths in one run, batch by batch
						restore := exec.SetAlternatePanes(true)
						mixed := runPath(t, paneRun(s, seed, size), true, seed)
						restore()
						sameOutput(t, what+" (paths alternating)", rowPath, mixed)
					}
					want, state := s.oracleState(r.triggers)
					compareOut(t, what, r.mode, panes, want)
					compareState(t, what, panes, state)
					compareLate(t, what, r, panes)
					if s.mode == sinks.Complete {
						var all [][]any
						for _, tr := range r.triggers {
							all = append(all, tr[0]...)
						}
						once := s.oracle(oneInput([][][]any{all}))
						compareOut(t, what+" (all input at once)", r.mode, panes[len(panes)-1:], once)
					}
				})
			}
		}
	}
}

// TestSlidingPanesRestartAcrossPaths: a query checkpointed mid-stream by
// one path restarts with the other (the state is per window either way,
// so a checkpoint written before panes existed restarts with them), and
// its output is the one of a query that stayed on the per-row path, in the
// same order.
func TestSlidingPanesRestartAcrossPaths(t *testing.T) {
	paths := []struct {
		name          string
		before, after bool
	}{{"perrow-then-panes", false, true}, {"panes-then-perrow", true, false}, {"panes-then-panes", true, true}}
	for _, s := range paneSpecs {
		for seed := uint64(1); seed <= 2; seed++ {
			for _, size := range []int{3, 1024} {
				name := fmt.Sprintf("%s/seed%d/batch%d", s, seed, size)
				t.Run(name, func(t *testing.T) {
					ref := restartRun(t, paneRun(s, seed, size), false, false, seed)
					for _, p := range paths {
						r := paneRun(s, seed, size)
						got := restartRun(t, r, p.before, p.after, seed)
						what := name + "/" + p.name + "\n" + describe(r.triggers)
						sameOutput(t, what, ref, got)
						want, state := s.oracleState(r.triggers)
						compareOut(t, what, r.mode, got, want)
						compareState(t, what, got, state)
						compareLate(t, what, r, got)
					}
				})
			}
		}
	}
}

// restartRun runs r with a checkpoint, the first half of its triggers on
// one path (panes or per row), then stops the query and restarts it from
// its checkpoint on the other.
func restartRun(t *testing.T, r *opRun, before, after bool, seed uint64) []trigOut {
	t.Helper()
	r.rng = rand.New(rand.NewPCG(seed, 99))
	restore := exec.SetSlidingByPanes(before)
	defer restore()
	x := r.start(t)
	x.ckptDir = checkpointDir(t)
	defer x.stop()
	half := max(len(r.triggers)/2, 1)
	var out []trigOut
	for i, rows := range r.triggers {
		if i == half && x.q != nil {
			if err := x.q.Stop(); err != nil {
				t.Fatalf("stop before trigger %d: %v", i, err)
			}
			x.q = nil
			x.restarts++
			x.open()
			exec.SetSlidingByPanes(after)
		}
		out = append(out, x.trigger(rows))
	}
	return out
}
