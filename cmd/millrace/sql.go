package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/millrace/millrace"
	_ "github.com/millrace/millrace/catalog/builtin" // kafka, kinesis, delta, parquet, json, csv, jdbc, rate, socket tables
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks/console"
	"github.com/peterh/liner"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

type sqlFlags struct {
	exec       string
	file       string
	checkpoint string
	trigger    string
	outputMode string
	rows       int
	truncate   int
	obs        obsFlags
}

func newSQLCmd() *cobra.Command {
	f := sqlFlags{}
	cmd := &cobra.Command{
		Use:   "sql",
		Short: "Run Spark SQL statements over streams: declare tables, INSERT INTO them, query them",
		Long: `sql runs Spark SQL: CREATE TABLE … USING kafka|kinesis|delta|parquet|json|csv|jdbc|rate|socket
declares a table (a source to read and a sink to write), INSERT INTO table SELECT …
starts a streaming query writing it, a SELECT prints its streaming results as the
console sink does, EXPLAIN [EXTENDED] shows the plan (stateful operators, their keys,
the watermark, state partitions), SET sets session settings. The watermark is
declared with Spark's clause: FROM t WATERMARK ts DELAY OF INTERVAL 10 SECONDS.

Statements come from -e, from -f FILE, or from an interactive prompt with line
editing and history (statements end with ';'; piped standard input is read as a
script). A query runs until Ctrl-C stops it gracefully, or with --trigger
available-now (or once) to the end of its input; the next statement then runs.`,
		Example: `  millrace sql -e "CREATE TABLE r USING rate OPTIONS (rowsPerSecond 5); SELECT * FROM r"
  millrace sql --trigger available-now --checkpoint /tmp/ckpt -e "
    CREATE TABLE clicks USING kafka OPTIONS (kafka.bootstrap.servers 'localhost:9092',
      subscribe 'clicks', startingOffsets 'earliest');
    CREATE TABLE counts USING delta LOCATION '/tmp/counts';
    INSERT INTO counts
    SELECT window(timestamp, '10 seconds') AS window, count(*) AS clicks
    FROM clicks WATERMARK timestamp DELAY OF INTERVAL 10 SECONDS
    GROUP BY window(timestamp, '10 seconds')"
  millrace sql -f pipeline.sql
  millrace sql                               # interactive`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSQL(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.exec, "execute", "e", "", "SQL statements to run (separated by ';')")
	fl.StringVarP(&f.file, "file", "f", "", "file of SQL statements to run")
	fl.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint location: each INSERT INTO keeps its checkpoint in DIR/<table> (spark.sql.streaming.checkpointLocation)")
	fl.StringVar(&f.trigger, "trigger", "", "trigger of each query: available-now, once, or an interval such as 10s (default: as fast as possible, until Ctrl-C)")
	fl.StringVar(&f.outputMode, "output-mode", "", "output mode: append (default), update or complete")
	fl.IntVar(&f.rows, "rows", 20, "rows a SELECT prints per batch")
	fl.IntVar(&f.truncate, "truncate", 20, "longest cell a SELECT prints (negative: no truncation)")
	f.obs.register(fl)
	return cmd
}

func runSQL(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, f sqlFlags) error {
	if f.exec != "" && f.file != "" {
		return errors.New("sql: give -e or -f, not both")
	}
	se := millrace.NewSession()
	for _, s := range []struct{ key, value string }{
		{millrace.SettingCheckpointLocation, f.checkpoint},
		{millrace.SettingTrigger, f.trigger},
		{millrace.SettingOutputMode, f.outputMode},
	} {
		if s.value == "" {
			continue
		}
		if err := se.Set(s.key, s.value); err != nil {
			return fmt.Errorf("sql: %w", err)
		}
	}
	ob, err := f.obs.open(stderr)
	if err != nil {
		return err
	}
	defer ob.close()
	se.QueryOptions(ob.apply)
	r := &sqlRunner{se: se, out: stdout, errOut: stderr, rows: f.rows, truncate: f.truncate, ob: ob}
	switch {
	case f.exec != "":
		err = r.script(ctx, f.exec)
	case f.file != "":
		text, rerr := os.ReadFile(f.file)
		if rerr != nil {
			return fmt.Errorf("sql: %w", rerr)
		}
		if err = r.script(ctx, string(text)); err != nil && err != errInterrupted {
			err = fmt.Errorf("%s: %w", f.file, err)
		}
	default:
		if file, ok := stdin.(*os.File); !ok || !term.IsTerminal(int(file.Fd())) {
			text, rerr := io.ReadAll(stdin)
			if rerr != nil {
				return fmt.Errorf("sql: reading standard input: %w", rerr)
			}
			err = r.script(ctx, string(text))
		} else {
			err = r.interactive(ctx)
		}
	}
	if err == errInterrupted { // Ctrl-C stopped a query: a graceful end
		return nil
	}
	return err
}

// sqlRunner runs statements in one session and prints their results.
type sqlRunner struct {
	se          *millrace.Session
	out, errOut io.Writer
	rows        int
	truncate    int
	atPrompt    bool // at the interactive prompt: acknowledge DDL with OK
	ob          *observer
}

// script runs the statements of text, each to its end (or until Ctrl-C)
// before the next.
func (r *sqlRunner) script(ctx context.Context, text string) error {
	return r.se.ExecScript(ctx, text, func(res *millrace.Result) error { return r.show(ctx, res) })
}

// show prints a statement's result; for a query, it runs it to its end or
// until Ctrl-C, which stops it gracefully.
func (r *sqlRunner) show(ctx context.Context, res *millrace.Result) error {
	switch {
	case res.Stream != nil:
		sink, err := console.New(console.Options{Writer: r.out, NumRows: r.rows, Truncate: r.truncate})
		if err != nil {
			return err
		}
		mode, _ := r.se.Setting(millrace.SettingOutputMode)
		m := millrace.Append
		switch strings.ToLower(mode) {
		case "update":
			m = millrace.Update
		case "complete":
			m = millrace.Complete
		}
		trig, _ := r.se.Setting(millrace.SettingTrigger)
		tr, err := millrace.ParseTrigger(trig)
		if err != nil {
			return err
		}
		w := res.Stream.WriteStream(sink).OutputMode(m).Trigger(tr)
		if r.ob != nil {
			w = r.ob.apply(w)
		}
		q, err := w.Start(ctx)
		if err != nil {
			return fmt.Errorf("sql: %w", err)
		}
		return r.await(ctx, q, "")
	case res.Query != nil:
		return r.await(ctx, res.Query, res.Table)
	case res.Text != "":
		fmt.Fprintln(r.out, strings.TrimRight(res.Text, "\n"))
	case r.atPrompt:
		fmt.Fprintln(r.out, "OK")
	}
	return nil
}

// await waits for q to end; Ctrl-C stops it (the checkpoint keeps its
// progress) and is not an error.
func (r *sqlRunner) await(ctx context.Context, q *millrace.Query, table string) error {
	sctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- q.AwaitTermination(context.Background()) }()
	var err error
	select {
	case err = <-done:
	case <-sctx.Done():
		_ = q.Stop()
		err = <-done
		fmt.Fprintln(r.errOut, "stopped")
		if err == nil || errors.Is(err, exec.ErrStopped) {
			err = errInterrupted
		}
	}
	if errors.Is(err, exec.ErrStopped) {
		err = nil
	}
	if table != "" {
		sum := q.Summary()
		fmt.Fprintf(r.errOut, "INSERT INTO %s: %d rows read, %d rows written in %d batches\n", table, sum.NumInputRows, sum.NumOutputRows, sum.Batches)
	}
	if r.ob != nil && (err == nil || err == errInterrupted) { // a failed query has its error to show

		what := "the query"
		if table != "" {
			what = "INSERT INTO " + table
		}
		printCost(r.errOut, what, r.ob.runCost(q.CostTotals(), time.Since(start).Seconds()))
	}
	if err != nil && err != errInterrupted {
		return fmt.Errorf("sql: query failed: %w", err)
	}
	return err
}

// errInterrupted ends a script whose query Ctrl-C stopped: the statements
// after it do not run (at the prompt, the next one is read).
var errInterrupted = errors.New("interrupted")

// interactive reads statements at a prompt with line editing and history
// (kept in the user's config directory), running each as it ends with ';'.
func (r *sqlRunner) interactive(ctx context.Context) error {
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	hist := ""
	if dir, err := os.UserConfigDir(); err == nil {
		hist = filepath.Join(dir, "millrace", "sql_history")
		if f, err := os.Open(hist); err == nil {
			_, _ = ln.ReadHistory(f)
			f.Close()
		}
	}
	defer func() {
		if hist == "" {
			return
		}
		if err := os.MkdirAll(filepath.Dir(hist), 0o755); err != nil {
			return
		}
		if f, err := os.Create(hist); err == nil {
			_, _ = ln.WriteHistory(f)
			f.Close()
		}
	}()
	return r.prompt(ctx, ln)
}

// prompter is the line editor the prompt reads from (liner's State; tests
// give lines of their own).
type prompter interface {
	Prompt(prompt string) (string, error)
	AppendHistory(item string)
}

// prompt reads statements until exit, quit or end of input, running each
// when a line ends it with ';'. Ctrl-C at the prompt drops the statement
// being typed; an error is printed and the prompt goes on.
func (r *sqlRunner) prompt(ctx context.Context, ln prompter) error {
	r.atPrompt = true
	fmt.Fprintln(r.out, "millrace sql: end statements with ';', leave with exit or Ctrl-D")
	var buf strings.Builder
	for {
		prompt := "millrace> "
		if buf.Len() > 0 {
			prompt = "       -> "
		}
		line, err := ln.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			buf.Reset()
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(r.out)
			return nil
		case err != nil:
			return fmt.Errorf("sql: %w", err)
		}
		t := strings.TrimSpace(line)
		if buf.Len() == 0 && (strings.EqualFold(strings.TrimSuffix(t, ";"), "exit") || strings.EqualFold(strings.TrimSuffix(t, ";"), "quit")) {
			return nil
		}
		if t == "" && buf.Len() == 0 {
			continue
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !strings.HasSuffix(t, ";") {
			continue
		}
		text := buf.String()
		buf.Reset()
		ln.AppendHistory(strings.TrimSpace(text))
		if err := r.script(ctx, text); err != nil && err != errInterrupted {
			fmt.Fprintln(r.errOut, err)
		}
	}
}
