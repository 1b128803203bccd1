package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/millrace/millrace/lake"
	"github.com/spf13/cobra"
)

// newDeltaCmd is `millrace delta`: inspect and maintain Delta Lake tables
// with package lake. The read subcommand is in delta_read.go.
func newDeltaCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delta",
		Short: "Inspect, read and maintain Delta Lake tables",
		Long: `delta works on a Delta Lake table (Parquet files plus the _delta_log
transaction log) in a local directory or on S3-compatible object storage
(s3://bucket/prefix or s3a://…), whoever wrote it: Millrace's Delta sink, Spark
or delta-rs. history, files and read never change the table; optimize and
vacuum do. S3 credentials and region come from the standard AWS chain;
MILLRACE_S3_ENDPOINT names an S3-compatible server (path-style addressing).`,
		Example: `  millrace delta history /data/clicks
  millrace delta read --format csv s3://lake/tables/clicks
  millrace delta files --version 3 /data/clicks
  millrace delta read --where "campaign = c7" --format csv /data/clicks
  millrace delta optimize /data/clicks
  millrace delta vacuum --dry-run /data/clicks`,
	}
	cmd.AddCommand(newDeltaHistoryCmd(), newDeltaFilesCmd(), newDeltaReadCmd(),
		newDeltaOptimizeCmd(), newDeltaVacuumCmd())
	return cmd
}

// openTable opens the table at path, explaining the common failures.
func openTable(path string, opts lake.Options) (*lake.Table, error) {
	t, err := lake.Open(path, opts)
	if err != nil {
		return nil, tableErr(path, err)
	}
	return t, nil
}

// openTableAsOf opens the table at path for reading; asOf says the user
// asked for a version or time, which is then the only one loaded, so that
// errors name it and a later version millrace cannot read does not stop
// the read of an earlier one.
func openTableAsOf(path string, asOf bool) (*lake.Table, error) {
	if !asOf {
		return openTable(path, lake.Options{})
	}
	t, err := lake.OpenLog(path, lake.Options{})
	if err != nil {
		return nil, tableErr(path, err)
	}
	return t, nil
}

// tableErr adds a hint to the lake errors a user can act on. lake's
// messages already name the table and, for versions, the latest one.
func tableErr(path string, err error) error {
	switch {
	case errors.Is(err, lake.ErrUnsupported):
		return fmt.Errorf("table %s uses a Delta feature millrace does not support: %w", path, err)
	case errors.Is(err, lake.ErrVersionNotFound):
		return fmt.Errorf("%w (`millrace delta history %s` lists the versions)", err, path)
	}
	return err
}

// snapshotAt returns the latest snapshot, or the one at version when
// versionSet. A negative version is rejected instead of meaning "latest".
func snapshotAt(t *lake.Table, path string, version int64, versionSet bool) (*lake.Snapshot, error) {
	if !versionSet {
		s, err := t.Snapshot()
		return s, tableErrOrNil(path, err)
	}
	if version < 0 {
		return nil, fmt.Errorf("--version %d: a table version is 0 or more", version)
	}
	s, err := t.SnapshotAt(version)
	return s, tableErrOrNil(path, err)
}

func tableErrOrNil(path string, err error) error {
	if err == nil {
		return nil
	}
	return tableErr(path, err)
}

func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return fmt.Errorf("unknown --format %q: use %s", format, strings.Join(allowed, ", "))
}

// historyJSON is one version in `delta history --format json`.
type historyJSON struct {
	Version             int64          `json:"version"`
	Timestamp           string         `json:"timestamp"`
	TimestampMs         int64          `json:"timestampMs"`
	Operation           string         `json:"operation,omitempty"`
	OperationParameters map[string]any `json:"operationParameters,omitempty"`
	OperationMetrics    map[string]any `json:"operationMetrics,omitempty"`
	ReadVersion         *int64         `json:"readVersion,omitempty"`
	IsBlindAppend       *bool          `json:"isBlindAppend,omitempty"`
	EngineInfo          string         `json:"engineInfo,omitempty"`
}

func newDeltaHistoryCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "history TABLE",
		Short: "List the table's versions with their operation, parameters and metrics",
		Long: `history prints one line per version still in the log, newest first, like
DESCRIBE HISTORY: the version, the commit timestamp (UTC), the operation (WRITE,
STREAMING UPDATE, MERGE, OPTIMIZE, ...) and its parameters and metrics as
key=value pairs. A version whose commit has no commitInfo shows "-".`,
		Example: `  millrace delta history /data/clicks
  millrace delta history --format json /data/clicks | jq '.[0].operationMetrics'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			t, err := openTable(args[0], lake.Options{})
			if err != nil {
				return err
			}
			hist, err := t.History()
			if err != nil {
				return tableErr(args[0], err)
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				rows := make([]historyJSON, 0, len(hist))
				for _, h := range hist {
					r := historyJSON{Version: h.Version, Timestamp: msRFC3339(h.Timestamp), TimestampMs: h.Timestamp}
					if ci := h.Info; ci != nil {
						r.Operation, r.OperationParameters, r.OperationMetrics = ci.Operation, ci.OperationParameters, ci.OperationMetrics
						r.ReadVersion, r.IsBlindAppend, r.EngineInfo = ci.ReadVersion, ci.IsBlindAppend, ci.EngineInfo
					}
					rows = append(rows, r)
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tTIMESTAMP\tOPERATION\tPARAMETERS\tMETRICS")
			for _, h := range hist {
				op, params, metrics := "-", "-", "-"
				if ci := h.Info; ci != nil {
					op = ci.Operation
					params, metrics = summarize(ci.OperationParameters), summarize(ci.OperationMetrics)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", h.Version, msRFC3339(h.Timestamp), op, params, metrics)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// summarize renders a commitInfo map as sorted key=value pairs.
func summarize(m map[string]any) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := m[k]
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case nil:
			s = "null"
		default:
			b, err := json.Marshal(x)
			if err != nil {
				s = fmt.Sprint(x)
			} else {
				s = string(b)
			}
		}
		parts[i] = k + "=" + s
	}
	return strings.Join(parts, " ")
}

func msRFC3339(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// fileJSON is one data file in `delta files --format json`.
type fileJSON struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	Records *int64 `json:"records"`
	// DeletedRows are the rows of the data file a deletion vector deletes
	// (Records does not count them).
	DeletedRows      int64             `json:"deletedRows,omitempty"`
	PartitionValues  map[string]string `json:"partitionValues,omitempty"`
	ModificationTime string            `json:"modificationTime"`
}

// filesJSON is the output of `delta files --format json`.
type filesJSON struct {
	Version int64      `json:"version"`
	Files   []fileJSON `json:"files"`
}

func newDeltaFilesCmd() *cobra.Command {
	var format string
	var version int64
	cmd := &cobra.Command{
		Use:   "files TABLE",
		Short: "List the table's data files with size, record count and partition values",
		Long: `files prints the active data files of the latest version (or of --version N):
the path relative to the table root, the size in bytes, the record count from the
file's stats less the rows a deletion vector deletes ("?" when the writer recorded
none) and the partition values, then a total.`,
		Example: `  millrace delta files /data/clicks
  millrace delta files --version 0 --format json /data/clicks`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			t, err := openTableAsOf(args[0], cmd.Flags().Changed("version"))
			if err != nil {
				return err
			}
			s, err := snapshotAt(t, args[0], version, cmd.Flags().Changed("version"))
			if err != nil {
				return err
			}
			files := s.Files()
			rows := make([]fileJSON, len(files))
			for i, f := range files {
				rows[i] = fileJSON{Path: f.Path, Size: f.Size, Records: fileRecords(&f),
					PartitionValues: f.PartitionValues, ModificationTime: msRFC3339(f.ModificationTime)}
				if f.DeletionVector != nil {
					rows[i].DeletedRows = f.DeletionVector.Cardinality
				}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(filesJSON{Version: s.Version(), Files: rows})
			}
			pcols := s.PartitionColumns()
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PATH\tSIZE\tRECORDS\tPARTITION")
			var size, recs int64
			known := true
			for _, r := range rows {
				n := "?"
				if r.Records != nil {
					n = fmt.Sprint(*r.Records)
					recs += *r.Records
				} else {
					known = false
				}
				size += r.Size
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", r.Path, r.Size, n, partitionString(pcols, r.PartitionValues))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			total := fmt.Sprint(recs)
			if !known {
				total = "at least " + total
			}
			_, err = fmt.Fprintf(out, "%d files, %d bytes, %s records at version %d\n", len(rows), size, total, s.Version())
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().Int64Var(&version, "version", 0, "list the files of this table version (default: latest)")
	return cmd
}

// fileRecords returns the rows of a logical file by its stats (less those
// its deletion vector deletes), nil if the stats have no numRecords.
func fileRecords(f *lake.AddFile) *int64 {
	n, ok := f.NumRecords()
	if !ok {
		return nil
	}
	return &n
}

// partitionString renders partition values in partition column order, a
// null value as col=null.
func partitionString(cols []string, pv map[string]string) string {
	if len(cols) == 0 {
		return "-"
	}
	parts := make([]string, len(cols))
	for i, c := range cols {
		v, ok := pv[c]
		if !ok || v == "" {
			v = "null"
		}
		parts[i] = c + "=" + v
	}
	return strings.Join(parts, ",")
}

func newDeltaOptimizeCmd() *cobra.Command {
	var target int64
	cmd := &cobra.Command{
		Use:   "optimize TABLE",
		Short: "Compact the small files of each partition into target-size files",
		Long: `optimize rewrites, per partition, the files smaller than the target size into
files of about the target size, in one commit whose actions have dataChange=false
(streaming readers of the table skip it). The replaced files stay on disk for
time travel until vacuum deletes them.`,
		Example: `  millrace delta optimize /data/clicks
  millrace delta optimize --target-size 268435456 /data/clicks`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts lake.Options
			if cmd.Flags().Changed("target-size") {
				if target <= 0 {
					return fmt.Errorf("--target-size %d: must be a positive number of bytes", target)
				}
				opts.TargetFileSize = target
			}
			t, err := openTable(args[0], opts)
			if err != nil {
				return err
			}
			res, err := t.Optimize(cmd.Context())
			if err != nil {
				return tableErr(args[0], err)
			}
			out := cmd.OutOrStdout()
			if res.Version < 0 {
				_, err = fmt.Fprintln(out, "Nothing to optimize: no partition has two or more files below the target size.")
				return err
			}
			_, err = fmt.Fprintf(out, "Optimized %s: removed %d files, added %d files, version %d\n",
				t.Path(), res.FilesRemoved, res.FilesAdded, res.Version)
			return err
		},
	}
	cmd.Flags().Int64Var(&target, "target-size", 0, "target file size in bytes (default 128 MiB)")
	return cmd
}

func newDeltaVacuumCmd() *cobra.Command {
	var retention time.Duration
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "vacuum TABLE",
		Short: "Delete data files the table no longer references",
		Long: `vacuum deletes the data files the latest version does not reference (files
removed by overwrite, merge or optimize, and orphans of failed writes) once they
are older than the retention, and prints them. The default retention is the
table's delta.deletedFileRetentionDuration (one week); a shorter one needs
--force, since it breaks time travel to older versions and readers still on them.
--retention 0 --force deletes every unreferenced file.`,
		Example: `  millrace delta vacuum --dry-run /data/clicks
  millrace delta vacuum --retention 24h --force /data/clicks`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := lake.VacuumOptions{Retention: retention, Force: force, DryRun: dryRun}
			if cmd.Flags().Changed("retention") {
				if retention < 0 {
					return fmt.Errorf("--retention %s: must not be negative", retention)
				}
				if retention == 0 {
					// lake reads 0 as "the table's default".
					o.Retention = time.Nanosecond
				}
			}
			t, err := openTable(args[0], lake.Options{})
			if err != nil {
				return err
			}
			paths, err := t.Vacuum(cmd.Context(), o)
			if err != nil {
				err = tableErr(args[0], err)
				if !force && strings.Contains(err.Error(), "Force") {
					err = fmt.Errorf("%w; pass --force to vacuum anyway", err)
				}
				return err
			}
			out := cmd.OutOrStdout()
			verb := "Deleted"
			if dryRun {
				verb = "Would delete"
			}
			for _, p := range paths {
				fmt.Fprintln(out, p)
			}
			_, err = fmt.Fprintf(out, "%s %d files.\n", verb, len(paths))
			return err
		},
	}
	cmd.Flags().DurationVar(&retention, "retention", 0, "keep unreferenced files younger than this (default: the table's retention, one week)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "list the files without deleting them")
	cmd.Flags().BoolVar(&force, "force", false, "allow a retention shorter than the table's")
	return cmd
}
