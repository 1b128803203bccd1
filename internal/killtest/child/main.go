// Command child is the query the kill tests run as a separate process and
// kill: a checkpointed windowed aggregation of the click generator, in
// Append mode with an AvailableNow trigger, written to the file sink.
//
// Usage: child -checkpoint DIR -out DIR [-events N] [-per-trigger N]
// [-rows-per-file N] [-parallelism N] [-slide D]
//
// It exits 0 once every available event is processed, 1 on a query error
// (printed to stderr). MILLRACE_CRASH_AT=step:batchId makes the engine kill
// the process with SIGKILL at that step (see exec.CrashEnv).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/file"
	"github.com/millrace/millrace/sources/clicks"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
}

func run() error {
	ckpt := flag.String("checkpoint", "", "checkpoint directory")
	out := flag.String("out", "", "file sink directory")
	events := flag.Int64("events", 200_000, "events to generate")
	perTrigger := flag.Int64("per-trigger", 8_000, "events per trigger")
	rowsPerFile := flag.Int64("rows-per-file", 500, "file sink rows per file")
	parallelism := flag.Int("parallelism", 0, "worker goroutines (0: GOMAXPROCS)")
	slide := flag.Duration("slide", 0, "slide of 5 s sliding windows, with min/max/avg too (0: tumbling windows)")
	joinShape := flag.Bool("join", false, "a stream-stream left outer join of two click streams instead of the aggregation")
	flag.Parse()
	if *ckpt == "" || *out == "" {
		return fmt.Errorf("-checkpoint and -out are required")
	}
	sink, err := file.New(*out, file.Options{MaxRowsPerFile: *rowsPerFile})
	if err != nil {
		return err
	}
	src, err := clicks.New(clicks.Options{Seed: 42, Events: *events, MaxEventsPerTrigger: *perTrigger})
	if err != nil {
		return err
	}
	window := millrace.Window(millrace.Col("event_time"), 5*time.Second)
	aggs := []millrace.Column{
		millrace.Count().As("clicks"),
		millrace.Sum(millrace.Col("user_id")).As("user_sum"),
		millrace.CountDistinct(millrace.Col("user_id")).As("users"),
	}
	if *slide > 0 {
		window = millrace.SlidingWindow(millrace.Col("event_time"), 5*time.Second, *slide)
		aggs = append(aggs,
			millrace.Min(millrace.Col("user_id")).As("min_user"),
			millrace.Max(millrace.Col("user_id")).As("max_user"),
			millrace.Avg(millrace.Col("user_id")).As("avg_user"))
	}
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", 5*time.Second).
		GroupBy(window, millrace.Col("campaign_id")).
		Agg(aggs...)
	if *joinShape {
		// clicks joined with a second click stream's clicks of the same user
		// within 5 s after; unmatched clicks come out with nulls when the
		// watermark passes them
		other, err := clicks.New(clicks.Options{Seed: 43, Events: *events, MaxEventsPerTrigger: *perTrigger, Users: 20_000})
		if err != nil {
			return err
		}
		one, err := clicks.New(clicks.Options{Seed: 42, Events: *events, MaxEventsPerTrigger: *perTrigger, Users: 20_000})
		if err != nil {
			return err
		}
		left := millrace.ReadStream(one).WithWatermark("event_time", 5*time.Second)
		right := millrace.ReadStream(other).
			Select(millrace.Col("user_id").As("r_user"), millrace.Col("event_time").As("r_time"), millrace.Col("campaign_id").As("r_campaign")).
			WithWatermark("r_time", 5*time.Second)
		counts = left.Join(right, millrace.Col("user_id").Eq(millrace.Col("r_user")).
			And(millrace.Col("r_time").Between(millrace.Col("event_time"), millrace.Col("event_time").Plus(5*time.Second))), millrace.LeftOuter)
	}
	ctx := context.Background()
	q, err := counts.WriteStream(sink).
		OutputMode(millrace.Append).
		Trigger(millrace.AvailableNow()).
		QueryName("killtest").
		Checkpoint(*ckpt).
		StatePartitions(4).
		Parallelism(*parallelism).
		Start(ctx)
	if err != nil {
		return err
	}
	return q.AwaitTermination(ctx)
}
