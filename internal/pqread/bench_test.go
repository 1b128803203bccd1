package pqread

import (
	"context"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// BenchmarkRead reads every column of the Parquet file named by
// MILLRACE_PQ_BENCH (e.g. a Nexmark bids file from bench/compare/export),
// (or those listed in MILLRACE_PQ_COLS, comma-separated) in the file
// source's batches, with a query's recycling allocator: the scan cost
// behind q0 from Parquet.
// rows/cpu-s divides by the process's CPU time (GC included), the figure
// that holds on a shared machine.
func BenchmarkRead(b *testing.B) {
	path := os.Getenv("MILLRACE_PQ_BENCH")
	if path == "" {
		b.Skip("set MILLRACE_PQ_BENCH to a Parquet file")
	}
	want := func(string) bool { return true }
	if cols := os.Getenv("MILLRACE_PQ_COLS"); cols != "" {
		want = func(name string) bool { return slices.Contains(strings.Split(cols, ","), name) }
	}
	var rows int64
	mem := columnar.NewRecycler(64 << 20) // a query's allocator
	cpu0 := cpuTime(b)
	for i := 0; i < b.N; i++ {
		err := Read(context.Background(), mem, path, "bench", 8192, want,
			func(rec arrow.RecordBatch, n int64) error { rows += n; return nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/(cpuTime(b)-cpu0).Seconds(), "rows/cpu-s")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
