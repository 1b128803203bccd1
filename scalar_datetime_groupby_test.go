package millrace_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

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
		last := batches[len(batches)-1]
		var got []string
		for _, row := range last {
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
	var got []string
	for _, row := range batches[len(batches)-1] {
		got = append(got, fmt.Sprintf("%v %s %s", row[0], row[1].(arrow.Date32).FormattedString(), row[2].(arrow.Date32).FormattedString()))
	}
	sort.Strings(got)
	if want := "[a 1969-12-31 2024-03-01 b 2000-01-01 2000-01-01]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}
