package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/console"
	"github.com/millrace/millrace/sources/clicks"
	"github.com/spf13/cobra"
)

type demoFlags struct {
	events     int64
	perTrigger int64
	rate       int64
	campaigns  int64
	seed       int64
	window     time.Duration
	watermark  time.Duration
	late       float64
	rows       int
	quiet      bool
	checkpoint string
}

func newDemo() *cobra.Command {
	f := demoFlags{}
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the click-stream example on built-in data",
		Long: `demo runs the pipeline Millrace is built for, on a built-in generator of click
events (campaign id, user id, event time; a share of events arrives out of order
or late):

  clicks → watermark → count per (window, campaign) → sink

Each window's counts are written once, when the watermark passes the window's end
(Append mode); events that arrive after their window closed are dropped and
counted. A progress bar follows the run and a summary closes it.`,
		Example: `  millrace demo
  millrace demo --events 10000000 --per-trigger 1000000 --quiet
  millrace demo --rate 50000 --events 0     # run until Ctrl-C at 50K events/s`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runDemo(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.events, "events", 2_000_000, "events to generate (0: unbounded, stop with Ctrl-C)")
	fl.Int64Var(&f.perTrigger, "per-trigger", 200_000, "maximum events per trigger")
	fl.Int64Var(&f.rate, "rate", 0, "events per second of wall-clock time (0: as fast as possible)")
	fl.Int64Var(&f.campaigns, "campaigns", 20, "number of campaigns")
	fl.Int64Var(&f.seed, "seed", 1, "generator seed (same seed, same events)")
	fl.DurationVar(&f.window, "window", time.Minute, "tumbling window size")
	fl.DurationVar(&f.watermark, "watermark", 10*time.Second, "allowed lateness of events")
	fl.Float64Var(&f.late, "late", 0.01, "share of events that arrive up to 2 minutes late")
	fl.IntVar(&f.rows, "rows", 20, "rows of each batch to print")
	fl.BoolVar(&f.quiet, "quiet", false, "print only the summary")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint directory (exactly-once across restarts)")
	return cmd
}

func runDemo(ctx context.Context, stdout, stderr io.Writer, f demoFlags) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	src := clicks.New(clicks.Options{
		Seed: f.seed, Events: f.events, EventsPerSecond: f.rate,
		MaxEventsPerTrigger: f.perTrigger, Campaigns: f.campaigns, LateFraction: f.late,
	})
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", f.watermark).
		GroupBy(millrace.Window(millrace.Col("event_time"), f.window), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"), millrace.CountDistinct(millrace.Col("user_id")).As("users"))

	out := stdout
	if f.quiet {
		out = io.Discard
	}
	sink := console.New(console.Options{Writer: out, NumRows: f.rows, Truncate: -1})
	total := f.events
	if total == 0 {
		total = -1
	}
	bar := newProgressListener(stderr, total, "clicks")
	trigger := millrace.AvailableNow()
	if f.rate > 0 || f.events == 0 {
		trigger = millrace.ProcessingTime(time.Second)
	}
	start := time.Now()
	w := counts.WriteStream(sink).
		OutputMode(millrace.Append).
		Trigger(trigger).
		QueryName("demo").
		Listener(bar)
	if f.checkpoint != "" {
		w = w.Checkpoint(f.checkpoint)
	}
	q, err := w.Start(ctx)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = q.Stop()
	}()
	if err := q.AwaitTermination(context.Background()); err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "\nDemo finished: %d events in %d batches, %d rows out, %d late events dropped, %.1fs, %.0f events/s\n",
		bar.in.Load(), bar.batches.Load(), bar.out.Load(), bar.dropped.Load(), elapsed.Seconds(), float64(bar.in.Load())/elapsed.Seconds())
	if p := bar.lastProgress(); p != nil && p.EventTime != nil {
		fmt.Fprintf(stdout, "Watermark at the end: %s (windows ending after it stay open until more events arrive)\n", p.EventTime["watermark"])
	}
	return nil
}
