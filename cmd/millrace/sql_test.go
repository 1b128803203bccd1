package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/peterh/liner"
	kafkago "github.com/segmentio/kafka-go"
)

// TestSQLKafkaToDelta runs the built CLI, `millrace sql -e`, on a windowed
// count from a Kafka topic of the test broker into a Delta table, to the
// end of the topic (--trigger available-now), and reads the table back:
// each window the watermark closed holds the number of records produced
// into it. A second run with the same checkpoint finds nothing new and
// leaves the table as it was.
func TestSQLKafkaToDelta(t *testing.T) {
	broker := kafkatest.Start(t)
	topic := kafkatest.TopicName(t)
	// The records' timestamps are fixed, in the past: keep them from
	// retention.
	broker.CreateTopic(t, topic, 3, map[string]string{"retention.ms": "-1"})

	// 2 minutes of clicks, 5 per second, a little out of order (under the
	// watermark's 5 seconds, so none is late).
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewSource(7))
	want := map[time.Time]int64{}
	var msgs []kafkago.Message
	var maxTS time.Time
	for i := 0; i < 600; i++ {
		ts := base.Add(time.Duration(i) * 200 * time.Millisecond).Add(-time.Duration(r.Int63n(int64(3 * time.Second))))
		if ts.Before(base) {
			ts = base
		}
		if ts.After(maxTS) {
			maxTS = ts
		}
		msgs = append(msgs, kafkago.Message{Partition: i % 3, Time: ts, Key: []byte(fmt.Sprint(i % 7)), Value: []byte(fmt.Sprintf(`{"n":%d}`, i))})
		want[ts.Truncate(10*time.Second)]++
	}
	broker.Produce(t, topic, msgs...)
	wm := maxTS.Add(-5 * time.Second)
	for start := range want {
		if start.Add(10 * time.Second).After(wm) {
			delete(want, start)
		}
	}

	dir := t.TempDir()
	bin := buildCLI(t)
	table, ckpt := filepath.Join(dir, "counts"), filepath.Join(dir, "ckpt")
	script := fmt.Sprintf(`
CREATE TABLE clicks USING kafka OPTIONS (
  kafka.bootstrap.servers '%s', subscribe '%s', startingOffsets 'earliest');
CREATE TABLE counts USING delta LOCATION '%s';
INSERT INTO counts
SELECT window(timestamp, '10 seconds') AS window, count(*) AS clicks
FROM clicks WATERMARK timestamp DELAY OF INTERVAL 5 SECONDS
GROUP BY window(timestamp, '10 seconds')`, broker.Addr(), topic, table)
	for run := 1; run <= 2; run++ {
		cmd := exec.Command(bin, "sql", "--trigger", "available-now", "--checkpoint", ckpt, "-e", script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out)
		}
		if run == 1 && !strings.Contains(string(out), "INSERT INTO counts: 600 rows read") {
			t.Fatalf("run 1 did not report reading the 600 records:\n%s", out)
		}
		got := deltaCounts(t, table)
		if g, w := fmt.Sprint(testutil.WindowCounts(got)), fmt.Sprint(testutil.WindowCounts(want)); g != w {
			t.Fatalf("run %d: the table holds\n%s\nwant\n%s", run, g, w)
		}
	}
	// A second reader: delta-rs, where the venv is (make test creates it).
	if got, ok := deltaRSCounts(t, table); ok {
		if g, w := fmt.Sprint(testutil.WindowCounts(got)), fmt.Sprint(testutil.WindowCounts(want)); g != w {
			t.Fatalf("delta-rs reads\n%s\nwant\n%s", g, w)
		}
	}
	if _, err := os.Stat(filepath.Join(ckpt, "counts", "commits")); err != nil {
		t.Fatalf("no checkpoint in --checkpoint/<table>: %v", err)
	}

	// A Kafka table declared with columns decodes them from the JSON values:
	// the even n of {"n":i}, written as JSON lines.
	evens := filepath.Join(dir, "evens")
	out, err := exec.Command(bin, "sql", "--trigger", "available-now", "-e", fmt.Sprintf(`
CREATE TABLE nums (n BIGINT) USING kafka OPTIONS (kafka.bootstrap.servers '%s', subscribe '%s', startingOffsets 'earliest');
CREATE TABLE evens (n BIGINT) USING json LOCATION '%s';
INSERT INTO evens SELECT n FROM nums WHERE n %% 2 = 0`, broker.Addr(), topic, evens)).CombinedOutput()
	if err != nil {
		t.Fatalf("kafka json → json files: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(evens, "*.jsonl"))
	var count, sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var n int64
			if _, err := fmt.Sscanf(line, `{"n":%d}`, &n); err != nil {
				t.Fatalf("%s: line %q: %v", f, line, err)
			}
			count, sum = count+1, sum+n
		}
	}
	if count != 300 || sum != 89700 {
		t.Fatalf("the json table holds %d rows summing to %d, want the 300 even n summing to 89700\n%s", count, sum, out)
	}

	// Kafka → Kafka: INSERT INTO a table with a topic writes key and value
	// (Spark's Kafka sink columns); every record arrives.
	outTopic := topic + "-out"
	broker.CreateTopic(t, outTopic, 2, nil)
	out, err = exec.Command(bin, "sql", "--trigger", "available-now", "-e", fmt.Sprintf(`
CREATE TABLE clicks USING kafka OPTIONS (kafka.bootstrap.servers '%s', subscribe '%s', startingOffsets 'earliest');
CREATE TABLE copy USING kafka OPTIONS (kafka.bootstrap.servers '%s', topic '%s');
INSERT INTO copy SELECT key, value FROM clicks WHERE partition = 1`, broker.Addr(), topic, broker.Addr(), outTopic)).CombinedOutput()
	if err != nil {
		t.Fatalf("kafka → kafka: %v\n%s", err, out)
	}
	first, next := broker.Offsets(t, outTopic)
	var n int64
	for p := range next {
		n += next[p] - first[p]
	}
	if n != 200 {
		t.Fatalf("the output topic holds %d records, want the 200 of partition 1\n%s", n, out)
	}
}

// buildCLI builds the millrace binary into a test directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "millrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// TestSQLInsertStopsOnInterrupt starts an endless INSERT INTO (rate →
// json files) in the built CLI, and interrupts it once it has written: the
// query stops gracefully and the command exits 0 with its summary,
// without running the statements after it.
func TestSQLInsertStopsOnInterrupt(t *testing.T) {
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "sql", "--trigger", "100ms", "-e", fmt.Sprintf(`CREATE TABLE r USING rate OPTIONS (rowsPerSecond 1000);
CREATE TABLE o (value BIGINT) USING json LOCATION '%s';
INSERT INTO o SELECT value FROM r;
SET never.ran = 1`, out))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(out, "*.jsonl"))
		if len(files) > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no output file after 60s:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after Ctrl-C: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped") || !strings.Contains(stderr.String(), "INSERT INTO o: ") {
		t.Fatalf("no stop summary:\n%s", stderr.String())
	}
	if strings.Contains(stdout.String(), "never.ran") {
		t.Fatalf("the statement after the interrupted INSERT ran:\n%s", stdout.String())
	}
}

func deltaCounts(t *testing.T, path string) map[time.Time]int64 {
	t.Helper()
	snap, err := lake.LoadSnapshot(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Schema().String(); !strings.Contains(got, "window: type=struct<start: timestamp") || !strings.Contains(got, "clicks: type=int64") {
		t.Fatalf("table schema %s", got)
	}
	recs, err := snap.ReadAll(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	got := map[time.Time]int64{}
	for _, r := range recs {
		starts := r.Column(0).(*array.Struct).Field(0).(*array.Timestamp)
		counts := r.Column(1).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			got[starts.Value(i).ToTime(arrow.Microsecond).UTC()] += counts.Value(i)
		}
		r.Release()
	}
	return got
}

// deltaRSCounts reads the (window, clicks) table with delta-rs; ok is
// false when the venv is missing (as examples/kafka_to_delta's test, an
// error only with MILLRACE_REQUIRE_DELTA_RS set).
func deltaRSCounts(t *testing.T, table string) (map[time.Time]int64, bool) {
	t.Helper()
	py, _ := filepath.Abs("../../.venv/bin/python")
	if _, err := os.Stat(py); err != nil {
		if os.Getenv("MILLRACE_REQUIRE_DELTA_RS") != "" {
			t.Fatalf("no %s: run make venv", py)
		}
		t.Logf("delta-rs check skipped: no %s (make test creates it)", py)
		return nil, false
	}
	script := `
import os, sys
from deltalake import DeltaTable
for r in DeltaTable(sys.argv[1]).to_pyarrow_table().to_pylist():
    print(r["window"]["start"].strftime("%Y-%m-%dT%H:%M:%SZ"), r["clicks"])
# leave without the interpreter's teardown, where deltalake's and pyarrow's
# native thread pools have aborted the process after a complete read
# ("terminate called without an active exception")
sys.stdout.flush()
os._exit(0)
`
	out, err := exec.Command(py, "-c", script, table).Output()
	if err != nil {
		t.Fatalf("delta-rs read: %v", err)
	}
	got := map[time.Time]int64{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var ts string
		var n int64
		if _, err := fmt.Sscan(line, &ts, &n); err != nil {
			t.Fatalf("delta-rs output %q: %v", line, err)
		}
		start, err := time.Parse(time.RFC3339, ts)
		if err != nil {
			t.Fatal(err)
		}
		got[start] += n
	}
	return got, true
}

// TestSQLCommand runs `millrace sql` in process: EXPLAIN, SET, a SELECT
// printed as the console sink prints, a script from a file and from
// standard input, and errors with their line and column.
func TestSQLCommand(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(in, "a.json"), []byte(`{"ts":"2026-01-01T00:00:01Z","user":"ann"}`+"\n"+`{"ts":"2026-01-01T00:00:02Z","user":"bob"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	decl := fmt.Sprintf("CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';\n", in)
	out, _, err := run(t, "sql", "--trigger", "available-now", "-e", decl+"SELECT user, ts FROM clicks WHERE user <> 'bob'")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Batch: 0", "|user|", "| ann|2026-01-01 00:00:01|"} {
		if !strings.Contains(out, want) {
			t.Fatalf("SELECT output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "bob") {
		t.Fatalf("WHERE did not filter:\n%s", out)
	}

	file := filepath.Join(dir, "q.sql")
	if err := os.WriteFile(file, []byte(decl+"SET x.y = 1;\nEXPLAIN EXTENDED SELECT window(ts, '1 minute') AS w, count(*) AS n\n  FROM clicks WATERMARK ts DELAY OF INTERVAL 1 MINUTE GROUP BY 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, "sql", "-f", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"x.y=1", "== Logical Plan ==", "== Physical Plan ==", "watermark: ts, delay 1m0s", "stateful operator 0: stateStoreSave (aggregate), 16 state partitions", "keys: window(ts, 1m0s"} {
		if !strings.Contains(out, want) {
			t.Fatalf("-f output lacks %q:\n%s", want, out)
		}
	}

	// Standard input that is not a terminal is a script.
	cmd := newRoot()
	var o, e strings.Builder
	cmd.SetIn(strings.NewReader(decl + "EXPLAIN SELECT user FROM clicks;"))
	cmd.SetOut(&o)
	cmd.SetErr(&e)
	cmd.SetArgs([]string{"sql"})
	if err := cmd.ExecuteContext(context.Background()); err != nil || !strings.Contains(o.String(), "== Physical Plan ==") {
		t.Fatalf("stdin script: %v\n%s%s", err, o.String(), e.String())
	}

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sql", "-e", "SELECT * FROM clicks WHERE"}, "1:27: unexpected end of input"},
		{[]string{"sql", "-e", "CREATE TABLE t USING parquett LOCATION '/x'"}, `1:22: unknown format "parquett" (did you mean "parquet"?)`},
		{[]string{"sql", "-e", "CREATE TABLE t USING kafka\n  OPTIONS (subscribe 'x')"}, "1:22: table t: kafka tables need option kafka.bootstrap.servers"},
		{[]string{"sql", "--output-mode", "sideways", "-e", "SELECT 1"}, `output mode "sideways"`},
		{[]string{"sql", "--trigger", "soon", "-e", "SELECT 1"}, `trigger "soon"`},
		{[]string{"sql", "-e", decl + "INSERT INTO clicks SELECT user FROM clicks"}, "2:20: INSERT INTO clicks: the query has 1 columns (user), the table 2 (ts, user)"},
		{[]string{"sql", "-f", filepath.Join(dir, "missing.sql")}, "no such file"},
	} {
		_, _, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want %q", c.args, err, c.msg)
		}
	}
}

// lines is a prompter that types the given lines, then Ctrl-D.
type lines struct {
	in      []string
	prompts []string
	history []string
}

func (l *lines) Prompt(p string) (string, error) {
	l.prompts = append(l.prompts, p)
	if len(l.in) == 0 {
		return "", io.EOF
	}
	s := l.in[0]
	l.in = l.in[1:]
	if s == "^C" {
		return "", liner.ErrPromptAborted
	}
	return s, nil
}

func (l *lines) AppendHistory(s string) { l.history = append(l.history, s) }

// TestSQLPrompt types statements at the interactive prompt: a statement
// spans lines until ';', Ctrl-C drops the one being typed, an error is
// printed and the prompt goes on, each statement goes to the history.
func TestSQLPrompt(t *testing.T) {
	var out, errOut strings.Builder
	r := &sqlRunner{se: millrace.NewSession(), out: &out, errOut: &errOut, rows: 20, truncate: 20}
	ln := &lines{in: []string{
		"CREATE TABLE r",
		"  USING rate OPTIONS (rowsPerSecond 5);",
		"SELECT nonsense",
		"^C",
		"SELECT * FROM rr;",
		"",
		"EXPLAIN SELECT value",
		"FROM r;",
	}}
	if err := r.prompt(context.Background(), ln); err != nil {
		t.Fatal(err)
	}
	if want := []string{"millrace> ", "       -> ", "millrace> ", "       -> ", "millrace> ", "millrace> ", "millrace> ", "       -> ", "millrace> "}; fmt.Sprint(ln.prompts) != fmt.Sprint(want) {
		t.Errorf("prompts %q, want %q", ln.prompts, want)
	}
	if len(ln.history) != 3 || ln.history[0] != "CREATE TABLE r\n  USING rate OPTIONS (rowsPerSecond 5);" {
		t.Errorf("history %q", ln.history)
	}
	if !strings.Contains(out.String(), "OK\n") || !strings.Contains(out.String(), "== Physical Plan ==") {
		t.Errorf("output:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), `1:15: view "rr" not found (did you mean "r"?)`) {
		t.Errorf("errors:\n%s", errOut.String())
	}
}
