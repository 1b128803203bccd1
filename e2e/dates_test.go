package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks/console"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// DATE columns end to end: written to the sinks, grouped by, aggregated.

// TestDateColumnSinks writes a DATE column (to_date's result) to the sinks
// Millrace ships: the Delta table declares Delta's "date" type and reads
// back the same days; the console prints dates as Spark's show() does.
func TestDateColumnSinks(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	stream := func() *millrace.Stream {
		src := testutil.Must(memsrc.New(schema, memsrc.Options{}))
		if _, err := src.AddRows([]any{"2024-02-29 10:00:00"}, []any{"1969-12-31"}, []any{nil}); err != nil {
			t.Fatal(err)
		}
		return millrace.ReadStream(src).Select(millrace.ToDate(millrace.Col("s")).As("day"))
	}
	ctx := context.Background()

	table := filepath.Join(t.TempDir(), "table")
	q, err := stream().WriteStream(testutil.Must(lake.NewSink(table, lake.SinkOptions{}))).
		OutputMode(millrace.Append).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(table, "_delta_log", "00000000000000000000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `\"type\":\"date\"`) {
		t.Errorf("the table's schema does not declare a date column: %s", log)
	}
	snap, err := lake.LoadSnapshot(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := snap.ReadAll(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Schema().Field(0).Type.ID() != arrow.DATE32 {
			t.Errorf("read back as %s", r.Schema().Field(0).Type)
		}
		for i := 0; i < int(r.NumRows()); i++ {
			got = append(got, r.Column(0).ValueStr(i))
		}
		r.Release()
	}
	if strings.Join(got, ",") != "2024-02-29,1969-12-31,(null)" {
		t.Errorf("Delta table holds %v", got)
	}

	var out bytes.Buffer
	q, err = stream().WriteStream(testutil.Must(console.New(console.Options{Writer: &out}))).
		OutputMode(millrace.Append).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "|2024-02-29|") || !strings.Contains(out.String(), "|1969-12-31|") {
		t.Errorf("console printed:\n%s", out.String())
	}
}

// TestGroupByDate counts rows per day (GROUP BY to_date(ts), the daily
// count a streaming user writes) one row per trigger with a checkpoint, so
// that the DATE key goes through the hash table, the shuffle's hash and the
// state store's key encoding and back. Before DATE keys were supported the
// query was refused ("cannot group by date32").
func TestGroupByDate(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	read := func() *millrace.Stream {
		src := testutil.Must(memsrc.New(schema, memsrc.Options{}))
		for _, r := range []any{"2024-02-29 10:00:00", "2024-02-29 23:59:59", "1969-12-31 23:59:59", nil, "2024-03-01", "1969-12-31"} {
			if _, err := src.AddRows([]any{r}); err != nil {
				t.Fatal(err)
			}
		}
		return millrace.ReadStream(src)
	}
	day := millrace.ToDate(millrace.Col("s")).As("day")
	for _, q := range []*millrace.Stream{
		read().GroupBy(day).Agg(millrace.Count().As("n")),                                        // one int key
		read().GroupBy(day, millrace.Col("s").IsNull().As("none")).Agg(millrace.Count().As("n")), // generic keys
	} {
		if q.Err() != nil {
			t.Fatal(q.Err())
		}
		var got []string
		for _, row := range finalCompleteRows(t, q) {
			d := "null"
			if v, ok := row[0].(arrow.Date32); ok {
				d = v.FormattedString()
			}
			got = append(got, fmt.Sprintf("%s:%v", d, row[len(row)-1]))
		}
		sort.Strings(got)
		if want := "[1969-12-31:2 2024-02-29:2 2024-03-01:1 null:1]"; fmt.Sprint(got) != want {
			t.Errorf("daily counts %v, want %s", got, want)
		}
	}
}

// TestMinMaxDate takes min and max of a DATE per key across triggers (the
// state store keeps them between batches), as Spark's min/max of a date;
// before, plan refused min/max of a date.
func TestMinMaxDate(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	src := testutil.Must(memsrc.New(schema, memsrc.Options{}))
	for _, r := range [][]any{{"a", "2024-02-29"}, {"a", "1969-12-31"}, {"b", nil}, {"a", "2024-03-01 10:00"}, {"b", "2000-01-01"}} {
		if _, err := src.AddRows(r); err != nil {
			t.Fatal(err)
		}
	}
	day := millrace.ToDate(millrace.Col("s"))
	q := millrace.ReadStream(src).GroupBy(millrace.Col("k")).Agg(millrace.Min(day).As("first"), millrace.Max(day).As("last"))
	if q.Err() != nil {
		t.Fatal(q.Err())
	}
	if typ := q.Schema().Field(1).Type; typ.ID() != arrow.DATE32 {
		t.Fatalf("min of a date is %s", typ)
	}
	var got []string
	for _, row := range finalCompleteRows(t, q) {
		got = append(got, fmt.Sprintf("%v %s %s", row[0], row[1].(arrow.Date32).FormattedString(), row[2].(arrow.Date32).FormattedString()))
	}
	sort.Strings(got)
	if want := "[a 1969-12-31 2024-03-01 b 2000-01-01 2000-01-01]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// finalCompleteRows runs q in Complete mode, one input row per trigger,
// to the end of its input, and returns the rows of its last batch: the
// final result, built across triggers through the state store.
func finalCompleteRows(t *testing.T, q *millrace.Stream) [][]any {
	t.Helper()
	rec := testutil.NewRecorder()
	ctx := context.Background()
	w, err := q.WriteStream(rec).OutputMode(millrace.Complete).Trigger(millrace.AvailableNow()).
		Checkpoint(filepath.Join(t.TempDir(), "ckpt")).MaxRowsPerTrigger(1).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	_, batches := rec.Batches()
	return batches[len(batches)-1]
}
