package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/state"
)

func newCheckpointCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "Inspect query checkpoints",
	}
	var format string
	var last int
	inspect := &cobra.Command{
		Use:   "inspect DIR",
		Short: "Show a checkpoint's batches, offsets, watermark and state",
		Long: `inspect reads a checkpoint directory without changing it and shows the query id,
the batches in the offsets and commit logs (offsets, watermark, timestamp), what a
restart would do next, and the rows and bytes of state per operator and partition.
The state part needs the query to be stopped (the store is locked while it runs).
A path that holds no checkpoint (an empty directory, a Delta table) is an error; a
damaged file of an old batch, which a restart never reads, is shown as a warning.`,
		Example: `  millrace checkpoint inspect /var/lib/millrace/clicks
  millrace checkpoint inspect --format json /var/lib/millrace/clicks | jq .state`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := exec.Inspect(args[0])
			if err != nil {
				return err
			}
			switch format {
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			case "text":
				printReport(cmd.OutOrStdout(), r, r.StateRows, last)
				return nil
			}
			return fmt.Errorf("unknown --format %q: use text or json", format)
		},
	}
	inspect.Flags().StringVar(&format, "format", "text", "output format: text or json")
	inspect.Flags().IntVar(&last, "last", 10, "batches to show (text format)")
	cmd.AddCommand(inspect)
	return cmd
}

func printReport(w io.Writer, r exec.Report, parts []exec.PartitionState, last int) {
	fmt.Fprintf(w, "Checkpoint %s\n", r.Path)
	if r.Metadata != nil {
		fmt.Fprintf(w, "  query id:          %s\n", r.Metadata.ID)
		fmt.Fprintf(w, "  state partitions:  %d\n", r.Metadata.NumStatePartitions)
	}
	if r.Sink != nil {
		fmt.Fprintf(w, "  sink:              %s (id %s)\n", r.Sink.Location, r.Sink.ID)
	}
	fmt.Fprintf(w, "  latest offsets:    batch %d\n", r.LatestOffsetsBatchID)
	fmt.Fprintf(w, "  latest commit:     batch %d\n", r.LatestCommitBatchID)
	next := "runs batch %d"
	if r.Rerun {
		next = "re-runs uncommitted batch %d with its recorded offsets"
	}
	fmt.Fprintf(w, "  on restart:        "+next+"\n", r.NextBatchID)
	fmt.Fprintf(w, "  next watermark:    %s\n", msTime(r.WatermarkMs))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tCOMMITTED\tWATERMARK\tTIMESTAMP\tOFFSETS")
	batches := r.Batches
	if last > 0 && len(batches) > last {
		batches = batches[len(batches)-last:]
	}
	for _, b := range batches {
		if b.Error != "" {
			fmt.Fprintf(tw, "%d\t%v\t?\t?\tunreadable (see warnings)\n", b.BatchID, b.Committed)
			continue
		}
		var offs []string
		for _, o := range b.Offsets {
			offs = append(offs, string(o))
		}
		fmt.Fprintf(tw, "%d\t%v\t%s\t%s\t%s\n", b.BatchID, b.Committed, msTime(b.BatchWatermarkMs), msTime(b.BatchTimestampMs), strings.Join(offs, " "))
	}
	_ = tw.Flush()
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w)
	}
	for _, msg := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	if rs := r.RemoteState; rs != nil {
		fmt.Fprintf(w, "\nState durable copy %s at batch %d (%d deltas, snapshots at %v); rows are counted for local checkpoints only\n",
			rs.Location, rs.Version, len(rs.Deltas), rs.Snapshots)
		return
	}
	if r.State == nil {
		fmt.Fprintln(w, "\nNo state (a stateless query).")
		return
	}
	fmt.Fprintf(w, "\nState store %s at batch %d (%d store entries: per-partition snapshots and deltas)\n", r.State.Dir, r.State.Version, storeEntries(r))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATOR\tPARTITION\tROWS\tBYTES")
	byOp := map[int][2]int64{}
	for _, p := range parts {
		t := byOp[p.Operator]
		byOp[p.Operator] = [2]int64{t[0] + p.Rows, t[1] + p.Bytes}
	}
	for op, t := range byOp {
		fmt.Fprintf(tw, "%d\tall\t%d\t%d\n", op, t[0], t[1])
	}
	for _, p := range parts {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\n", p.Operator, p.Partition, p.Rows, p.Bytes)
	}
	_ = tw.Flush()
}

func storeEntries(r exec.Report) int64 {
	var n int64
	for _, op := range r.State.Operators {
		if op.OperatorID != state.MaxOperator {
			n += op.NumRowsTotal
		}
	}
	return n
}

func msTime(ms int64) string {
	if ms == 0 {
		return "0"
	}
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
