package nexmark

import (
	"context"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkGenerateBids measures the columnar generator alone on one core:
// bids/s (and event positions/s) into records of BatchRows rows.
func BenchmarkGenerateBids(b *testing.B) {
	g := NewGenerator(Config{Seed: 1})
	mem := memory.NewGoAllocator()
	const positions = 1 << 20
	var bids int64
	cpu0 := cpuSeconds()
	for i := 0; b.Loop(); i++ {
		lo := int64(i) * positions
		_ = g.Generate(mem, Bids, lo, lo+positions, func(r arrow.RecordBatch) error {
			bids += r.NumRows()
			r.Release()
			return nil
		})
	}
	b.ReportMetric(float64(bids)/b.Elapsed().Seconds(), "bids/s")
	b.ReportMetric(float64(bids)/(cpuSeconds()-cpu0), "bids/cpu-s")
	b.ReportMetric(float64(int64(b.N)*positions)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkGenerateAuctions and BenchmarkGeneratePersons measure the rarer
// kinds (their rows per second, positions skipped included).
func BenchmarkGenerateAuctions(b *testing.B) { benchKind(b, Auctions) }

func BenchmarkGeneratePersons(b *testing.B) { benchKind(b, Persons) }

func benchKind(b *testing.B, k Kind) {
	g := NewGenerator(Config{Seed: 1})
	mem := memory.NewGoAllocator()
	const positions = 1 << 20
	var rows int64
	for i := 0; b.Loop(); i++ {
		lo := int64(i) * positions
		_ = g.Generate(mem, k, lo, lo+positions, func(r arrow.RecordBatch) error {
			rows += r.NumRows()
			r.Release()
			return nil
		})
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkQuery runs each query over 1M events, generation included, at
// the default parallelism: events/s counts event positions. q4, q5, q7 and
// q8 run at 10,000 events/s of event time (100 s: nine 10 s windows close),
// q11 likewise.
func BenchmarkQuery(b *testing.B) {
	const events = 1_000_000
	for _, q := range Queries {
		cfg := Config{Events: events, Seed: 1}
		if q.Name == "q11" || q.Rate != 0 {
			cfg.Rate = 10_000 // 100 s of event time: sessions and windows close
		}
		b.Run(q.Name, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for b.Loop() {
				if _, err := Run(context.Background(), q, cfg, RunOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(events*b.N)/(cpuSeconds()-cpu0), "events/cpu-s")
		})
	}
}

// cpuSeconds is the process's user+system CPU time: a per-core figure that
// other processes on the machine disturb less than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
