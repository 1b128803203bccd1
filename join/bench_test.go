package join

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
)

const (
	benchBuildRows = 1 << 20
	benchBatch     = 64 << 10
)

func int64Array(mem memory.Allocator, vals []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

// BenchmarkTableProbe: stream-static probe throughput against a 1M-row
// dimension with unique int64 keys, 64K-row probe batches, every probe row
// matching (hit) or half of them (half).
func BenchmarkTableProbe(b *testing.B) {
	for _, tc := range []struct {
		name string
		miss int // 1 in miss probe keys is absent; 0 none
	}{{"hit", 0}, {"half", 2}} {
		b.Run(tc.name, func(b *testing.B) {
			mem := memory.NewGoAllocator()
			rng := rand.New(rand.NewPCG(1, 2))
			keys := make([]int64, benchBuildRows)
			for i := range keys {
				keys[i] = int64(i) * 7919
			}
			rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
			schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
			kcol, vcol := int64Array(mem, keys), int64Array(mem, keys)
			rec := array.NewRecordBatch(schema, []arrow.Array{kcol, vcol}, benchBuildRows)
			kcol.Release()
			vcol.Release()
			tab, err := Build(mem, schema, []int{0}, []arrow.RecordBatch{rec})
			rec.Release()
			if err != nil {
				b.Fatal(err)
			}
			defer tab.Release()
			var probes []arrow.Array
			for p := 0; p < 8; p++ {
				vals := make([]int64, benchBatch)
				for i := range vals {
					vals[i] = int64(rng.IntN(benchBuildRows)) * 7919
					if tc.miss > 0 && rng.IntN(tc.miss) == 0 {
						vals[i]++
					}
				}
				probes = append(probes, int64Array(mem, vals))
			}
			defer testutil.ReleaseAll(probes)
			var m Matches
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := tab.Probe(probes[i%len(probes):i%len(probes)+1], nil, &m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*benchBatch/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkTableProbeGather adds the materialisation of one int64 build
// column to the probe (the work of a stream-static join per batch).
func BenchmarkTableProbeGather(b *testing.B) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]int64, benchBuildRows)
	for i := range keys {
		keys[i] = int64(i)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	kcol, vcol := int64Array(mem, keys), int64Array(mem, keys)
	rec := array.NewRecordBatch(schema, []arrow.Array{kcol, vcol}, benchBuildRows)
	kcol.Release()
	vcol.Release()
	tab, _ := Build(mem, schema, []int{0}, []arrow.RecordBatch{rec})
	rec.Release()
	defer tab.Release()
	vals := make([]int64, benchBatch)
	for i := range vals {
		vals[i] = int64(rng.IntN(benchBuildRows))
	}
	probe := int64Array(mem, vals)
	defer probe.Release()
	var m Matches
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = tab.Probe([]arrow.Array{probe}, nil, &m)
		testutil.ReleaseAll(tab.Gather(mem, m.BuildRows, []int{1}))
	}
	b.ReportMetric(float64(b.N)*benchBatch/b.Elapsed().Seconds(), "rows/s")
}

// bufferBatches returns batches of (k int64, t timestamp) with keys drawn
// from distinct values and times increasing by one per row.
func bufferBatches(mem memory.Allocator, n, distinct int, seed uint64) ([]arrow.RecordBatch, *arrow.Schema) {
	rng := rand.New(rand.NewPCG(seed, 3))
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "t", Type: columnar.Timestamp}}, nil)
	var recs []arrow.RecordBatch
	t := int64(0)
	for done := 0; done < n; done += benchBatch {
		kb := array.NewInt64Builder(mem)
		tb := array.NewTimestampBuilder(mem, columnar.Timestamp)
		for i := 0; i < benchBatch; i++ {
			kb.Append(int64(rng.IntN(distinct)))
			tb.Append(arrow.Timestamp(t))
			t++
		}
		cols := []arrow.Array{kb.NewArray(), tb.NewArray()}
		kb.Release()
		tb.Release()
		recs = append(recs, Assemble(schema, benchBatch, cols))
	}
	return recs, schema
}

// BenchmarkBufferAdd: stream-stream insert throughput, filling a buffer to
// 1M rows with 64K-row batches (256K distinct keys).
func BenchmarkBufferAdd(b *testing.B) {
	mem := memory.NewGoAllocator()
	recs, schema := bufferBatches(mem, benchBuildRows, benchBuildRows/4, 1)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, _ := NewBuffer(mem, schema, []int{0}, 1)
		for _, r := range recs {
			if _, err := buf.Add(r, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		buf.Release()
	}
	b.ReportMetric(float64(b.N)*benchBuildRows/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkBufferProbe: stream-stream probe throughput against 1M buffered
// rows (256K distinct keys, 4 rows per key on average), 64K-row probe
// batches with a time range that keeps about half of the key's rows.
func BenchmarkBufferProbe(b *testing.B) {
	mem := memory.NewGoAllocator()
	recs, schema := bufferBatches(mem, benchBuildRows, benchBuildRows/4, 1)
	buf, _ := NewBuffer(mem, schema, []int{0}, 1)
	for _, r := range recs {
		_, _ = buf.Add(r, nil, nil)
		r.Release()
	}
	defer buf.Release()
	probes, _ := bufferBatches(mem, 8*benchBatch, benchBuildRows/4, 2)
	defer func() {
		for _, r := range probes {
			r.Release()
		}
	}()
	var m Matches
	rows := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := probes[i%len(probes)]
		// Probe times run 0..512K; a bound of ±256K keeps about half.
		if err := buf.Probe(p.Columns()[:1], p.Column(1), nil, -benchBuildRows/4, benchBuildRows/4, &m); err != nil {
			b.Fatal(err)
		}
		rows += m.Len()
	}
	b.ReportMetric(float64(b.N)*benchBatch/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/float64(b.N)/benchBatch, "matches/row")
}

// BenchmarkBufferEvict: evicting 64K of 1M buffered rows (one batch's
// worth of event time) and adding a new batch, the steady state of a
// stream-stream join per trigger.
func BenchmarkBufferEvict(b *testing.B) {
	mem := memory.NewGoAllocator()
	recs, schema := bufferBatches(mem, benchBuildRows+benchBatch*64, benchBuildRows/4, 1)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	buf, _ := NewBuffer(mem, schema, []int{0}, 1)
	defer buf.Release()
	n := benchBuildRows / benchBatch
	for _, r := range recs[:n] {
		_, _ = buf.Add(r, nil, nil)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := recs[n+i%(len(recs)-n)]
		if i%(len(recs)-n) == 0 && i > 0 {
			b.StopTimer()
			buf.Release()
			for _, r := range recs[:n] {
				_, _ = buf.Add(r, nil, nil)
			}
			b.StartTimer()
		}
		_, _ = buf.Add(r, nil, nil)
		start := int64(r.Column(1).(*array.Timestamp).Value(0))
		if ev, _ := buf.Evict(start - benchBuildRows + benchBatch); ev != nil {
			ev.Release()
		}
	}
	b.ReportMetric(float64(b.N)*benchBatch/b.Elapsed().Seconds(), "rows/s")
}
