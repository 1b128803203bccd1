package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/ui"
	"github.com/spf13/pflag"
)

// obsFlags are the logging, progress-log, cost and web UI flags of the commands
// that run queries (demo, sql, bench nexmark).
type obsFlags struct {
	logFormat   string
	logLevel    string
	progressLog string
	price       float64
	headroom    float64
	inputRate   float64
	ui          string // --ui: the web UI's address (ui.go)
}

func (o *obsFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&o.logFormat, "log-format", "text", "log format: text or json (log/slog)")
	fl.StringVar(&o.logLevel, "log-level", "warn", "log level: debug, info (one line per batch), warn (what an operator must know) or error")
	fl.StringVar(&o.progressLog, "progress-log", "", "append each progress event (with its cost report) to this file as one line of JSON")
	fl.Float64Var(&o.price, "core-hour-price", 0, "price of one core for an hour: the cost report then gives the cost per hour and per million events")
	fl.Float64Var(&o.headroom, "headroom", exec.DefaultCostHeadroom, "spare capacity the cost report sizes cores with (0.25: 25 % above the average need)")
	fl.Float64Var(&o.inputRate, "input-rate", 0, "input rate (rows/s) the cost report sizes cores for (0: the observed rate)")
	addUIFlag(fl, &o.ui)
}

// observer is what obsFlags set up: the logger (also slog's default, for
// the packages that log there) and the progress log.
type observer struct {
	f      obsFlags
	logger *slog.Logger
	plog   *os.File
	prev   *slog.Logger
	ui     *ui.Server // --ui, nil without
}

// open sets up logging to stderr and opens the progress log; close undoes
// both.
func (o obsFlags) open(stderr io.Writer) (*observer, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", o.logLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch strings.ToLower(o.logFormat) {
	case "text", "":
		h = slog.NewTextHandler(stderr, opts)
	case "json":
		h = slog.NewJSONHandler(stderr, opts)
	default:
		return nil, fmt.Errorf("--log-format %q: want text or json", o.logFormat)
	}
	if o.headroom < 0 {
		return nil, fmt.Errorf("--headroom %g: want 0 or more", o.headroom)
	}
	if o.price < 0 || o.inputRate < 0 {
		return nil, fmt.Errorf("--core-hour-price and --input-rate cannot be negative")
	}
	ob := &observer{f: o, logger: slog.New(h), prev: slog.Default()}
	if o.progressLog != "" {
		f, err := os.OpenFile(o.progressLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--progress-log: %w", err)
		}
		ob.plog = f
	}
	srv, err := startUI(o.ui, stderr)
	if err != nil {
		if ob.plog != nil {
			ob.plog.Close()
		}
		return nil, err
	}
	ob.ui = srv
	slog.SetDefault(ob.logger)
	return ob, nil
}

func (ob *observer) close() error {
	slog.SetDefault(ob.prev)
	if ob.ui != nil {
		ob.ui.Close()
	}
	if ob.plog != nil {
		if err := ob.plog.Close(); err != nil {
			return fmt.Errorf("--progress-log %s: %w", ob.f.progressLog, err)
		}
	}
	return nil
}

// headroom is the flag as the engine takes it (0 there means the
// default; negative none).
func (ob *observer) headroom() float64 {
	if ob.f.headroom == 0 {
		return -1
	}
	return ob.f.headroom
}

// apply sets the logger, the progress log, the cost settings and the web
// UI on w.
func (ob *observer) apply(w *millrace.StreamWriter) *millrace.StreamWriter {
	w = w.Logger(ob.logger).CoreHourPrice(ob.f.price).CostHeadroom(ob.headroom()).CostInputRate(ob.f.inputRate)
	if ob.plog != nil {
		w = w.ProgressLog(ob.plog)
	}
	if ob.ui != nil {
		w = w.Monitor(ob.ui)
	}
	return w
}

// runCost sizes a finished run: for the --input-rate, or the run's own
// average rate (rows over wall seconds).
func (ob *observer) runCost(t exec.CostTotals, wallSeconds float64) exec.RunCost {
	rate := ob.f.inputRate
	if rate == 0 && wallSeconds > 0 {
		rate = float64(t.InputRows) / wallSeconds
	}
	return t.RunCost(rate, ob.f.headroom, ob.f.price)
}

// printCost writes a run's cost report: CPU per million rows in all and
// per operator, state memory, whether it keeps up, and the cores (and
// money) the input rate needs.
func printCost(w io.Writer, what string, c exec.RunCost) {
	fmt.Fprintf(w, "\nCost of %s: %.3f CPU s for %d input rows, %.3f CPU s per million rows (process CPU time)\n",
		what, c.CPUSeconds, c.InputRows, c.CPUSecondsPerMillionRows)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  OPERATOR\tCPU s\tCPU s / M rows\tSTATE MEMORY")
	for _, o := range c.Operators {
		mem := ""
		if o.MemoryUsedBytes > 0 {
			mem = fmt.Sprintf("%.1f MiB", float64(o.MemoryUsedBytes)/(1<<20))
		}
		fmt.Fprintf(tw, "  %s\t%.3f\t%.3f\t%s\n", o.Name, o.CPUSeconds, o.CPUSecondsPerMillionRows, mem)
	}
	tw.Flush()
	keeps := "keeps up"
	if !c.KeepsUp {
		keeps = "does NOT keep up"
	}
	if c.KeepsUpReason != "" {
		keeps += " (" + c.KeepsUpReason + ")"
	}
	fmt.Fprintf(w, "The query %s.\n", keeps)
	fmt.Fprintf(w, "Cores needed for %.0f rows/s with %.0f %% headroom: %.2f\n", c.InputRowsPerSecond, 100*c.Headroom, c.CoresNeeded)
	if c.CoreHourPrice > 0 {
		fmt.Fprintf(w, "At %g per core-hour: %.4g per hour, %.4g per million rows\n", c.CoreHourPrice, c.CostPerHour, c.CostPerMillionRows)
	}
}
