package console

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/kernels"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "count", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "ts", Type: columnar.Timestamp, Nullable: true},
	{Name: "avg", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

func rec(mem memory.Allocator, n int, long bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		key := string(rune('a' + i%26))
		if long {
			key = "a fairly long string value"
		}
		b.Field(0).(*array.StringBuilder).Append(key)
		if i == 1 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(1714521600000000 + int64(i)*1500000))
		b.Field(3).(*array.Float64Builder).Append(float64(i) / 2)
	}
	return b.NewRecordBatch()
}

func run(t *testing.T, mem memory.Allocator, s *Sink, id int64, sizes ...int) {
	t.Helper()
	ctx := context.Background()
	w, _ := s.Begin(ctx, sinks.BatchInfo{BatchID: id, Schema: schema})
	if w.Skip() {
		t.Fatal("console skipped")
	}
	for _, n := range sizes {
		r := rec(mem, n, false)
		w.Write(ctx, r)
		r.Release()
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConsoleOutput(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		name  string
		opts  Options
		sizes []int
		want  string
	}{
		{"two rows (a 21-character timestamp is truncated, as in Spark)", Options{}, []int{2}, `-------------------------------------------
Batch: 7
-------------------------------------------
+---+-----+--------------------+---+
|key|count|                  ts|avg|
+---+-----+--------------------+---+
|  a|    0| 2024-05-01 00:00:00|0.0|
|  b| null|2024-05-01 00:00:...|0.5|
+---+-----+--------------------+---+

`},
		{"limited across records", Options{NumRows: 3, Truncate: 25}, []int{2, 2}, `-------------------------------------------
Batch: 7
-------------------------------------------
+---+-----+---------------------+---+
|key|count|                   ts|avg|
+---+-----+---------------------+---+
|  a|    0|  2024-05-01 00:00:00|0.0|
|  b| null|2024-05-01 00:00:01.5|0.5|
|  a|    0|  2024-05-01 00:00:00|0.0|
+---+-----+---------------------+---+
only showing top 3 rows

`},
		{"empty batch", Options{}, nil, `-------------------------------------------
Batch: 7
-------------------------------------------
+---+-----+---+---+
|key|count| ts|avg|
+---+-----+---+---+
+---+-----+---+---+

`},
		{"no truncation left-aligns", Options{Truncate: -1, NumRows: 1}, []int{2}, `-------------------------------------------
Batch: 7
-------------------------------------------
+---+-----+-------------------+---+
|key|count|ts                 |avg|
+---+-----+-------------------+---+
|a  |0    |2024-05-01 00:00:00|0.0|
+---+-----+-------------------+---+
only showing top 1 row

`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tc.opts.Writer = &out
			run(t, mem, testutil.Must(New(tc.opts)), 7, tc.sizes...)
			want := tc.want
			if out.String() != want {
				t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
			}
		})
	}
}

func TestConsoleTruncateAndAbort(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out bytes.Buffer
	s := testutil.Must(New(Options{Writer: &out, Truncate: 10}))
	ctx := context.Background()
	w, _ := s.Begin(ctx, sinks.BatchInfo{BatchID: 0, Schema: schema})
	r := rec(mem, 1, true)
	w.Write(ctx, r)
	r.Release()
	w.Abort()
	if out.Len() != 0 {
		t.Fatal("aborted batch printed")
	}
	w, _ = s.Begin(ctx, sinks.BatchInfo{BatchID: 0, Schema: schema})
	r = rec(mem, 1, true)
	w.Write(ctx, r)
	r.Release()
	w.Commit(ctx)
	if !strings.Contains(out.String(), "|a fairl...|") || !strings.Contains(out.String(), "|2024-05...|") {
		t.Fatalf("not truncated:\n%s", out.String())
	}
}

func TestFormatFloat(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", -2.5: "-2.5", 1e7: "1.0E7", 1.5e-5: "1.5E-5", 123456.789: "123456.789",
	} {
		if got := string(kernels.AppendJavaDouble(nil, f, 64)); got != want {
			t.Errorf("AppendJavaDouble(%g) = %s, want %s", f, got, want)
		}
	}
}
