package millrace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	_ "github.com/millrace/millrace/catalog/builtin"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sql"
)

// writeClicks writes n click events as JSON lines into dir, one every
// second from 2026-01-01T00:00:00Z, user i%3, and returns the counts per
// 10-second window start.
func writeClicks(t *testing.T, dir string, n int) map[time.Time]int64 {
	t.Helper()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	want := map[time.Time]int64{}
	for i := 0; i < n; i++ {
		ts := base.Add(time.Duration(i) * time.Second)
		fmt.Fprintf(&b, `{"ts":"%s","user":"u%d"}`+"\n", ts.Format(time.RFC3339), i%3)
		want[ts.Truncate(10*time.Second)]++
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part-0.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return want
}

// readCounts reads a Delta table of (window struct, count bigint) rows.
func readCounts(t *testing.T, path string) map[time.Time]int64 {
	t.Helper()
	snap, err := lake.LoadSnapshot(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := snap.ReadAll(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	got := map[time.Time]int64{}
	for _, r := range recs {
		win := r.Column(0).(*array.Struct)
		starts := win.Field(0).(*array.Timestamp)
		counts := r.Column(1).(*array.Int64)
		for i := 0; i < int(r.NumRows()); i++ {
			got[starts.Value(i).ToTime(arrow.Microsecond).UTC()] += counts.Value(i)
		}
		r.Release()
	}
	return got
}

// TestSQLInsertIntoDelta declares a JSON source and a Delta sink in SQL,
// runs INSERT INTO with Spark's WATERMARK clause to the end of the input,
// and reads the table back: every window the watermark closed holds its
// count of the input rows.
func TestSQLInsertIntoDelta(t *testing.T) {
	dir := t.TempDir()
	in, out, ckpt := filepath.Join(dir, "in"), filepath.Join(dir, "counts"), filepath.Join(dir, "ckpt")
	want := writeClicks(t, in, 95)
	se := millrace.NewSession()
	ctx := context.Background()
	script := fmt.Sprintf(`
		CREATE TABLE clicks (ts TIMESTAMP NOT NULL, user STRING) USING json LOCATION '%s';
		CREATE TABLE counts USING delta LOCATION '%s';
		SET spark.sql.streaming.checkpointLocation = %s;
		SET millrace.sql.trigger = available-now;
		INSERT INTO counts
		SELECT window(ts, '10 seconds') AS window, count(*) AS clicks
		FROM clicks WATERMARK ts DELAY OF INTERVAL 5 SECONDS AS c
		GROUP BY window(ts, '10 seconds');`, in, out, ckpt)
	var queries []*millrace.Query
	err := se.ExecScript(ctx, script, func(r *millrace.Result) error {
		if r.Query != nil {
			queries = append(queries, r.Query)
			return r.Query.AwaitTermination(ctx)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(queries) != 1 {
		t.Fatalf("%d queries started, want 1", len(queries))
	}
	got := readCounts(t, out)
	// The last event is at 00:01:34: the watermark (00:01:29) closes the
	// windows up to 00:01:20, not the last one.
	delete(want, time.Date(2026, 1, 1, 0, 1, 30, 0, time.UTC))
	delete(want, time.Date(2026, 1, 1, 0, 1, 20, 0, time.UTC))
	if fmt.Sprint(testutil.WindowCounts(got)) != fmt.Sprint(testutil.WindowCounts(want)) {
		t.Fatalf("table holds\n%v\nwant\n%v", testutil.WindowCounts(got), testutil.WindowCounts(want))
	}
	if _, err := os.Stat(filepath.Join(ckpt, "counts", "offsets")); err != nil {
		t.Fatalf("the checkpoint is not under the checkpoint location's table directory: %v", err)
	}

	// The table reads back as a stream, by name.
	s, err := se.SQL(ctx, "SELECT clicks FROM STREAM(counts) WHERE clicks = 10")
	if err != nil {
		t.Fatal(err)
	}
	// Every closed window holds 10 events.
	if rows := runAll(t, s, millrace.Append); len(rows) != len(want) {
		t.Fatalf("read back %d rows of 10 clicks, want %d", len(rows), len(want))
	}
}

// TestSQLWatermarkClause checks Spark's WATERMARK clause against the
// builder's WithWatermark: a column, and a computed column with a name
// (placed first, as Spark places it).
func TestSQLWatermarkClause(t *testing.T) {
	ctx := context.Background()
	se := millrace.NewSession()
	if _, err := se.Exec(ctx, "CREATE TABLE r USING rate OPTIONS (rowsPerSecond 10)"); err != nil {
		t.Fatal(err)
	}
	s, err := se.SQL(ctx, "SELECT * FROM r WATERMARK timestamp DELAY OF INTERVAL 10 SECONDS AS t")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Explain(), "Watermark") || !strings.Contains(s.Explain(), "10s") {
		t.Fatalf("no watermark of 10s in\n%s", s.Explain())
	}
	s, err = se.SQL(ctx, "SELECT * FROM r WATERMARK timestamp AS ts2 DELAY OF INTERVAL '2' SECOND")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(fieldNamesOf(s.Schema()), ","); got != "ts2,timestamp,value" {
		t.Fatalf("columns %s, want ts2,timestamp,value (as Spark)", got)
	}
	for _, c := range []struct{ q, msg string }{
		{"SELECT * FROM r WATERMARK value + 1 DELAY OF INTERVAL 1 SECOND", "1:27: the WATERMARK clause needs a name"},
		{"SELECT * FROM r WATERMARK tstamp DELAY OF INTERVAL 1 SECOND", `1:27: WATERMARK: column "tstamp" not found`},
		{"SELECT * FROM r WATERMARK timestamp DELAY INTERVAL 1 SECOND", "1:43: expected OF"},
		{"SELECT * FROM r WATERMARK value DELAY OF INTERVAL 1 SECOND", "1:27: WATERMARK:"},
	} {
		_, err := se.SQL(ctx, c.q)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.q, err, c.msg)
		}
	}
}

func fieldNamesOf(s *arrow.Schema) []string {
	var out []string
	for _, f := range s.Fields() {
		out = append(out, f.Name)
	}
	return out
}

// TestSQLDDLErrors checks that bad declarations and inserts are errors
// before anything starts, at their line and column.
func TestSQLDDLErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeClicks(t, filepath.Join(dir, "in"), 3)
	cases := []struct{ script, msg string }{
		{"CREATE TABLE t USING kafak OPTIONS (subscribe 'x')", `1:22: unknown format "kafak" (did you mean "kafka"?)`},
		{"CREATE TABLE t USING kafka OPTIONS (subscribe 'x')", "1:22: table t: kafka tables need option kafka.bootstrap.servers"},
		{"CREATE TABLE t USING kafka OPTIONS ('kafka.bootstrap.servers' 'h:1', subscrbe 'x')", `1:70: table t: unknown option "subscrbe" for kafka tables (did you mean "subscribe"?)`},
		{"CREATE TABLE t USING delta", "1:22: table t: delta tables need a LOCATION"},
		{"CREATE TABLE t (a INT) USING json\nLOCATION '/x' OPTIONS (maxFilesPerTrigger 'many')", `2:24: table t: option maxFilesPerTrigger: "many" is not an integer`},
		{"CREATE TABLE t (a INTEGR) USING json LOCATION '/x'", `1:19: unknown type INTEGR (did you mean "INTEGER"?)`},
		{"CREATE TABLE t (a INT)", "1:23: expected USING format"},
		{"CREATE TABLE t USING rate;\nCREATE TABLE t USING rate", `2:14: table "t" already exists`},
		{"CREATE TABLE t USING rate;\nINSERT INTO t SELECT * FROM t", "2:13: rate table t can be read, not written"},
		{"INSERT INTO nowhere SELECT * FROM x", `1:13: table "nowhere" not found`},
		{"DROP TABLE nothing", `1:12: table "nothing" not found`},
		{"SELECT * FROM r WHERE", "1:22: unexpected end of input"},
		{"CREATE TABLE r USING rate; SELECT * FROM rr", `1:42: view "rr" not found (did you mean "r"?)`},
		{"SET millrace.sql.outputMode = sideways", `1:1: output mode "sideways"`},
		{"CREATE TABLE r USING rate; CREATE TABLE d USING delta LOCATION '/nonexistent/d';\nSET millrace.sql.outputMode = update;\nINSERT INTO d SELECT * FROM r", "3:1: INSERT INTO d: delta table d takes output mode append or complete, not update"},
		{fmt.Sprintf("CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';\nCREATE TABLE out (w TIMESTAMP, n BIGINT) USING json LOCATION '%s';\nINSERT INTO out SELECT user, count(*) FROM clicks GROUP BY user",
			filepath.Join(dir, "in"), filepath.Join(dir, "out")),
			"3:17: INSERT INTO out: column 1 (user) is string, the table's column w is timestamp"},
		{fmt.Sprintf("CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';\nCREATE TABLE out (n BIGINT) USING json LOCATION '%s';\nINSERT INTO out SELECT user, count(*) FROM clicks GROUP BY user",
			filepath.Join(dir, "in"), filepath.Join(dir, "out")),
			"3:17: INSERT INTO out: the query has 2 columns (user, count(*)), the table 1 (n)"},
		{fmt.Sprintf("CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';\nCREATE TABLE k USING kafka OPTIONS (kafka.bootstrap.servers 'h:1', topic 'x');\nINSERT INTO k SELECT user FROM clicks",
			filepath.Join(dir, "in")),
			"3:15: INSERT INTO k: kafka table k: the query has no value column"},
	}
	for _, c := range cases {
		se := millrace.NewSession()
		started := false
		err := se.ExecScript(ctx, c.script, func(r *millrace.Result) error {
			if r.Query != nil {
				started = true
				_ = r.Query.Stop()
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q:\n got %v\nwant %q", c.script, err, c.msg)
			continue
		}
		var se2 *sql.Error
		if !errors.As(err, &se2) {
			t.Errorf("%q: %v is not a *sql.Error", c.script, err)
		}
		if started {
			t.Errorf("%q: a query started", c.script)
		}
	}
}

// TestSQLExplain checks EXPLAIN and EXPLAIN EXTENDED of a windowed count:
// the stateful operator with its keys, the watermark and the state
// partitions.
func TestSQLExplain(t *testing.T) {
	ctx := context.Background()
	se := millrace.NewSession()
	if _, err := se.Exec(ctx, "CREATE TABLE r USING rate OPTIONS (rowsPerSecond 10)"); err != nil {
		t.Fatal(err)
	}
	r, err := se.Exec(ctx, `EXPLAIN EXTENDED SELECT window(timestamp, '10 seconds') AS w, count(*) AS n
		FROM r WATERMARK timestamp DELAY OF INTERVAL 10 SECONDS GROUP BY window(timestamp, '10 seconds')`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== Logical Plan ==", "== Physical Plan ==", "output mode: Append",
		"watermark: timestamp, delay 10s", "stateful operator 0: stateStoreSave (aggregate), 16 state partitions",
		"keys: window(timestamp, 10s", "aggregates: count(*)"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("EXPLAIN EXTENDED lacks %q:\n%s", want, r.Text)
		}
	}
	// Spark's spark.sql.shuffle.partitions sets the state partitions.
	if _, err := se.Exec(ctx, "SET spark.sql.shuffle.partitions = 4"); err != nil {
		t.Fatal(err)
	}
	r, err = se.Exec(ctx, "EXPLAIN SELECT count(*) FROM r WATERMARK timestamp DELAY OF '1 second' GROUP BY window(timestamp, '1 minute')")
	if err != nil || !strings.Contains(r.Text, "(aggregate), 4 state partitions") {
		t.Fatalf("EXPLAIN with 4 shuffle partitions: %v\n%v", err, r)
	}
	if _, err := se.Exec(ctx, "SET spark.sql.shuffle.partitions = 0"); err == nil {
		t.Fatal("0 shuffle partitions accepted")
	}
	r, err = se.Exec(ctx, "EXPLAIN SELECT value FROM r")
	if err != nil || strings.Contains(r.Text, "Logical") || !strings.Contains(r.Text, "source 0: RateStreamV2") && !strings.Contains(r.Text, "source 0:") {
		t.Fatalf("EXPLAIN: %v\n%v", err, r)
	}
	// A DISTINCT (an aggregation, as in Spark: Update mode without a
	// watermark), and a table read twice: one source, two routes.
	if _, err := se.Exec(ctx, "SET millrace.sql.outputMode = update"); err != nil {
		t.Fatal(err)
	}
	r, err = se.Exec(ctx, "EXPLAIN SELECT DISTINCT value % 7 AS v FROM (SELECT value FROM r WHERE value > 5 UNION ALL SELECT value FROM r)")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, "source 0 (path 1 of 2):") || !strings.Contains(r.Text, "source 0 (path 2 of 2):") || strings.Contains(r.Text, "source 1") || !strings.Contains(r.Text, "stateful operator 0: stateStoreSave (aggregate)") || !strings.Contains(r.Text, "keys: v") {
		t.Fatalf("EXPLAIN of a DISTINCT over a self-union:\n%s", r.Text)
	}
	if _, err := se.Exec(ctx, "SET millrace.sql.outputMode = append"); err != nil {
		t.Fatal(err)
	}
	// EXPLAIN INSERT INTO plans the write without making the sink (which
	// would create the table's directory).
	out := filepath.Join(t.TempDir(), "o")
	if _, err := se.Exec(ctx, "CREATE TABLE o (v BIGINT) USING json LOCATION '"+out+"'"); err != nil {
		t.Fatal(err)
	}
	r, err = se.Exec(ctx, "EXPLAIN INSERT INTO o SELECT value FROM r")
	if err != nil || !strings.Contains(r.Text, "sink: table o (json)") {
		t.Fatalf("EXPLAIN INSERT INTO: %v\n%v", err, r)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("EXPLAIN INSERT INTO created the table's directory: %v", err)
	}
	// A plan the output mode refuses is an error of EXPLAIN, as of Start.
	if _, err := se.Exec(ctx, "SET millrace.sql.outputMode = complete"); err != nil {
		t.Fatal(err)
	}
	if _, err := se.Exec(ctx, "EXPLAIN SELECT value FROM r"); err == nil || !strings.Contains(err.Error(), "complete output mode is not supported") {
		t.Fatalf("EXPLAIN in complete mode without aggregation: %v", err)
	}
}

// TestSQLInsertComplete runs INSERT INTO a Delta table in complete mode
// twice over a growing input: the table holds the whole result each time
// (Delta's complete mode replaces the table), per user.
func TestSQLInsertComplete(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "per_user")
	writeClicks(t, in, 30) // u0, u1, u2: 10 each
	se := millrace.NewSession()
	ctx := context.Background()
	script := fmt.Sprintf(`
		CREATE TABLE clicks (ts TIMESTAMP, user STRING) USING json LOCATION '%s';
		CREATE TABLE per_user (user STRING, n BIGINT) USING delta LOCATION '%s';
		SET millrace.sql.outputMode = complete;
		SET millrace.sql.trigger = available-now;
		SET spark.sql.streaming.checkpointLocation = '%s';
		INSERT INTO per_user SELECT user AS u, count(*) FROM clicks GROUP BY user`, in, out, filepath.Join(dir, "ckpt"))
	run := func() map[string]int64 {
		t.Helper()
		if err := se.ExecScript(ctx, script, func(r *millrace.Result) error {
			if r.Query != nil {
				return r.Query.AwaitTermination(ctx)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		snap, err := lake.LoadSnapshot(out, -1)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(fieldNamesOf(snap.Schema()), ","); got != "user,n" {
			t.Fatalf("table columns %s, want the declared user,n (INSERT INTO matches by position)", got)
		}
		recs, err := snap.ReadAll(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, r := range recs {
			for _, row := range testutil.Rows(r) {
				got[row[0].(string)] += row[1].(int64)
			}
			r.Release()
		}
		return got
	}
	if got := fmt.Sprint(run()); got != "map[u0:10 u1:10 u2:10]" {
		t.Fatalf("first run: %s", got)
	}
	// More input: the table is replaced by the new whole result.
	if err := os.WriteFile(filepath.Join(in, "part-1.json"), []byte(`{"ts":"2026-01-01T01:00:00Z","user":"u0"}`+"\n"+`{"ts":"2026-01-01T01:00:01Z","user":"u9"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	se = millrace.NewSession()
	if got := fmt.Sprint(run()); got != "map[u0:11 u1:10 u2:10 u9:1]" {
		t.Fatalf("second run: %s", got)
	}
}

func TestParseTrigger(t *testing.T) {
	for in, want := range map[string]millrace.Trigger{
		"available-now": millrace.AvailableNow(), "availableNow": millrace.AvailableNow(), "once": millrace.Once(),
		"": millrace.ProcessingTime(0), "10s": millrace.ProcessingTime(10 * time.Second),
		"10 seconds": millrace.ProcessingTime(10 * time.Second), "processing-time 1 minute": millrace.ProcessingTime(time.Minute),
		"'500ms'": millrace.ProcessingTime(500 * time.Millisecond),
	} {
		got, err := millrace.ParseTrigger(in)
		if err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"soon", "-5s", "10 fortnights"} {
		if _, err := millrace.ParseTrigger(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestSQLKafkaColumns checks that a Kafka table declared with columns reads
// them, decoded from each record's JSON value; without, Kafka's schema.
func TestSQLKafkaColumns(t *testing.T) {
	ctx := context.Background()
	se := millrace.NewSession()
	if err := se.ExecScript(ctx, `CREATE TABLE typed (ts TIMESTAMP, n BIGINT) USING kafka OPTIONS (kafka.bootstrap.servers 'h:1', subscribe 'x');
		CREATE TABLE raw USING kafka OPTIONS (kafka.bootstrap.servers 'h:1', subscribe 'x')`, nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"SELECT * FROM typed": "ts,n",
		"SELECT * FROM raw":   "key,value,topic,partition,offset,timestamp,headers",
	} {
		s, err := se.SQL(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(fieldNamesOf(s.Schema()), ","); got != want {
			t.Errorf("%s: columns %s, want %s", q, got, want)
		}
	}
	if !strings.Contains(must(se.SQL(ctx, "SELECT n FROM typed")).Explain(), "ParseJSON") {
		t.Error("the typed table's plan does not decode JSON")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestSQLDescribeShow checks DESCRIBE and SHOW TABLES.
func TestSQLDescribeShow(t *testing.T) {
	ctx := context.Background()
	se := millrace.NewSession()
	if err := se.ExecScript(ctx, `CREATE TABLE clicks (ts TIMESTAMP NOT NULL, n BIGINT) USING kafka OPTIONS (kafka.bootstrap.servers 'h:1', subscribe 'x');
		CREATE TABLE counts USING delta LOCATION '/nonexistent/counts';
		CREATE TEMPORARY VIEW big AS SELECT n * 2 AS n2 FROM clicks WHERE n > 10`, nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"DESCRIBE clicks": "ts\ttimestamp\tnot null\nn\tbigint\n",
		"DESC TABLE big":  "n2\tbigint\n",
		"DESCRIBE counts": "(delta table counts has no columns yet: its first INSERT INTO gives them)\n",
		"SHOW TABLES":     "big\tview\nclicks\ttable\tkafka\ncounts\ttable\tdelta\n",
	} {
		r, err := se.Exec(ctx, q)
		if err != nil || r.Text != want {
			t.Errorf("%s: %v %q, want %q", q, err, r.Text, want)
		}
	}
	if _, err := se.Exec(ctx, "DESCRIBE clics"); err == nil || !strings.Contains(err.Error(), `1:10: table or view "clics" not found (did you mean "clicks"?)`) {
		t.Errorf("DESCRIBE of a missing table: %v", err)
	}
}
