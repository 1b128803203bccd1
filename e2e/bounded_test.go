package e2e_test

import (
	"context"
	"github.com/millrace/millrace/internal/testutil"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
)

// TestStateStaysBounded runs stateful queries over a long stream with
// moving event time and checks, from the progress events, that the state
// rows stop growing: the largest state of the second half of the run is no
// bigger than 1.5 times the largest of the first half.
func TestStateStaysBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("long run")
	}
	const events, perTrigger = 2_000_000, 100_000
	gen := func(seed int64) *clicks.Source {
		return testutil.Must(clicks.New(clicks.Options{Seed: seed, Events: events, MaxEventsPerTrigger: perTrigger, Campaigns: 50, LateFraction: 0.001}))
	}
	col := millrace.Col
	queries := map[string]func() *millrace.Stream{
		"window aggregation": func() *millrace.Stream {
			return millrace.ReadStream(gen(1)).WithWatermark("event_time", 10*time.Second).
				GroupBy(millrace.Window(col("event_time"), time.Minute), col("user_id")).Count()
		},
		"session windows": func() *millrace.Stream {
			return millrace.ReadStream(gen(2)).WithWatermark("event_time", 10*time.Second).
				GroupBy(millrace.SessionWindow(col("event_time"), 5*time.Second), col("user_id")).Count()
		},
		"dedup within watermark": func() *millrace.Stream {
			return millrace.ReadStream(gen(3)).WithWatermark("event_time", 10*time.Second).DropDuplicatesWithinWatermark("user_id")
		},
		"stream-stream join": func() *millrace.Stream {
			left := millrace.ReadStream(gen(4)).WithWatermark("event_time", 10*time.Second)
			right := millrace.ReadStream(gen(5)).
				Select(col("campaign_id").As("r_campaign"), col("event_time").As("r_time"), col("user_id").As("r_user")).
				WithWatermark("r_time", 10*time.Second)
			return left.Join(right, col("user_id").Eq(col("r_user")).
				And(col("r_time").Between(col("event_time"), col("event_time").Plus(5*time.Second))), millrace.Inner)
		},
	}
	for name, build := range queries {
		t.Run(name, func(t *testing.T) {
			q, err := build().WriteStream(testutil.Must(blackhole.New())).Trigger(millrace.AvailableNow()).RecentProgressSize(1000).Start(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if err := q.AwaitTermination(context.Background()); err != nil {
				t.Fatal(err)
			}
			ps := q.RecentProgress()
			var rows []int64
			for _, p := range ps {
				if p.NumInputRows > 0 {
					rows = append(rows, p.StateOperators[0].NumRowsTotal)
				}
			}
			if len(rows) < 10 {
				t.Fatalf("%d data batches", len(rows))
			}
			half := len(rows) / 2
			maxOf := func(xs []int64) int64 {
				m := int64(0)
				for _, x := range xs {
					m = max(m, x)
				}
				return m
			}
			first, second := maxOf(rows[:half]), maxOf(rows[half:])
			t.Logf("state rows per batch: %v", rows)
			if first == 0 || second > first*3/2 {
				t.Fatalf("state grows: max %d in the first half, %d in the second", first, second)
			}
		})
	}
}
