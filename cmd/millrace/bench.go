package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/bench/nexmark"
	"github.com/millrace/millrace/exec"
	"github.com/spf13/cobra"
)

func newBenchCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run benchmarks (Nexmark)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newBenchNexmarkCmd())
	return cmd
}

type nexmarkFlags struct {
	queries     string
	events      int64
	parallelism int
	rate        int64
	ooo         int64
	perTrigger  int64
	seed        int64
	format      string
	noCheck     bool
	quiet       bool
	sql         bool
	cpuProfile  string // write a CPU profile of the runs (for default.pgo)
	// source is "generator" or "parquet" (path: an export directory).
	source          string
	path            string
	filesPerTrigger int
	obs             obsFlags
}

func newBenchNexmarkCmd() *cobra.Command {
	f := nexmarkFlags{}
	cmd := &cobra.Command{
		Use:   "nexmark",
		Short: "Run Nexmark queries over the built-in generator and check them against an oracle",
		Long: `nexmark runs Nexmark queries (bench/nexmark) over generated auction events to a
blackhole sink, one query after the other, and reports for each: events/s (event
positions of the generator, generation included), events/s per core (events per
CPU second of the process: CPU seconds / wall seconds is the cores used), peak
heap and peak RSS, output rows, and the oracle check: the output's row count and
order-independent checksum against a naive row-by-row evaluation of the same
events (skip it with --no-check for huge runs).

Queries implemented: ` + queryNames() + `.`,
		Example: `  millrace bench nexmark --query q0 --events 10000000
  millrace bench nexmark --query q0,q1,q2 --events 10000000 --format json
  millrace bench nexmark --query all --events 100000000 --no-check --parallelism 2
  millrace bench nexmark --query q5 --events 10000000 --sql
  millrace bench nexmark --query q0,q1,q2,q5,q7 --source parquet --path /tmp/nexmark-compare-10000000-1-100000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runNexmark(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.queries, "query", "all", "queries to run: a comma list ("+queryNames()+") or all")
	fl.Int64Var(&f.events, "events", 10_000_000, "events to generate (all kinds; a bid query reads the 92% that are bids)")
	fl.IntVar(&f.parallelism, "parallelism", 0, "worker goroutines and source partitions (0: GOMAXPROCS)")
	fl.Int64Var(&f.rate, "rate", 0, "event-time rate in events/s: event n is at base + n/rate (0: the query's default — 10M/s, or 100K/s for the windowed queries q5, q7, q8, q11 so that windows close)")
	fl.Int64Var(&f.ooo, "out-of-order", 1, "out-of-order group size G (1: in order)")
	fl.Int64Var(&f.perTrigger, "per-trigger", 1_000_000, "maximum events per trigger (0: one trigger)")
	fl.Int64Var(&f.seed, "seed", 1, "generator seed")
	fl.StringVar(&f.format, "format", "table", "output format: table or json")
	fl.BoolVar(&f.noCheck, "no-check", false, "skip the oracle check")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bars")
	fl.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the runs to this file (go tool pprof; cmd/millrace/default.pgo is one)")
	fl.StringVar(&f.source, "source", "generator", "where the events come from: generator, or parquet (the files bench/compare/export wrote to --path, read through the file source; the events, seed and rate are the export's, from its manifest.json)")
	fl.StringVar(&f.path, "path", "", "with --source parquet: the export directory (bids in it, persons and auctions in its person/ and auction/ subdirectories)")
	fl.IntVar(&f.filesPerTrigger, "files-per-trigger", 1, "with --source parquet: the file source's MaxFilesPerTrigger (0: all files in one trigger)")
	f.obs.register(fl)
	fl.BoolVar(&f.sql, "sql", false, "plan each query from its Nexmark SQL text (bench/nexmark/sql.go) instead of the Go API; with --query all, the queries that have SQL text")
	return cmd
}

func queryNames() string {
	var names []string
	for _, q := range nexmark.Queries {
		names = append(names, q.Name)
	}
	return strings.Join(names, ", ")
}

// benchResult is one query's figures (the JSON output).
type benchResult struct {
	Query                  string        `json:"query"`
	Events                 int64         `json:"events"`
	InputRows              int64         `json:"inputRows"`
	OutputRows             int64         `json:"outputRows"`
	Checksum               string        `json:"checksum"`
	WallSeconds            float64       `json:"wallSeconds"`
	CPUSeconds             float64       `json:"cpuSeconds"`
	Cores                  float64       `json:"cores"`
	EventsPerSecond        float64       `json:"eventsPerSecond"`
	EventsPerSecondPerCore float64       `json:"eventsPerSecondPerCore"`
	PeakHeapBytes          uint64        `json:"peakHeapBytes"`
	MaxRSSBytes            int64         `json:"maxRssBytes"`
	Parallelism            int           `json:"parallelism"`
	Rate                   int64         `json:"rate"`
	OutOfOrderGroup        int64         `json:"outOfOrderGroup"`
	Seed                   int64         `json:"seed"`
	Oracle                 *oracleResult `json:"oracle,omitempty"`
	// SQL is set when the query was planned from its SQL text.
	SQL bool `json:"sql,omitempty"`
	// Source is where the events came from: generator or parquet.
	Source string `json:"source"`
	// Cost is the query's cost report over the run (its progress events'
	// CPU time, per operator too), sized for --input-rate or the run's
	// events per second.
	Cost *exec.RunCost `json:"cost,omitempty"`
}

type oracleResult struct {
	OK       bool   `json:"ok"`
	Rows     int64  `json:"rows"`
	Checksum string `json:"checksum"`
}

func (r benchResult) oracleLine() string {
	switch o := r.Oracle; {
	case o == nil:
		return "oracle: skipped"
	case o.OK:
		return fmt.Sprintf("oracle: ok (rows %d, checksum %s)", o.Rows, o.Checksum)
	default:
		return fmt.Sprintf("oracle: MISMATCH (engine rows %d checksum %s, oracle rows %d checksum %s)", r.OutputRows, r.Checksum, o.Rows, o.Checksum)
	}
}

func selectQueries(list string) ([]nexmark.Query, error) {
	if list == "" || list == "all" {
		return nexmark.Queries, nil
	}
	var qs []nexmark.Query
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		q, ok := nexmark.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown query %q (implemented: %s)", name, queryNames())
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// withSQL keeps the queries that have SQL text; a query without one is an
// error unless all is set (--query all: run those that have).
func withSQL(qs []nexmark.Query, all bool) ([]nexmark.Query, error) {
	var out []nexmark.Query
	for _, q := range qs {
		if _, ok := nexmark.SQL(q.Name); ok {
			out = append(out, q)
		} else if !all {
			return nil, fmt.Errorf("--sql: %s has no SQL text yet (have: %s)", q.Name, strings.Join(nexmark.SQLNames(), ", "))
		}
	}
	return out, nil
}

func runNexmark(ctx context.Context, stdout, stderr io.Writer, f nexmarkFlags) error {
	if f.cpuProfile != "" {
		out, err := os.Create(f.cpuProfile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(out); err != nil {
			out.Close()
			return fmt.Errorf("--cpuprofile %s: %w", f.cpuProfile, err)
		}
		defer func() {
			pprof.StopCPUProfile()
			out.Close()
		}()
	}
	if f.format != "table" && f.format != "json" {
		return fmt.Errorf("--format %q: want table or json", f.format)
	}
	if f.events <= 0 {
		return fmt.Errorf("--events %d: want a positive count", f.events)
	}
	qs, err := selectQueries(f.queries)
	if err != nil {
		return err
	}
	if f.sql {
		if qs, err = withSQL(qs, f.queries == "" || f.queries == "all"); err != nil {
			return err
		}
	}
	switch f.source {
	case "", "generator":
		f.source = "generator"
		if f.path != "" {
			return fmt.Errorf("--path %q is for --source parquet", f.path)
		}
	case "parquet":
		if f.path == "" {
			return fmt.Errorf("--source parquet needs --path, the directory bench/compare/export wrote")
		}
		if f.sql {
			return fmt.Errorf("--source parquet plans the queries with the Go API; drop --sql")
		}
		m, err := readExportManifest(f.path)
		if err != nil {
			return err
		}
		// the oracle's generator must be the export's
		f.events, f.seed, f.rate, f.ooo = m.Events, m.Seed, m.Rate, max(m.OutOfOrder, 1)
	default:
		return fmt.Errorf("--source %q: want generator or parquet", f.source)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	ob, err := f.obs.open(stderr)
	if err != nil {
		return err
	}
	defer ob.close()
	par := f.parallelism
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	cfg := nexmark.Config{
		Events: f.events, Rate: f.rate, OutOfOrderGroup: f.ooo, NumPartitions: par,
		MaxEventsPerTrigger: f.perTrigger, Seed: f.seed,
	}
	var results []benchResult
	failed := 0
	for _, q := range qs {
		r, err := runOneNexmark(ctx, stderr, q, cfg, par, f, ob)
		if err != nil {
			return err
		}
		if r.Oracle != nil && !r.Oracle.OK {
			failed++
		}
		results = append(results, r)
		if f.format == "table" {
			fmt.Fprintf(stderr, "%s: %.0f events/s, %s\n", q.Name, r.EventsPerSecond, r.oracleLine())
		}
	}
	if f.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return err
		}
	} else {
		printNexmarkTable(stdout, results)
	}
	if failed > 0 {
		return fmt.Errorf("nexmark: %d of %d queries do not match their oracle", failed, len(results))
	}
	return nil
}

func runOneNexmark(ctx context.Context, stderr io.Writer, q nexmark.Query, cfg nexmark.Config, par int, f nexmarkFlags, ob *observer) (benchResult, error) {
	cfg = q.Configure(cfg)
	g := nexmark.NewGenerator(cfg)
	var total int64
	for _, k := range q.Inputs {
		total += g.Count(k, cfg.Events)
	}
	bar := newProgressListener(stderr, total, "nexmark "+q.Name, !f.quiet)
	runtime.GC() // the previous query's garbage is not this one's memory
	peak := startHeapSampler()
	cpu0 := processCPUSeconds()
	start := time.Now()
	var query *millrace.Query
	opts := nexmark.RunOptions{Parallelism: par, Listeners: []millrace.Listener{bar}, SQL: f.sql,
		Options: []millrace.QueryOption{ob.apply}, Started: func(q *millrace.Query) { query = q }}
	if f.source == "parquet" {
		in, err := parquetInputs(f.path, q, f.filesPerTrigger)
		if err != nil {
			return benchResult{}, err
		}
		opts.Inputs = in
	}
	res, err := nexmark.Run(ctx, q, cfg, opts)
	wall := time.Since(start).Seconds()
	cpu := processCPUSeconds() - cpu0
	heap := peak()
	if err != nil {
		return benchResult{}, err
	}
	r := benchResult{
		Query: q.Name, Events: cfg.Events, InputRows: bar.in.Load(), OutputRows: res.Rows,
		Checksum: fmt.Sprintf("%016x", res.Checksum), WallSeconds: wall, CPUSeconds: cpu,
		EventsPerSecond: float64(cfg.Events) / wall, PeakHeapBytes: heap, MaxRSSBytes: maxRSS(),
		Parallelism: par, Rate: g.Config().Rate, OutOfOrderGroup: g.Config().OutOfOrderGroup, Seed: cfg.Seed, SQL: f.sql,
		Source: f.source,
	}
	if wall > 0 {
		r.Cores = cpu / wall
	}
	if query != nil {
		c := ob.runCost(query.CostTotals(), wall)
		r.Cost = &c
	}
	if cpu > 0 {
		r.EventsPerSecondPerCore = float64(cfg.Events) / cpu
	}
	if !f.noCheck {
		want := q.Oracle(g, cfg.Events)
		r.Oracle = &oracleResult{OK: want == res, Rows: want.Rows, Checksum: fmt.Sprintf("%016x", want.Checksum)}
	}
	return r, nil
}

func printNexmarkTable(w io.Writer, rs []benchResult) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "QUERY\tEVENTS\tWALL s\tCORES\tEVENTS/s\tEVENTS/s/CORE\tPEAK HEAP MiB\tMAX RSS MiB\tOUTPUT ROWS\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t\n", r.Query, r.Events, r.WallSeconds, r.Cores,
			r.EventsPerSecond, r.EventsPerSecondPerCore, float64(r.PeakHeapBytes)/(1<<20), float64(r.MaxRSSBytes)/(1<<20), r.OutputRows)
	}
	tw.Flush()
	for _, r := range rs {
		fmt.Fprintf(w, "%s %s\n", r.Query, r.oracleLine())
	}
	for _, r := range rs {
		if c := r.Cost; c != nil {
			line := fmt.Sprintf("%s cost: %.3f CPU s per million input rows; %.2f cores for %.0f rows/s with %.0f %% headroom",
				r.Query, c.CPUSecondsPerMillionRows, c.CoresNeeded, c.InputRowsPerSecond, 100*c.Headroom)
			if c.CoreHourPrice > 0 {
				line += fmt.Sprintf(", %.4g per hour, %.4g per million rows", c.CostPerHour, c.CostPerMillionRows)
			}
			fmt.Fprintln(w, line)
		}
	}
}

// processCPUSeconds is the process's user + system CPU time.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// maxRSS is the process's peak resident set (Linux reports KiB).
func maxRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

// startHeapSampler samples the Go heap in use every 10 ms until the
// returned function is called, which returns the peak.
func startHeapSampler() func() uint64 {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	read := func() uint64 {
		metrics.Read(samples)
		var n uint64
		for _, s := range samples {
			if s.Value.Kind() == metrics.KindUint64 {
				n += s.Value.Uint64()
			}
		}
		return n
	}
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		v := read()
		mu.Lock()
		defer mu.Unlock()
		return max(peak, v)
	}
}
