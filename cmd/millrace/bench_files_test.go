package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/bench/nexmark"
)

// writeExport writes what bench/compare/export writes: the bids of events
// positions [0, events) in files of per positions, and manifest.json.
func writeExport(t *testing.T, dir string, events, per, rate int64) {
	t.Helper()
	g := nexmark.NewGenerator(nexmark.Config{Events: events, Seed: 1, Rate: rate})
	files := 0
	for lo := int64(0); lo < events; lo += per {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("bid-%08d.parquet", files)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := pqarrow.NewFileWriter(nexmark.BidSchema, f, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		err = g.Generate(memory.NewGoAllocator(), nexmark.Bids, lo, min(lo+per, events), func(rec arrow.RecordBatch) error {
			defer rec.Release()
			return w.Write(rec)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files++
	}
	m := fmt.Sprintf(`{"kind": "bid", "events": %d, "files": %d, "seed": 1, "rate": %d, "outOfOrderGroup": 1}`, events, files, g.Config().Rate)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBenchNexmarkParquet reads exported bids through the file source,
// one file per trigger, and checks each query against the oracle of the
// generator the export came from; with a file missing, the oracle check
// fails.
func TestBenchNexmarkParquet(t *testing.T) {
	dir := t.TempDir()
	writeExport(t, dir, 60000, 20000, 2000) // 30 s of event time: q5's and q7's windows close
	out, _, err := run(t, "bench", "nexmark", "--query", "q0,q1,q2,q5,q7", "--source", "parquet", "--path", dir, "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(rs) != 5 {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if r.Source != "parquet" || r.Oracle == nil || !r.Oracle.OK || r.Events != 60000 || r.Rate != 2000 || r.InputRows <= 0 {
			t.Fatalf("bad result %+v (oracle %+v)", r, r.Oracle)
		}
		if (r.Query == "q5" || r.Query == "q7") && r.OutputRows == 0 {
			t.Fatalf("%s: no window closed: %+v", r.Query, r)
		}
	}

	if err := os.Remove(filepath.Join(dir, "bid-00000001.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "bench", "nexmark", "--query", "q0", "--source", "parquet", "--path", dir, "--quiet"); err == nil || !strings.Contains(err.Error(), "do not match their oracle") {
		t.Fatalf("a missing file: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--source", "parquet"}, "needs --path"},
		{[]string{"--source", "parquet", "--path", t.TempDir()}, "manifest.json"},
		{[]string{"--source", "parquet", "--path", dir, "--query", "q12"}, "cannot read other sources"},
		{[]string{"--source", "parquet", "--path", dir, "--query", "q3"}, "has no export"},
		{[]string{"--source", "kafka"}, "want generator or parquet"},
		{[]string{"--path", dir}, "is for --source parquet"},
	} {
		args := append([]string{"bench", "nexmark", "--quiet", "--query", "q0"}, c.args...)
		if _, _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}
