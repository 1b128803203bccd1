package lake

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// BenchmarkSinkAppend commits one 64K-row batch per iteration through the
// streaming sink (data file + commit with txn); reports rows/s and Parquet
// MB/s written.
//
//	go test ./lake -run XXX -bench 'Sink|Scan' -benchtime=200ms
func BenchmarkSinkAppend(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := benchRecord(mem)
	defer rec.Release()
	dir := b.TempDir()
	s := mustSink(dir, SinkOptions{Table: Options{CheckpointInterval: 10}})
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "bench", BatchID: int64(i), Mode: sinks.Append, Schema: benchSchema})
		if err != nil {
			b.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			b.Fatal(err)
		}
		if err := w.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	files, _ := s.table.Files()
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(bytes)/1e6/b.Elapsed().Seconds(), "MB/s")
}

// BenchmarkScan reads a 16-file table back as Arrow records.
func BenchmarkScan(b *testing.B) {
	mem := memory.NewGoAllocator()
	rec := benchRecord(mem)
	defer rec.Release()
	ctx := context.Background()
	tbl, err := Create(ctx, b.TempDir(), benchSchema, Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 16; i++ {
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			b.Fatal(err)
		}
	}
	snap, _ := tbl.Snapshot()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := snap.Scan(ctx, mem, nil, func(r arrow.RecordBatch) error { r.Release(); return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(16*benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
