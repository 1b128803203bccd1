package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks"
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
	table      string
	console    bool
	obs        obsFlags
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
(Append mode), to a Delta table on local disk (Parquet files plus a JSON
transaction log that Spark, delta-rs and DuckDB read); events that arrive after
their window closed are dropped and counted. A progress bar follows the run; a
summary closes it, with where the table is and its latest rows read back.`,
		Example: `  millrace demo
  millrace demo --events 10000000 --per-trigger 1000000 --quiet
  millrace demo --table /tmp/clicks --checkpoint /tmp/clicks-ckpt
  millrace demo --console                   # print each batch instead of writing Delta
  millrace demo --rate 50000 --events 0     # run until Ctrl-C at 50K events/s
  millrace demo --ui 127.0.0.1:4040          # live charts in a browser; at a terminal the UI stays up after the run until Ctrl-C`,
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
	fl.IntVar(&f.rows, "rows", 10, "rows to print (of the table, or of each batch with --console)")
	fl.BoolVar(&f.quiet, "quiet", false, "print only the summary")
	fl.StringVar(&f.table, "table", "", "Delta table to write (default: a new directory under the system temp dir)")
	fl.BoolVar(&f.console, "console", false, "print each batch to the console instead of writing a Delta table")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint directory (exactly-once across restarts)")
	f.obs.register(fl)
	return cmd
}

func runDemo(ctx context.Context, stdout, stderr io.Writer, f demoFlags) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ob, err := f.obs.open(stderr)
	if err != nil {
		return err
	}
	defer ob.close()
	defer lingerUI(ctx, ob.ui, stderr) // before close
	src, err := clicks.New(clicks.Options{
		Seed: f.seed, Events: f.events, EventsPerSecond: f.rate,
		MaxEventsPerTrigger: f.perTrigger, Campaigns: f.campaigns, LateFraction: f.late,
	})
	if err != nil {
		return err
	}
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", f.watermark).
		GroupBy(millrace.Window(millrace.Col("event_time"), f.window), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"), millrace.CountDistinct(millrace.Col("user_id")).As("users"))

	out := stdout
	if f.quiet {
		out = io.Discard
	}
	var sink sinks.Sink
	if f.console {
		if sink, err = console.New(console.Options{Writer: out, NumRows: f.rows, Truncate: -1}); err != nil {
			return err
		}
	} else {
		if f.table == "" {
			dir, err := os.MkdirTemp("", "millrace-demo-")
			if err != nil {
				return err
			}
			f.table = filepath.Join(dir, "clicks_per_window")
		}
		if sink, err = lake.NewSink(f.table, lake.SinkOptions{}); err != nil {
			return err
		}
	}
	total := f.events
	if total == 0 {
		total = -1
	}
	bar := newProgressListener(stderr, total, "clicks", !f.quiet)
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
	w = ob.apply(w)
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
	sum := q.Summary()
	fmt.Fprintf(stdout, "\nDemo finished: %d events in %d batches, %d rows out, %d late events dropped, %.1fs, %.0f events/s\n",
		sum.NumInputRows, sum.Batches, sum.NumOutputRows, sum.NumRowsDroppedByWatermark, elapsed.Seconds(), float64(sum.NumInputRows)/elapsed.Seconds())
	if sum.Watermark != "" {
		fmt.Fprintf(stdout, "Watermark at the end: %s (windows ending after it stay open until more events arrive)\n", sum.Watermark)
	}
	printCost(stdout, "the demo query", ob.runCost(q.CostTotals(), elapsed.Seconds()))
	if f.console {
		return nil
	}
	return showTable(ctx, stdout, f.table, f.rows, f.quiet)
}

// showTable reads the demo's Delta table back and prints where it is and
// its latest windows.
func showTable(ctx context.Context, w io.Writer, path string, n int, quiet bool) error {
	snap, err := lake.LoadSnapshot(path, -1)
	if err != nil {
		return fmt.Errorf("read back the Delta table %s: %w", path, err)
	}
	nrows, _ := snap.NumRecords()
	fmt.Fprintf(w, "Delta table: %s (version %d, %d rows in %d files)\n", path, snap.Version(), nrows, len(snap.Files()))
	fmt.Fprintf(w, "Read it with: millrace delta read %s   (or delta-rs, Spark, DuckDB)\n", path)
	if quiet || n <= 0 {
		return nil
	}
	recs, err := snap.ReadAll(ctx, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("read back the Delta table %s: %w", path, err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	type row struct {
		start, end time.Time
		campaign   int64
		clicks     int64
		users      int64
	}
	var rows []row
	for _, r := range recs {
		win := r.Column(0).(*array.Struct)
		starts := win.Field(0).(*array.Timestamp)
		ends := win.Field(1).(*array.Timestamp)
		camp := r.Column(1).(*array.Int64)
		clicks := r.Column(2).(*array.Int64)
		users := r.Column(3).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			rows = append(rows, row{
				start: starts.Value(i).ToTime(arrow.Microsecond).UTC(), end: ends.Value(i).ToTime(arrow.Microsecond).UTC(),
				campaign: camp.Value(i), clicks: clicks.Value(i), users: users.Value(i),
			})
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		if !rows[i].start.Equal(rows[j].start) {
			return rows[i].start.After(rows[j].start)
		}
		return rows[i].clicks > rows[j].clicks
	})
	fmt.Fprintf(w, "\nLatest closed window, busiest campaigns first:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WINDOW\tCAMPAIGN\tCLICKS\tUSERS")
	for i, r := range rows {
		if i == n || !r.start.Equal(rows[0].start) {
			break
		}
		fmt.Fprintf(tw, "%s – %s\t%d\t%d\t%d\n", r.start.Format("2006-01-02 15:04"), r.end.Format("15:04"), r.campaign, r.clicks, r.users)
	}
	return tw.Flush()
}
