package exec

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/state"
)

// schemaSource is a stand-in scan for building plans in benchmarks; it is
// never read.
type schemaSource struct{ s *arrow.Schema }

func (s schemaSource) Name() string                                          { return "bench" }
func (s schemaSource) Schema() *arrow.Schema                                 { return s.s }
func (s schemaSource) InitialOffset(context.Context) (sources.Offset, error) { return "0", nil }
func (s schemaSource) LatestOffset(context.Context, sources.Offset, sources.ReadLimit) (sources.Offset, error) {
	return "0", nil
}
func (s schemaSource) PlanPartitions(_, _ sources.Offset) ([]sources.InputPartition, error) {
	return nil, nil
}
func (s schemaSource) Commit(sources.Offset) error { return nil }
func (s schemaSource) Close() error                { return nil }

// BenchmarkStateCommit measures committed state-row updates per second:
// each iteration updates 64K groups of an aggregation (count, sum by an
// int64 key, 16 state partitions, 1M groups held) and commits them durably:
// encoding the changed groups, one delta blob per partition in the
// operator's changelog file (snapshots as the policy decides), the file
// and the Pebble commit synced. The aggregation update itself is not
// timed.
func BenchmarkStateCommit(b *testing.B) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	node, err := plan.NewAggregate(&plan.Scan{Source: schemaSource{sch}},
		[]plan.Expr{plan.ColumnRef{Name: "k"}},
		[]plan.Expr{plan.Agg{Func: plan.AggCountAll}, plan.Agg{Func: plan.AggSum, Arg: plan.ColumnRef{Name: "v"}}})
	if err != nil {
		b.Fatal(err)
	}
	const parts, rows, groups = 16, 64 << 10, 1 << 20
	// Append without a window emits nothing: only the state commit is timed.
	a, err := newAggOperator(node, sinks.Append, parts)
	if err != nil {
		b.Fatal(err)
	}
	a.enableDurability()
	store, err := state.Open(filepath.Join(b.TempDir(), "state"), state.Options{QueryID: "bench", NoRowCount: true})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	policy := newChangelogState(parts)
	mem := memory.DefaultAllocator
	kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	next := int64(0)
	batch := func() arrow.RecordBatch {
		for i := 0; i < rows; i++ {
			kb.Append((next * 0x9E3779B9) % groups)
			vb.Append(next)
			next++
		}
		k, v := kb.NewArray(), vb.NewArray()
		defer k.Release()
		defer v.Release()
		return array.NewRecordBatch(sch, []arrow.Array{k, v}, rows)
	}
	t := &task{ctx: context.Background(), mem: mem}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		sh := &shuffled{}
		if err := a.prepare(t, columnar.Batch{Rec: batch()}, sh, nil); err != nil {
			b.Fatal(err)
		}
		for p := 0; p < parts; p++ {
			if err := a.update(p, []*shuffled{sh}); err != nil {
				b.Fatal(err)
			}
		}
		sh.release()
		t.reset() // the routed selections are dead
		b.StartTimer()
		for p := 0; p < parts; p++ {
			recs, _, _, err := a.emit(mem, p, 0)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range recs {
				r.Release()
			}
		}
		txn := store.Begin(int64(i))
		if err := persistChangelog(txn, store.LocalFiles(), 0, int64(i), a, parts, policy, DefaultMinDeltasForSnapshot, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
