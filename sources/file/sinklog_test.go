package file

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/storage"
)

// A file sink's output directory (it has _millrace_log/) is read as Spark
// reads a sink's output with _spark_metadata: only the data files named by
// committed log entries. Files of an attempt that has not committed are
// skipped, and read once when their batch's entry appears; files of an
// attempt that never commits are never read. On local disk and on S3.
func TestSinkOutputReadsCommittedFilesOnly(t *testing.T) {
	for _, where := range []string{"local", "s3"} {
		t.Run(where, func(t *testing.T) {
			ctx := context.Background()
			var dir string
			var st storage.Store
			if where == "s3" {
				dir, st = s3Dir(t)
			} else {
				dir = t.TempDir()
				st = storage.NewLocal(dir)
			}
			entry := func(id int64, files ...string) {
				b := "v1\n"
				for _, f := range files {
					b += fmt.Sprintf(`{"path":%q,"rows":1,"size":10}`+"\n", f)
				}
				put(t, st, fmt.Sprintf("_millrace_log/%d", id), b)
			}
			row := func(n int) string { return fmt.Sprintf(`{"n":%d}`+"\n", n) }
			put(t, st, "_millrace_log/format", "v1\n") // an S3 sink's marker; a local sink has the directory
			put(t, st, "part-0-0.jsonl", row(0))
			put(t, st, "part-0-1.jsonl", row(1))
			entry(0, "part-0-0.jsonl", "part-0-1.jsonl")
			put(t, st, "part-1-0-aaaa.jsonl", row(-1)) // an attempt of batch 1 that crashed
			put(t, st, "part-1-0-bbbb.jsonl", row(2))  // the attempt that commits, later
			put(t, st, "part-2-0.jsonl", row(3))       // not committed yet
			put(t, st, "stray.jsonl", row(-2))         // no sink's file
			for _, bounded := range []bool{false, true} {
				opts := Options{Path: dir, Format: JSON, Schema: clickSchema, Pattern: "*.jsonl"}
				if bounded {
					opts.MaxFileAge = DefaultMaxFileAge
				}
				s, err := New(opts)
				if err != nil {
					t.Fatal(err)
				}
				start, _ := s.InitialOffset(ctx)
				rows, _, end := drain(t, s, start, nil)
				if !slices.Equal(rows, []string{"null|0|null", "null|1|null"}) {
					t.Fatalf("before batch 1 commits: %v", rows)
				}
				entry(1, "part-1-0-bbbb.jsonl")
				rows, _, end = drain(t, s, end, nil)
				if !slices.Equal(rows, []string{"null|2|null"}) {
					t.Fatalf("after batch 1 commits: %v", rows)
				}
				entry(2, "part-2-0.jsonl")
				rows, _, _ = drain(t, s, end, nil)
				if !slices.Equal(rows, []string{"null|3|null"}) {
					t.Fatalf("after batch 2 commits: %v", rows)
				}
				// the next pass starts over: entries 1 and 2 exist
				st.Delete(ctx, "_millrace_log/1")
				st.Delete(ctx, "_millrace_log/2")
			}
			put(t, st, "_millrace_log/3", "v2\n")
			put(t, st, "part-3-0.jsonl", row(4))
			s, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema})
			start, _ := s.InitialOffset(ctx)
			if _, err := s.LatestOffset(ctx, start, sources.ReadLimit{}); err == nil || !strings.Contains(err.Error(), "_millrace_log/3") {
				t.Fatalf("an unreadable log entry: %v", err)
			}
		})
	}
}
