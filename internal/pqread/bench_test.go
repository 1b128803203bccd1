package pqread

import (
	"context"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkRead reads every column of the Parquet file named by
// MILLRACE_PQ_BENCH (e.g. a Nexmark bids file from bench/compare/export),
// in the file source's batches: the scan cost behind q0 from Parquet.
func BenchmarkRead(b *testing.B) {
	path := os.Getenv("MILLRACE_PQ_BENCH")
	if path == "" {
		b.Skip("set MILLRACE_PQ_BENCH to a Parquet file")
	}
	var rows int64
	for i := 0; i < b.N; i++ {
		err := Read(context.Background(), memory.DefaultAllocator, path, "bench", 64*1024, func(string) bool { return true },
			func(rec arrow.RecordBatch, n int64) error { rows += n; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}
