package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsink "github.com/millrace/millrace/sinks/memory"
	"github.com/millrace/millrace/sources/file"
)

var skipSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String},
}, nil)

// writeSkipFiles writes files Parquet files of groups row groups of 100
// rows: in file f, group g, row i, k = 1000f + 100g + i and s = "f-g-iii".
func writeSkipFiles(t *testing.T, dir string, files, groups int) {
	t.Helper()
	for f := 0; f < files; f++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, skipSchema)
		for g := 0; g < groups; g++ {
			for i := 0; i < 100; i++ {
				b.Field(0).(*array.Int64Builder).Append(int64(1000*f + 100*g + i))
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%d-%d-%03d", f, g, i))
			}
		}
		rec := b.NewRecordBatch()
		b.Release()
		writeParquetFile(t, filepath.Join(dir, fmt.Sprintf("part-%d.parquet", f)), rec, parquet.WithMaxRowGroupLength(100))
		rec.Release()
	}
}

// TestFilterSkipsParquetRowGroups runs filters over the file source and
// checks the rows against a naive evaluation, and the input rows the
// progress reports against the row groups the statistics allow: a filter
// right on the scan skips the others, and drops rows as they are decoded
// (which still count as input); the same filter behind a projection
// (nothing pushed) reads every row, with the same result.
func TestFilterSkipsParquetRowGroups(t *testing.T) {
	dir := t.TempDir()
	writeSkipFiles(t, dir, 3, 4)
	col, lit := millrace.Col, millrace.Lit
	var filtered string // the last progress's rowsFiltered
	run := func(s *millrace.Stream) (rows [][]any, input int64) {
		t.Helper()
		sink := testutil.Must(memsink.New(memsink.Options{}))
		q, err := s.WriteStream(sink).Trigger(millrace.AvailableNow()).Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, p := range q.RecentProgress() {
			input += p.NumInputRows
			filtered = p.Sources[0].Metrics["rowsFiltered"]
		}
		return sink.Sorted(), input
	}
	src := func() *millrace.Stream {
		s, err := file.New(file.Options{Path: dir, Format: file.Parquet, Schema: skipSchema, MaxFilesPerTrigger: 1})
		if err != nil {
			t.Fatal(err)
		}
		return millrace.ReadStream(s)
	}
	for _, c := range []struct {
		name   string
		cond   millrace.Column
		oracle func(k int64, s string) bool
		groups int64  // row groups read
		sql    string // the condition in SQL, when given
		kOnly  bool   // every conjunct reads k alone
	}{
		{"k >= 1250", col("k").Ge(lit(1250)), func(k int64, _ string) bool { return k >= 1250 }, 6, "k >= 1250", true},
		{"k < 120 and s > 0-0-050", col("k").Lt(lit(120)).And(col("s").Gt(lit("0-0-050"))),
			func(k int64, s string) bool { return k < 120 && s > "0-0-050" }, 2, "k < 120 AND s > '0-0-050'", false},
		{"2301 = k", lit(2301).Eq(col("k")), func(k int64, _ string) bool { return k == 2301 }, 1, "2301 = k", true},
		{"k = 550 (in no group)", col("k").Eq(lit(550)), func(k int64, _ string) bool { return k == 550 }, 0, "", true},
		{"k % 2 = 0 and s >= 2", col("k").Mod(lit(2)).Eq(lit(0)).And(col("s").Ge(lit("2"))),
			func(k int64, s string) bool { return k%2 == 0 && s >= "2" }, 4, "k % 2 = 0 AND s >= '2'", false},
		// rows dropped as decoded (two conjuncts on k, one a remainder),
		// still counted as input
		{"k % 7 = 3 and k > 1150", col("k").Mod(lit(7)).Eq(lit(3)).And(col("k").Gt(lit(1150))),
			func(k int64, _ string) bool { return k%7 == 3 && k > 1150 }, 7, "k % 7 = 3 AND k > 1150", true},
		// every row read dropped as decoded: empty batches, still input
		{"k % 1000 = 999 and k < 1000", col("k").Mod(lit(1000)).Eq(lit(999)).And(col("k").Lt(lit(1000))),
			func(k int64, _ string) bool { return k%1000 == 999 && k < 1000 }, 4, "k % 1000 = 999 AND k < 1000", true},
	} {
		var want [][]any
		for f := 0; f < 3; f++ {
			for g := 0; g < 4; g++ {
				for i := 0; i < 100; i++ {
					k, s := int64(1000*f+100*g+i), fmt.Sprintf("%d-%d-%03d", f, g, i)
					if c.oracle(k, s) {
						want = append(want, []any{k, s})
					}
				}
			}
		}
		got, input := run(src().Filter(c.cond))
		checkRows(t, c.name, got, want)
		if input != 100*c.groups {
			t.Errorf("%s: %d input rows, want the %d of %d row groups", c.name, input, 100*c.groups, c.groups)
		}
		// every row the conjuncts on k reject is dropped as decoded
		if c.kOnly && filtered != fmt.Sprint(100*c.groups-int64(len(want))) {
			t.Errorf("%s: %s rows filtered in the scan, want %d", c.name, filtered, 100*c.groups-int64(len(want)))
		}
		if c.sql != "" { // the same filter from SQL: WHERE sits right on the scan
			se := millrace.NewSession()
			se.CreateTempView("t", src())
			st, err := se.SQL(context.Background(), "SELECT k, s FROM t WHERE "+c.sql)
			if err != nil {
				t.Fatal(err)
			}
			got, input = run(st)
			checkRows(t, c.name+" (SQL)", got, want)
			if input != 100*c.groups {
				t.Errorf("%s (SQL): %d input rows, want %d", c.name, input, 100*c.groups)
			}
		}
		got, input = run(src().Select(col("k"), col("s")).Filter(c.cond))
		checkRows(t, c.name+" (behind a projection)", got, want)
		if input != 1200 {
			t.Errorf("%s behind a projection: %d input rows, want all 1200", c.name, input)
		}
	}
}
