package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/millrace/millrace/exec"
	"github.com/spf13/cobra"
)

func newProgressCmd() *cobra.Command {
	var f obsFlags
	var format string
	cmd := &cobra.Command{
		Use:   "progress FILE",
		Short: "Summarise a query's progress log: batches, rates, backlog, cost and the cores it needs",
		Long: `progress reads a progress log (--progress-log FILE of demo, sql and bench, or
StreamWriter.ProgressLog) while the query runs or after, and shows the latest
run of the latest query in it: its batches, rows, watermark, recent input and
processing rates, each source's backlog, whether it keeps up, and its cost
report — CPU seconds per million input rows in all and per operator, state memory,
the cores needed for the recent input rate (or --input-rate) with --headroom,
and with --core-hour-price what they cost per hour and per million rows.`,
		Example: `  millrace sql --progress-log /var/log/millrace/clicks.jsonl -f pipeline.sql &
  millrace progress /var/log/millrace/clicks.jsonl --core-hour-price 0.04
  millrace progress --format json /var/log/millrace/clicks.jsonl | jq .cost.coresNeeded`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ps, err := readProgress(args[0])
			if err != nil {
				return err
			}
			return showProgress(cmd.OutOrStdout(), args[0], ps, f, format)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "text", "output format: text or json")
	fl.Float64Var(&f.price, "core-hour-price", 0, "price of one core for an hour")
	fl.Float64Var(&f.headroom, "headroom", exec.DefaultCostHeadroom, "spare capacity to size cores with (0.25: 25 %)")
	fl.Float64Var(&f.inputRate, "input-rate", 0, "input rate (rows/s) to size cores for (0: the recent input rate)")
	return cmd
}

// readProgress reads the events of the last run in a progress log; a
// last line cut short (the query is writing it) is skipped.
func readProgress(path string) ([]*exec.Progress, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("progress log: %w", err)
	}
	defer file.Close()
	var ps []*exec.Progress
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 64<<20)
	line := 0
	var bad error
	for sc.Scan() {
		line++
		if bad != nil { // only the last line may be partial
			return nil, bad
		}
		p := &exec.Progress{}
		if err := json.Unmarshal(sc.Bytes(), p); err != nil {
			bad = fmt.Errorf("progress log %s: line %d is not a progress event (%v): is this a --progress-log file?", path, line, err)
			continue
		}
		if len(ps) > 0 && p.RunID != ps[len(ps)-1].RunID {
			ps = ps[:0] // a later run (or query) starts over
		}
		ps = append(ps, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("progress log %s: %w", path, err)
	}
	if len(ps) == 0 {
		if bad != nil {
			return nil, bad
		}
		return nil, fmt.Errorf("progress log %s holds no progress event yet", path)
	}
	return ps, nil
}

// progressReport is the JSON form of progress's output.
type progressReport struct {
	Query                     string         `json:"query"`
	ID                        string         `json:"id"`
	RunID                     string         `json:"runId"`
	Batches                   int64          `json:"batches"`
	DataBatches               int64          `json:"dataBatches"`
	FirstBatchID              int64          `json:"firstBatchId"`
	LastBatchID               int64          `json:"lastBatchId"`
	NumInputRows              int64          `json:"numInputRows"`
	NumOutputRows             int64          `json:"numOutputRows"`
	NumRowsDroppedByWatermark int64          `json:"numRowsDroppedByWatermark"`
	Watermark                 string         `json:"watermark,omitempty"`
	Cost                      exec.RunCost   `json:"cost"`
	Last                      *exec.Progress `json:"lastProgress"`
}

func showProgress(w io.Writer, path string, ps []*exec.Progress, f obsFlags, format string) error {
	last := ps[len(ps)-1]
	sum := exec.Summarize(ps)
	rate := f.inputRate
	if rate == 0 && last.Cost != nil {
		rate = last.Cost.RecentInputRowsPerSecond
	}
	cost := exec.SummarizeCost(ps).RunCost(rate, f.headroom, f.price)
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(progressReport{Query: last.Name, ID: last.ID, RunID: last.RunID, Batches: sum.Batches, DataBatches: sum.DataBatches,
			FirstBatchID: sum.FirstBatchID, LastBatchID: sum.LastBatchID, NumInputRows: sum.NumInputRows, NumOutputRows: sum.NumOutputRows,
			NumRowsDroppedByWatermark: sum.NumRowsDroppedByWatermark, Watermark: sum.Watermark, Cost: cost, Last: last})
	case "text":
	default:
		return fmt.Errorf("unknown --format %q: use text or json", format)
	}
	fmt.Fprintf(w, "Progress log %s\n", path)
	fmt.Fprintf(w, "  query:          %s (id %s, run %s)\n", last.Name, last.ID, last.RunID)
	fmt.Fprintf(w, "  batches:        %d to %d (%d with input), last at %s\n", sum.FirstBatchID, sum.LastBatchID, sum.DataBatches, last.Timestamp)
	fmt.Fprintf(w, "  rows:           %d in, %d out, %d dropped as late\n", sum.NumInputRows, sum.NumOutputRows, sum.NumRowsDroppedByWatermark)
	if sum.Watermark != "" {
		fmt.Fprintf(w, "  watermark:      %s\n", sum.Watermark)
	}
	if c := last.Cost; c != nil {
		fmt.Fprintf(w, "  recent rates:   %.0f rows/s in, %.0f rows/s processed\n", c.RecentInputRowsPerSecond, c.RecentProcessedRowsPerSecond)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  SOURCE\tROWS (LAST BATCH)\tBACKLOG")
	for _, s := range last.Sources {
		bl := "-"
		if s.Backlog != nil {
			bl = fmt.Sprintf("%d %s", *s.Backlog, s.BacklogUnit)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", s.Description, s.NumInputRows, bl)
	}
	tw.Flush()
	printCost(w, "the run so far", cost)
	return nil
}
