package exec

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources"
)

// Steady-state triggers (issue 12, item 8): each benchmark iteration is one
// trigger of a running query, after enough triggers for its state to have
// reached its steady size (windows closing and state evicted as fast as
// rows arrive). allocs/op is the number of Go heap allocations of one
// trigger; it is what the benchmarks are for (timing on a shared machine
// is not).
//
//	go test -run '^$' -bench SteadyTrigger -benchmem -benchtime 200x ./exec/

const (
	benchRowsPerPart  = 4096
	benchPartsPerTrig = 2
	benchKeys         = 512
	benchWarmup       = 20
)

// benchSource emits, for offset n, benchPartsPerTrig partitions of
// benchRowsPerPart rows (k int64, ts timestamp, v int64) whose event times
// cover second n: one new second of event time per trigger. The records
// are built before the timer starts and handed out with a reference each.
type benchSource struct {
	sch  *arrow.Schema
	name string
	recs [][]arrow.RecordBatch // per offset, per partition
}

func newBenchSource(name string, triggers int) *benchSource {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: name + "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: name + "ts", Type: columnar.Timestamp, Nullable: true},
		{Name: name + "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	s := &benchSource{sch: sch, name: name}
	mem := memory.DefaultAllocator
	for n := 1; n <= triggers; n++ {
		var parts []arrow.RecordBatch
		for p := 0; p < benchPartsPerTrig; p++ {
			kb := array.NewInt64Builder(mem)
			tb := array.NewTimestampBuilder(mem, columnar.Timestamp)
			vb := array.NewInt64Builder(mem)
			for i := 0; i < benchRowsPerPart; i++ {
				row := p*benchRowsPerPart + i
				kb.Append(int64((row * 7919) % benchKeys))
				tb.Append(arrow.Timestamp(int64(n)*1_000_000 + int64(row)*1_000_000/(benchPartsPerTrig*benchRowsPerPart)))
				vb.Append(int64(row))
			}
			cols := []arrow.Array{kb.NewArray(), tb.NewArray(), vb.NewArray()}
			parts = append(parts, array.NewRecordBatch(sch, cols, benchRowsPerPart))
			for _, c := range cols {
				c.Release()
			}
			kb.Release()
			tb.Release()
			vb.Release()
		}
		s.recs = append(s.recs, parts)
	}
	return s
}

func (s *benchSource) Name() string                                          { return "bench" + s.name }
func (s *benchSource) Schema() *arrow.Schema                                 { return s.sch }
func (s *benchSource) InitialOffset(context.Context) (sources.Offset, error) { return "0", nil }
func (s *benchSource) Commit(sources.Offset) error                           { return nil }

func (s *benchSource) LatestOffset(_ context.Context, start sources.Offset, _ sources.ReadLimit) (sources.Offset, error) {
	n, _ := strconv.Atoi(string(start))
	if n >= len(s.recs) {
		return start, nil
	}
	return sources.Offset(strconv.Itoa(n + 1)), nil
}

func (s *benchSource) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	n, _ := strconv.Atoi(string(end))
	var out []sources.InputPartition
	for _, r := range s.recs[n-1] {
		out = append(out, benchPartition{r})
	}
	return out, nil
}

func (s *benchSource) Close() error {
	for _, parts := range s.recs {
		for _, r := range parts {
			r.Release()
		}
	}
	s.recs = nil
	return nil
}

type benchPartition struct{ rec arrow.RecordBatch }

func (p benchPartition) Read(_ context.Context, _ memory.Allocator, emit func(arrow.RecordBatch) error) error {
	p.rec.Retain()
	return emit(p.rec)
}

// runSteadyTriggers runs n measured triggers of the query over node after
// benchWarmup unmeasured ones; under a benchmark only the n are timed.
func runSteadyTriggers(tb testing.TB, n int, node plan.Node, mode sinks.OutputMode, srcs ...*benchSource) {
	tb.Helper()
	sink, _ := blackhole.New()
	clock := time.Unix(1_700_000_000, 0)
	q, err := newQuery(context.Background(), Config{
		Plan: node, Sink: sink, Mode: mode,
		Parallelism: 2, StatePartitions: 4,
		Clock: func() time.Time { return clock },
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer func() {
		q.c.release()
		for _, s := range srcs {
			s.Close()
		}
	}()
	ctx := context.Background()
	step := func() {
		clock = clock.Add(time.Second)
		ran, err := q.trigger(ctx, clock)
		if err != nil {
			tb.Fatal(err)
		}
		if !ran {
			tb.Fatal("no data for a trigger")
		}
	}
	for i := 0; i < benchWarmup; i++ {
		step()
	}
	b, _ := tb.(*testing.B)
	if b != nil {
		b.ReportAllocs()
		b.ResetTimer()
	}
	for i := 0; i < n; i++ {
		step()
	}
	if b != nil {
		b.StopTimer()
	}
	if sink.Rows() == 0 {
		tb.Fatal("the query emitted nothing")
	}
}

func benchScan(tb testing.TB, s *benchSource) plan.Node {
	w, err := plan.NewWatermark(&plan.Scan{Source: s}, s.name+"ts", 0)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// BenchmarkSteadyTriggerWindowAgg: count and sum per key and one-second
// tumbling window, Append mode; each trigger brings one second of rows and
// closes (emits and evicts) the window before it.
func BenchmarkSteadyTriggerWindowAgg(b *testing.B) { steadyWindowAgg(b, b.N) }

func steadyWindowAgg(tb testing.TB, n int) {
	b := tb
	src := newBenchSource("", benchWarmup+n)
	in := benchScan(b, src)
	node, err := plan.NewAggregate(in,
		[]plan.Expr{plan.Window{Time: plan.ColumnRef{Name: "ts"}, Size: time.Second, Slide: time.Second}, plan.ColumnRef{Name: "k"}},
		[]plan.Expr{plan.Agg{Func: plan.AggCountAll}, plan.Agg{Func: plan.AggSum, Arg: plan.ColumnRef{Name: "v"}}})
	if err != nil {
		b.Fatal(err)
	}
	runSteadyTriggers(b, n, node, sinks.Append, src)
}

// BenchmarkSteadyTriggerStreamJoin: an inner stream-stream join on the key
// with right.ts within [left.ts, left.ts + 100ms]; both sides bring one
// second of rows a trigger and the watermark evicts the rows before it.
func BenchmarkSteadyTriggerStreamJoin(b *testing.B) { steadyStreamJoin(b, b.N) }

func steadyStreamJoin(tb testing.TB, n int) {
	b := tb
	l, r := newBenchSource("l", benchWarmup+n), newBenchSource("r", benchWarmup+n)
	cond := plan.Binary{Op: plan.OpAnd,
		L: plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "lk"}, R: plan.ColumnRef{Name: "rk"}},
		R: plan.Binary{Op: plan.OpAnd,
			L: plan.Binary{Op: plan.OpGe, L: plan.ColumnRef{Name: "rts"}, R: plan.ColumnRef{Name: "lts"}},
			R: plan.Binary{Op: plan.OpLe, L: plan.ColumnRef{Name: "rts"},
				R: plan.Binary{Op: plan.OpAdd, L: plan.ColumnRef{Name: "lts"}, R: plan.Literal{Value: int64(100_000)}}}}}
	node, err := plan.NewJoin(benchScan(b, l), benchScan(b, r), cond, plan.InnerJoin)
	if err != nil {
		b.Fatal(err)
	}
	runSteadyTriggers(b, n, node, sinks.Append, l, r)
}

// TestSteadyTriggerBenchmarksRun keeps the benchmarks' setup working
// without timing anything: two triggers of each after the warm-up.
func TestSteadyTriggerBenchmarksRun(t *testing.T) {
	steadyWindowAgg(t, 2)
	steadyStreamJoin(t, 2)
}
