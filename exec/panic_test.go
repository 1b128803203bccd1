package exec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/blackhole"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// A panic anywhere in a trigger ends the query with an error naming the
// batch and what panicked; the process goes on (issue 12, item 4).

// panicSink panics in the step of a batch named by at: "begin", "write"
// or "commit".
type panicSink struct {
	at string
	sinks.Sink
}

func (s panicSink) Name() string { return "panicSink" }

func (s panicSink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	if s.at == "begin" {
		panic("sink begin")
	}
	w, err := s.Sink.Begin(ctx, info)
	return panicWriter{at: s.at, BatchWriter: w}, err
}

type panicWriter struct {
	at string
	sinks.BatchWriter
}

func (w panicWriter) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.at == "write" {
		panic("sink write")
	}
	return w.BatchWriter.Write(ctx, rec)
}

func (w panicWriter) Commit(ctx context.Context) error {
	if w.at == "commit" {
		panic("sink commit")
	}
	return w.BatchWriter.Commit(ctx)
}

// panicOp is a stateful operator that panics in one of its phases.
type panicOp struct {
	stateful
	phase string
}

func (o panicOp) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	if o.phase == "prepare" {
		panic("operator prepare")
	}
	return o.stateful.prepare(t, b, out, late)
}

func (o panicOp) update(p int, inputs []*shuffled) error {
	if o.phase == "update" {
		panic("operator update")
	}
	return o.stateful.update(p, inputs)
}

func (o panicOp) emit(mem memory.Allocator, p int, watermarkUs int64) ([]arrow.RecordBatch, int64, int64, error) {
	if o.phase == "emit" {
		panic("operator emit")
	}
	return o.stateful.emit(mem, p, watermarkUs)
}

// panicChainOp is a stateless operator that panics.
type panicChainOp struct{}

func (panicChainOp) name() string { return "boom" }
func (panicChainOp) apply(*task, columnar.Batch) (columnar.Batch, error) {
	panic("operator apply")
}

// runPanicking runs one trigger of count(*) by k (Complete mode, so the
// aggregate's rows reach the sink in the batch) over two rows, with the
// sink and the query's first stage as tweak makes them, and returns the
// query's error.
func runPanicking(t *testing.T, sinkAt string, tweak func(q *Query)) error {
	t.Helper()
	sch := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	src, err := memsrc.New(sch, memsrc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddRows([]any{int64(1)}, []any{int64(2)}); err != nil {
		t.Fatal(err)
	}
	node, err := plan.NewAggregate(&plan.Scan{Source: src}, []plan.Expr{plan.ColumnRef{Name: "k"}}, []plan.Expr{plan.Agg{Func: plan.AggCountAll}})
	if err != nil {
		t.Fatal(err)
	}
	bh, _ := blackhole.New()
	ctx := context.Background()
	q, err := newQuery(ctx, Config{Plan: node, Sink: panicSink{at: sinkAt, Sink: bh}, Mode: sinks.Complete, Trigger: Trigger{Kind: TriggerOnce}, StatePartitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(q)
	}
	q.start(ctx)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return q.AwaitTermination(ctx)
}

func TestPanicInTriggerIsQueryError(t *testing.T) {
	for _, tc := range []struct {
		sinkAt, opPhase string
		want            []string
	}{
		{sinkAt: "begin", want: []string{"batch 0", "panicSink", "sink begin"}},
		{sinkAt: "write", want: []string{"batch 0", "sink panicSink", "sink write"}},
		{sinkAt: "commit", want: []string{"batch 0", "panicSink", "sink commit"}},
		{opPhase: "chain", want: []string{"batch 0", "operator boom", "operator apply"}},
		{opPhase: "prepare", want: []string{"batch 0", "operator stateStoreSave (prepare)", "operator prepare"}},
		{opPhase: "update", want: []string{"batch 0", "operator stateStoreSave (update, state partition", "operator update"}},
		{opPhase: "emit", want: []string{"batch 0", "operator stateStoreSave (emit, state partition", "operator emit"}},
	} {
		name := "sink " + tc.sinkAt
		var tweak func(*Query)
		if tc.opPhase != "" {
			name = "operator " + tc.opPhase
			tweak = func(q *Query) {
				if tc.opPhase == "chain" {
					r := &q.c.routes[0][0]
					r.ch = append(chain{panicChainOp{}}, r.ch...)
					return
				}
				st := q.c.stages[0]
				st.op = panicOp{stateful: st.op, phase: tc.opPhase}
			}
		}
		t.Run(name, func(t *testing.T) {
			err := runPanicking(t, tc.sinkAt, tweak)
			if err == nil {
				t.Fatal("the query ended without an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not name %q:\n%v", w, err)
				}
			}
		})
	}
}
