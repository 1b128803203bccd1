package millrace_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/bench/nexmark"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
	"github.com/millrace/millrace/sql"
)

// runAll runs s over its bounded input to the end and returns the rows.
func runAll(t *testing.T, s *millrace.Stream, mode millrace.OutputMode) [][]any {
	t.Helper()
	rec := testutil.NewRecorder()
	q, err := s.WriteStream(rec).OutputMode(mode).Trigger(millrace.AvailableNow()).Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rec.All()
}

// TestSelectExprMatchesBuilder checks that SQL expression text plans the
// same query as the builder API: Nexmark q1's euro conversion, a filter
// and a windowed count, over generated bids.
func TestSelectExprMatchesBuilder(t *testing.T) {
	// 100 events per second of event time: several 10 s windows.
	cfg := nexmark.Config{Events: 5000, Rate: 100, Seed: 7, NumPartitions: 2}
	bids := func() *millrace.Stream { return millrace.ReadStream(nexmark.NewSource(cfg, nexmark.Bids)) }
	col := millrace.Col
	cases := []struct {
		name     string
		sql, api *millrace.Stream
		mode     millrace.OutputMode
	}{
		{"q1 euros",
			bids().SelectExpr("auction", "price * 0.908 AS euros"),
			bids().Select(col("auction"), col("price").Times(0.908).As("euros")), millrace.Append},
		{"star and filter",
			bids().Filter(millrace.Expr("auction % 123 = 0 OR price BETWEEN 100 AND 200")).SelectExpr("*"),
			bids().Filter(col("auction").Mod(123).Eq(0).Or(col("price").Between(100, 200))), millrace.Append},
		{"in list and cast",
			bids().Where(millrace.Expr("bidder IN (1001, 1002, 1003) AND NOT price IS NULL")).
				SelectExpr("CAST(price AS DOUBLE) / 2 half", "bidder"),
			bids().Where(col("bidder").Eq(1001).Or(col("bidder").Eq(1002)).Or(col("bidder").Eq(1003)).And(col("price").IsNull().Not())).
				Select(col("price").Cast(millrace.Float64).Div(2).As("half"), col("bidder")), millrace.Append},
		{"windowed count",
			bids().WithWatermark("dateTime", time.Second).
				GroupBy(millrace.Expr("window(dateTime, '10 seconds')")).Agg(millrace.Expr("count(*) AS n"), millrace.Expr("max(price)")),
			bids().WithWatermark("dateTime", time.Second).
				GroupBy(millrace.Window(col("dateTime"), 10*time.Second)).Agg(millrace.Count().As("n"), millrace.Max(col("price"))), millrace.Update},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.sql.Err() != nil {
				t.Fatal(c.sql.Err())
			}
			if got, want := c.sql.Schema().String(), c.api.Schema().String(); got != want {
				t.Fatalf("schema:\n%s\nwant\n%s", got, want)
			}
			got, want := runAll(t, c.sql, c.mode), runAll(t, c.api, c.mode)
			if len(want) == 0 {
				t.Fatal("the query produced no rows; the test checks nothing")
			}
			if d := testutil.Diff(got, want); d != "" {
				t.Fatalf("SQL text and builder differ:\n%s", d)
			}
		})
	}
}

// TestExprErrors checks that SQL text that does not parse, or that names
// what is not there, is an analysis error of the stream, kept for Start,
// with the position and a caret.
func TestExprErrors(t *testing.T) {
	src := func() *millrace.Stream {
		return millrace.ReadStream(testutil.Must(memsrc.New(apiSchema, memsrc.Options{})))
	}
	cases := []struct {
		name string
		s    *millrace.Stream
		want string
	}{
		{"syntax error in SelectExpr", src().SelectExpr("user", "amount * )"),
			"select: expr(\"amount * )\"): 1:10: unexpected ')'\n amount * )\n          ^"},
		{"syntax error in a composed column", src().Filter(millrace.Expr("amount >").And(millrace.Col("user").Gt(1))),
			"filter: expr(\"amount >\"): 1:9: unexpected end of input"},
		{"in WithColumn", src().WithColumn("x", millrace.Expr("CASE WHEN TRUE THEN 1")), "expected END, found end of input"},
		{"in GroupBy", src().GroupBy(millrace.Expr("window(event_time)")).Count(), "groupBy: expr"},
		{"in Agg", src().GroupBy(millrace.Col("user")).Agg(millrace.Expr("summ(amount)")), `unknown function summ (did you mean "sum"?)`},
		{"unknown column", src().SelectExpr("amount * 2 AS a", "usr"), `column "usr" not found`},
		{"type error", src().Where(millrace.Expr("event_time > 3")), "cannot compare"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.s.Err() == nil || !strings.Contains(c.s.Err().Error(), c.want) {
				t.Fatalf("Err() = %v, want it to contain %q", c.s.Err(), c.want)
			}
			q, err := c.s.WriteStream(testutil.NewRecorder()).OutputMode(millrace.Update).Start(context.Background())
			if err == nil {
				_ = q.Stop()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Start: %v, want it to contain %q", err, c.want)
			}
		})
	}
	// The parse error is a *sql.Error under the stream's error.
	var se *sql.Error
	if err := src().SelectExpr("a +").Err(); !errors.As(err, &se) || se.Line != 1 || se.Column != 4 {
		t.Fatalf("SelectExpr(\"a +\").Err() = %v, want a *sql.Error at 1:4", err)
	}
	// A valid Expr is the builder's expression.
	if got, want := millrace.Expr("amount * 0.908 AS euros").String(), millrace.Col("amount").Times(0.908).As("euros").String(); got != want {
		t.Fatalf("Expr: %s, want %s", got, want)
	}
}

// CAST(binary AS STRING), as on a Kafka value, reads the bytes as UTF-8
// (invalid sequences as U+FFFD); CAST(string AS BINARY) keeps the bytes.
func TestCastBinaryAndString(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	src := testutil.Must(memsrc.New(schema, memsrc.Options{}))
	if _, err := src.AddRows([]any{[]byte(`{"user":1}`)}, []any{nil}, []any{[]byte("caf\xe9")}); err != nil {
		t.Fatal(err)
	}
	got := runAll(t, millrace.ReadStream(src).SelectExpr("CAST(value AS STRING) AS s", "CAST(CAST(value AS STRING) AS BINARY) AS b"), millrace.Append)
	want := [][]any{{`{"user":1}`, []byte(`{"user":1}`)}, {nil, nil}, {"caf\uFFFD", []byte("caf\uFFFD")}}
	if d := testutil.Diff(got, want); d != "" {
		t.Fatal(d)
	}
}
