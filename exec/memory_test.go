package exec_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// The memory figure of progress events: state bytes per operator and the
// trigger's batch buffers, non-zero and within a factor of what the rows
// take as plain values.

// memoryRun runs build over rows (k, t, v) of one trigger (every row of
// input 0, and of input 1 for a join) and returns the progress events.
func memoryRun(t *testing.T, inputs []input, build func([]plan.Node) (plan.Node, error), mode sinks.OutputMode, rows [][]any) []*exec.Progress {
	t.Helper()
	trig := make([][][]any, len(inputs))
	for i := range trig {
		trig[i] = rows
	}
	r := &opRun{inputs: inputs, build: build, mode: mode, triggers: [][][][]any{trig},
		batchSize: 4096, rng: rand.New(rand.NewPCG(3, 4)), statePartitions: 3}
	got := r.run(t)
	var ps []*exec.Progress
	for _, o := range got {
		ps = append(ps, o.progress...)
	}
	if len(ps) == 0 {
		t.Fatal("no progress event")
	}
	return ps
}

func distinctRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), t0 + int64(i), int64(i * 7)}
	}
	return rows
}

// within fails unless lo <= got <= hi.
func within(t *testing.T, what string, got, lo, hi int64) {
	t.Helper()
	t.Logf("%s: %d bytes (%.1f× the lower bound)", what, got, float64(got)/float64(lo))
	if got < lo || got > hi {
		t.Fatalf("%s: %d bytes, want between %d and %d", what, got, lo, hi)
	}
}

func TestMemoryFigureAggregation(t *testing.T) {
	const groups = 20_000
	build := func(ins []plan.Node) (plan.Node, error) {
		return plan.NewAggregate(ins[0], []plan.Expr{plan.ColumnRef{Name: "k"}}, []plan.Expr{
			plan.Alias{E: plan.Agg{Func: plan.AggCountAll}, Name: "n"},
			plan.Alias{E: plan.Agg{Func: plan.AggSum, Arg: plan.ColumnRef{Name: "v"}}, Name: "s"},
		})
	}
	ps := memoryRun(t, []input{{key: arrow.PrimitiveTypes.Int64}}, build, sinks.Update, distinctRows(groups))
	p := ps[0]
	if len(p.StateOperators) != 1 {
		t.Fatalf("%d state operators", len(p.StateOperators))
	}
	// per group: an int64 key, a count and a sum
	plain := int64(groups * 24)
	within(t, "aggregation state", p.StateOperators[0].MemoryUsedBytes, plain, 10*plain)
	// the routed rows: the key and the sum's argument, 16 bytes a row, and
	// the selection vectors
	within(t, "batch buffers", p.BatchBufferBytes, groups*16, groups*16*12)
}

func TestMemoryFigureJoin(t *testing.T) {
	const rows = 20_000
	build := func(ins []plan.Node) (plan.Node, error) {
		return plan.NewJoin(ins[0], ins[1], plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "lk"}, R: plan.ColumnRef{Name: "rk"}}, plan.InnerJoin)
	}
	key := arrow.PrimitiveTypes.Int64
	ps := memoryRun(t, []input{{prefix: "l", key: key}, {prefix: "r", key: key}}, build, sinks.Append, distinctRows(rows))
	p := ps[0]
	if len(p.StateOperators) != 1 {
		t.Fatalf("%d state operators", len(p.StateOperators))
	}
	op := p.StateOperators[0]
	if op.NumRowsTotal != 2*rows {
		t.Fatalf("%d rows buffered, want %d", op.NumRowsTotal, 2*rows)
	}
	// per buffered row: k, t, v and the constant time column (8 bytes
	// each), plus the index (time, key id, chain, sequence number...)
	plain := int64(2 * rows * 32)
	within(t, "join buffers", op.MemoryUsedBytes, plain, 8*plain)
	within(t, "batch buffers", p.BatchBufferBytes, 2*rows*24, 2*rows*24*12)
}
