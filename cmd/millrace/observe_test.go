package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/exec"
)

// readProgressLog parses a --progress-log file: one progress event a line.
func readProgressLog(t *testing.T, path string) []exec.Progress {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []exec.Progress
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p exec.Progress
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("progress log line %d: %v\n%s", len(ps)+1, err, sc.Text())
		}
		ps = append(ps, p)
	}
	return ps
}

// demo with JSON logs at info level, a progress log and a price: one log
// line and one progress line per batch, each with its cost, and a cost
// report at the end.
func TestDemoLogsProgressLogAndCost(t *testing.T) {
	plog := filepath.Join(t.TempDir(), "progress.jsonl")
	args := []string{"demo", "--events", "300000", "--per-trigger", "100000", "--console", "--quiet",
		"--log-format", "json", "--log-level", "info", "--progress-log", plog, "--core-hour-price", "0.05"}
	out, errOut, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	var batches int
	for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue // not a log line
		}
		if rec["msg"] == "millrace: batch done" && rec["query"] == "demo" {
			batches++
		}
	}
	ps := readProgressLog(t, plog)
	if batches == 0 || len(ps) != batches {
		t.Fatalf("%d JSON batch lines, %d progress lines:\n%s", batches, len(ps), errOut)
	}
	var cpu float64
	for _, p := range ps {
		if p.Cost == nil || len(p.Cost.Operators) == 0 || p.Cost.CoreHourPrice != 0.05 {
			t.Fatalf("batch %d without a cost report: %+v", p.BatchID, p.Cost)
		}
		cpu += p.Cost.CPUSeconds
	}
	if last := ps[len(ps)-1].Cost; math.Abs(last.TotalCPUSeconds-cpu) > 1e-6 || last.TotalInputRows != 300000 {
		t.Fatalf("last report totals %g CPU s, %d rows; the batches %g", last.TotalCPUSeconds, last.TotalInputRows, cpu)
	}
	for _, want := range []string{"Cost of the demo query:", "stateStoreSave", "Cores needed for", "per core-hour"} {
		if !strings.Contains(out, want) {
			t.Fatalf("demo output lacks %q:\n%s", want, out)
		}
	}
	// appending: a second run adds its lines after the first's
	if _, _, err := run(t, args...); err != nil {
		t.Fatal(err)
	}
	if n := len(readProgressLog(t, plog)); n != 2*len(ps) {
		t.Fatalf("%d lines after two runs, want %d", n, 2*len(ps))
	}

	// at the default level (warn) a healthy run logs nothing
	if _, errOut, err = run(t, "demo", "--events", "100000", "--console", "--quiet"); err != nil || strings.Contains(errOut, "batch done") {
		t.Fatalf("default level: %v\n%s", err, errOut)
	}
	for _, bad := range [][]string{{"--log-format", "xml"}, {"--log-level", "loud"}, {"--headroom", "-1"}} {
		if _, _, err := run(t, append([]string{"demo", "--events", "1000", "--console", "--quiet"}, bad...)...); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}

// bench nexmark --format json carries each query's cost report, whose CPU
// seconds agree with the process CPU time the bench measured around the
// run within 10 %.
func TestBenchNexmarkCost(t *testing.T) {
	out, _, err := run(t, "bench", "nexmark", "--query", "q0,q5", "--events", "500000", "--per-trigger", "100000",
		"--no-check", "--format", "json", "--quiet", "--core-hour-price", "0.04", "--input-rate", "1000000")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	for _, r := range rs {
		c := r.Cost
		if c == nil || c.InputRowsPerSecond != 1e6 || c.CoresNeeded <= 0 || c.CostPerHour <= 0 || len(c.Operators) == 0 {
			t.Fatalf("%s: cost %+v", r.Query, c)
		}
		t.Logf("%s: cost report %.3f CPU s, process %.3f CPU s", r.Query, c.CPUSeconds, r.CPUSeconds)
		if math.Abs(c.CPUSeconds-r.CPUSeconds) > 0.10*r.CPUSeconds {
			t.Fatalf("%s: cost report %.3f CPU s, the process %.3f: more than 10 %% apart", r.Query, c.CPUSeconds, r.CPUSeconds)
		}
	}
}

// sql prints a cost report after each query and passes the flags on to
// the queries INSERT INTO starts.
func TestSQLCostAndProgressLog(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "a.json"), []byte(`{"ts":"2026-01-01T00:00:01Z","user":"ann"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plog := filepath.Join(dir, "progress.jsonl")
	script := fmt.Sprintf(`CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';
CREATE TABLE out (ts TIMESTAMP, user STRING) USING json LOCATION '%s';
INSERT INTO out SELECT ts, user FROM clicks;
SELECT user FROM clicks`, in, filepath.Join(dir, "out"))
	_, errOut, err := run(t, "sql", "--trigger", "available-now", "--checkpoint", filepath.Join(dir, "ckpt"), "--progress-log", plog, "-e", script)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Cost of INSERT INTO out:", "Cost of the query:"} {
		if !strings.Contains(errOut, want) {
			t.Fatalf("sql output lacks %q:\n%s", want, errOut)
		}
	}
	names := map[string]int{}
	for _, p := range readProgressLog(t, plog) {
		names[p.Name]++
	}
	if names["out"] == 0 || names[""] == 0 {
		t.Fatalf("progress log queries %v, want the INSERT's (out) and the SELECT's", names)
	}
}

// progress reads a progress log back: the latest run only, a last line cut
// short skipped (the query is writing it), text and JSON.
func TestProgressCommand(t *testing.T) {
	plog := filepath.Join(t.TempDir(), "progress.jsonl")
	for _, events := range []string{"100000", "300000"} {
		if _, _, err := run(t, "demo", "--events", events, "--per-trigger", "100000", "--console", "--quiet", "--progress-log", plog); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(plog, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"cut sh`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, _, err := run(t, "progress", "--format", "json", "--input-rate", "1000000", "--core-hour-price", "0.04", plog)
	if err != nil {
		t.Fatal(err)
	}
	var r progressReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if r.Query != "demo" || r.NumInputRows != 300000 || r.Cost.InputRows != 300000 || r.Cost.CoresNeeded <= 0 || r.Cost.CostPerHour <= 0 || r.Last == nil {
		t.Fatalf("report of the second run: %+v", r)
	}
	out, _, err = run(t, "progress", plog)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"query:          demo", "rows:           300000 in", "BACKLOG", "Cost of the run so far", "Cores needed for"} {
		if !strings.Contains(out, want) {
			t.Fatalf("progress output lacks %q:\n%s", want, out)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if err := os.WriteFile(bad, []byte("not json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, "progress", bad); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a file that is not a progress log: %v", err)
	}
}
