package e2e_test

import (
	"context"
	"fmt"
	"github.com/millrace/millrace/internal/testutil"
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
// user (many: every trigger updates ~100K state rows). Two figures: events/s
// over the whole run (query start and stop included: opening and closing
// the state store) and steady-state events/s over the triggers after the
// first (between the first and the last progress event).
func BenchmarkExactlyOnceCost(b *testing.B) {
	const events, perTrigger = 2_000_000, 200_000
	for _, key := range []string{"campaign_id", "user_id"} {
		for _, ckpt := range []bool{false, true} {
			b.Run(fmt.Sprintf("by=%s/checkpoint=%v", key, ckpt), func(b *testing.B) {
				var steadyRows int64
				var steady, steadyCPU time.Duration
				for i := 0; i < b.N; i++ {
					src := testutil.Must(clicks.New(clicks.Options{Events: events, MaxEventsPerTrigger: perTrigger, Interval: 10 * time.Millisecond}))
					s := millrace.ReadStream(src).
						WithWatermark("event_time", 10*time.Second).
						GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col(key)).
						Agg(millrace.Count().As("n"), millrace.Max(millrace.Col("click_id")).As("last"))
					clock := &progressClock{}
					w := s.WriteStream(testutil.Must(blackhole.New())).Trigger(millrace.AvailableNow()).Listener(clock)
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
					steady += clock.last.Sub(clock.first)
					steadyCPU += clock.lastCPU - clock.firstCPU
					steadyRows += clock.rows
				}
				b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(steadyRows)/steady.Seconds(), "steady-events/s")
				// per CPU-second of the process (every goroutine, the
				// checkpoint writer's too): what a shared machine measures
				// fairly
				b.ReportMetric(float64(steadyRows)/steadyCPU.Seconds(), "steady-events/cpu-s")
			})
		}
	}
}

// progressClock notes when the first and the last progress events came and
// the rows of the batches in between (the first batch excluded).
type progressClock struct {
	first, last       time.Time
	firstCPU, lastCPU time.Duration // process CPU time then
	rows              int64
	batches           int // after the first
}

func (c *progressClock) OnQueryStarted(id, runID, name string) {}
func (c *progressClock) OnQueryProgress(p *millrace.Progress) {
	now, cpu := time.Now(), processCPU()
	if c.first.IsZero() {
		c.first, c.firstCPU = now, cpu
	} else {
		c.rows += p.NumInputRows
		c.batches++
	}
	c.last, c.lastCPU = now, cpu
}

func (c *progressClock) OnQueryTerminated(id, runID string, err error) {}

// BenchmarkStatefulOperators measures rows/s through each stateful
// operator over the click generator (1M events per side, 100K per
// trigger, generation included), as in TestStateStaysBounded.
func BenchmarkStatefulOperators(b *testing.B) {
	const events, perTrigger = 1_000_000, 100_000
	gen := func(seed int64) *clicks.Source {
		return testutil.Must(clicks.New(clicks.Options{Seed: seed, Events: events, MaxEventsPerTrigger: perTrigger, Campaigns: 50, LateFraction: 0.001}))
	}
	col := millrace.Col
	cases := []struct {
		name   string
		inputs int
		build  func() *millrace.Stream
	}{
		{"session-window", 1, func() *millrace.Stream {
			return millrace.ReadStream(gen(2)).WithWatermark("event_time", 10*time.Second).
				GroupBy(millrace.SessionWindow(col("event_time"), 5*time.Second), col("user_id")).Count()
		}},
		{"stream-stream-join", 2, func() *millrace.Stream {
			left := millrace.ReadStream(gen(4)).WithWatermark("event_time", 10*time.Second)
			right := millrace.ReadStream(gen(5)).
				Select(col("campaign_id").As("r_campaign"), col("event_time").As("r_time"), col("user_id").As("r_user")).
				WithWatermark("r_time", 10*time.Second)
			return left.Join(right, col("user_id").Eq(col("r_user")).
				And(col("r_time").Between(col("event_time"), col("event_time").Plus(5*time.Second))), millrace.Inner)
		}},
		{"dedup-within-watermark", 1, func() *millrace.Stream {
			return millrace.ReadStream(gen(3)).WithWatermark("event_time", 10*time.Second).DropDuplicatesWithinWatermark("user_id")
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				q, err := c.build().WriteStream(testutil.Must(blackhole.New())).Trigger(millrace.AvailableNow()).Start(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if err := q.AwaitTermination(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(events*c.inputs*b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
