package sql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/plan"
)

func TestParseStatements(t *testing.T) {
	text := `CREATE TABLE IF NOT EXISTS clicks (ts TIMESTAMP NOT NULL, user STRING COMMENT 'who', d DATE)
  USING kafka OPTIONS (kafka.bootstrap.servers = 'h:9092', 'subscribe' 'c', maxOffsetsPerTrigger 100, failOnDataLoss false);
;
CREATE OR REPLACE TABLE counts USING delta LOCATION '/t' PARTITIONED BY (day);
CREATE OR REPLACE TEMP VIEW v AS SELECT * FROM clicks WATERMARK ts DELAY OF INTERVAL 10 SECONDS c;
CREATE TEMPORARY VIEW r USING rate OPTIONS (rowsPerSecond 5);
SET spark.sql.streaming.checkpointLocation = /tmp/ck;
SET;
SET millrace.sql.trigger;
INSERT INTO TABLE counts SELECT window(ts, '10 seconds'), count(*) FROM STREAM(clicks) GROUP BY 1;
EXPLAIN EXTENDED SELECT * FROM STREAM clicks;
DROP TABLE IF EXISTS counts; DROP VIEW v`
	sts, err := ParseStatements(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 11 {
		t.Fatalf("%d statements, want 11", len(sts))
	}
	ct := sts[0].(*CreateTable)
	if !ct.IfNotExists || ct.Name != "clicks" || ct.Format != "kafka" || len(ct.Columns) != 3 ||
		!ct.Columns[0].NotNull || ct.Columns[1].NotNull || ct.Columns[2].Type != arrow.FixedWidthTypes.Date32 {
		t.Fatalf("create table %+v", ct)
	}
	at := func(s string) int { return strings.Index(text, s) }
	wantOpts := []Option{{"kafka.bootstrap.servers", "h:9092", at("kafka.boot"), at("'h:9092'")}, {"subscribe", "c", at("'subscribe'"), at("'c'")},
		{"maxOffsetsPerTrigger", "100", at("maxOff"), at("100")}, {"failOnDataLoss", "false", at("failOn"), at("false")}}
	if len(ct.Options) != len(wantOpts) {
		t.Fatalf("options %+v", ct.Options)
	}
	for i, o := range ct.Options {
		if o != wantOpts[i] {
			t.Errorf("option %d: %+v, want %+v", i, o, wantOpts[i])
		}
	}
	if c := sts[1].(*CreateTable); !c.OrReplace || c.Location != "/t" || c.Columns != nil || len(c.PartitionBy) != 1 {
		t.Fatalf("counts %+v", c)
	}
	v := sts[2].(*CreateView)
	w, ok := v.Query.(*Select).From.(*Watermarked)
	if !v.OrReplace || !ok || w.Delay != 10*time.Second || w.Expr != (plan.ColumnRef{Name: "ts"}) || w.Input.(*Table).Alias != "c" {
		t.Fatalf("view %+v from %+v", v, v.Query.(*Select).From)
	}
	if r := sts[3].(*CreateTable); !r.Temporary || r.Format != "rate" {
		t.Fatalf("temp view using %+v", r)
	}
	if s := sts[4].(*Set); s.Key != "spark.sql.streaming.checkpointLocation" || s.Value != "/tmp/ck" || !s.HasValue {
		t.Fatalf("set %+v", s)
	}
	if s := sts[5].(*Set); s.Key != "" || s.HasValue {
		t.Fatalf("set %+v", s)
	}
	if s := sts[6].(*Set); s.Key != "millrace.sql.trigger" || s.HasValue {
		t.Fatalf("set %+v", s)
	}
	if in := sts[7].(*Insert); in.Table != "counts" || in.Query.(*Select).From.(*Table).Name != "clicks" {
		t.Fatalf("insert %+v", in)
	}
	if e := sts[8].(*Explain); !e.Extended || e.Stmt.(*QueryStatement).Query.(*Select).From.(*Table).Name != "clicks" {
		t.Fatalf("explain %+v", e)
	}
	if d := sts[9].(*DropTable); !d.IfExists || d.View || d.Name != "counts" {
		t.Fatalf("drop %+v", d)
	}
	if d := sts[10].(*DropTable); !d.View || d.Name != "v" {
		t.Fatalf("drop %+v", d)
	}
}

func TestParseWatermark(t *testing.T) {
	// A computed event time may use interval arithmetic.
	q, err := ParseQuery("SELECT * FROM r WATERMARK timestamp + INTERVAL 1 SECOND AS ts2 DELAY OF INTERVAL '10' SECOND t")
	if err != nil {
		t.Fatal(err)
	}
	if w := q.(*Select).From.(*Watermarked); w.Expr.String() != "(timestamp + INTERVAL '1s') AS ts2" || w.Delay != 10*time.Second {
		t.Fatalf("%+v", w)
	}
	q, err = ParseQuery("SELECT * FROM (SELECT * FROM r) WATERMARK ts AS ts2 DELAY OF '1 minute' AS s")
	if err != nil {
		t.Fatal(err)
	}
	w := q.(*Select).From.(*Watermarked)
	if w.Expr != (plan.Alias{E: plan.ColumnRef{Name: "ts"}, Name: "ts2"}) || w.Delay != time.Minute || w.Input.(*Subquery).Alias != "s" || w.At != 32 {
		t.Fatalf("%+v", w)
	}
	// A view named stream is still a view.
	q, err = ParseQuery("SELECT * FROM stream WHERE a > 1")
	if err != nil || q.(*Select).From.(*Table).Name != "stream" {
		t.Fatalf("%v %+v", err, q)
	}
}

func TestParseStatementErrors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{"CREATE TABLE t (a INT", "1:22: expected ')'"},
		{"CREATE TABLE t (a INT, a STRING) USING json", `1:24: column "a" is declared twice`},
		{"CREATE TABLE t USING json OPTIONS (path '/a', PATH '/b')", `1:47: option "PATH" is given twice`},
		{"CREATE TABLE t USING json OPTIONS (path)", `1:40: expected the value of option "path"`},
		{"CREATE TABLE t USING json AS SELECT 1 FROM x", "1:27: CREATE TABLE … AS SELECT is not supported"},
		{"CREATE TABLE t USING json LOCATION '/a' LOCATION '/b'", "1:41: LOCATION is given twice"},
		{"CREATE VIEW v AS SELECT * FROM x", "1:8: only TEMPORARY views are supported"},
		{"CREATE TABLE db.t USING json", "1:16: qualified names"},
		{"INSERT OVERWRITE t SELECT * FROM x", "1:8: INSERT OVERWRITE is not supported"},
		{"INSERT INTO t VALUES (1)", "1:15: INSERT INTO … VALUES is not supported"},
		{"INSERT INTO t (a) SELECT * FROM x", "1:15: INSERT INTO with a column list"},
		{"SELECT * FROM x;\nSELEC 1", "2:1: expected a statement"},
		{"SELECT * FROM x WATERMARK DELAY OF INTERVAL 1 SECOND", "1:27: expected the event-time column"},
		{"SELECT * FROM x WATERMARK ts DELAY OF 5", "1:39: expected a duration"},
		{"EXPLAIN CREATE TABLE t USING rate", "1:9: EXPLAIN takes a query or an INSERT INTO"},
		{"UPDATE t SET a = 1", "1:1: UPDATE is not supported"},
		{"SELECT * FROM x LIMIT 1 OFFSET 2", "1:25: OFFSET is not supported on streams"},
	} {
		_, err := ParseStatements(c.text)
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.msg)
		}
	}
	if _, err := ParseStatement("SELECT * FROM a; SELECT * FROM b"); err == nil || !strings.HasPrefix(err.Error(), "1:18: one statement expected") {
		t.Errorf("two statements: %v", err)
	}
}

// FuzzParseStatements checks that no script panics or hangs the parser
// and that every error is a positioned *Error on a real line of the text.
func FuzzParseStatements(f *testing.F) {
	for _, s := range []string{
		"CREATE TABLE IF NOT EXISTS c (ts TIMESTAMP NOT NULL, u STRING COMMENT 'x') USING kafka OPTIONS (kafka.bootstrap.servers = 'h:1', subscribe 'c', n -1, b true) LOCATION '/x' PARTITIONED BY (u);",
		"CREATE OR REPLACE TEMPORARY VIEW v AS SELECT * FROM STREAM(c) WATERMARK ts AS t2 DELAY OF INTERVAL 10 SECONDS x",
		"SET a.b = c d; SET; SET `k`",
		"INSERT INTO TABLE t SELECT window(ts, '1 minute'), count(*) FROM c GROUP BY 1",
		"EXPLAIN EXTENDED INSERT INTO t SELECT * FROM STREAM c",
		"DROP VIEW IF EXISTS v;; DROP TABLE t PURGE",
		"CREATE TABLE t (a INT",
		"SET = 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		sts, err := ParseStatements(s)
		if err != nil {
			checkPositioned(t, s, err)
			return
		}
		for _, st := range sts {
			if st.Pos() < 0 || st.Pos() > len(s) {
				t.Fatalf("%q: statement at %d outside the text", s, st.Pos())
			}
		}
	})
}
