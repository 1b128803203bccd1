package millrace_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
)

// BenchmarkExactlyOnceCost runs the same windowed aggregation over the
// click generator with and without a checkpoint (offsets log, state
// commit and commit log every trigger), so the cost of exactly-once is the
// ratio of the two figures in one run. Groups: per campaign (few) or per
// user (many: every trigger updates ~100K state rows).
func BenchmarkExactlyOnceCost(b *testing.B) {
	const events, perTrigger = 2_000_000, 200_000
	for _, key := range []string{"campaign_id", "user_id"} {
		for _, ckpt := range []bool{false, true} {
			b.Run(fmt.Sprintf("by=%s/checkpoint=%v", key, ckpt), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					src := clicks.New(clicks.Options{Events: events, MaxEventsPerTrigger: perTrigger, Interval: 10 * time.Millisecond})
					s := millrace.ReadStream(src).
						WithWatermark("event_time", 10*time.Second).
						GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col(key)).
						Agg(millrace.Count().As("n"), millrace.Max(millrace.Col("click_id")).As("last"))
					w := s.WriteStream(blackhole.New()).Trigger(millrace.AvailableNow())
					if ckpt {
						w = w.Checkpoint(b.TempDir())
					}
					q, err := w.Start(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					if err := q.AwaitTermination(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
