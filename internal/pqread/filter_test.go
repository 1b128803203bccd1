package pqread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// filterTestFile writes rows row groups of groupRows rows: k (int64, few
// distinct values, so dictionary encoded until the dictionary passes its
// limit), p (int64, plain), i32 (int32), s (a string), n (a nullable
// int64, null every fifth row), d (int32, 13 values: dictionary encoded), pages of about pageBytes. dictLimit caps
// the dictionary page: past it, a chunk goes on in plain pages.
func filterTestFile(t *testing.T, rows, groupRows, pageBytes int, dictLimit int64) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "p", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(int64(groupRows)),
		parquet.WithDataPageSize(int64(pageBytes)), parquet.WithDictionaryPageSizeLimit(dictLimit),
		parquet.WithDictionaryFor("p", false), parquet.WithDictionaryFor("d", true),
		parquet.WithDictionaryFor("i32", true), parquet.WithBatchSize(64), parquet.WithCompression(compress.Codecs.Snappy))
	return parquetBytes(t, sc, props, func(b *array.RecordBuilder) {
		for i := range rows {
			k := int64(i*7919) % 1000
			if i > rows/2 {
				k += int64(i) // past the middle, many more distinct values
			}
			b.Field(0).(*array.Int64Builder).Append(k)
			b.Field(1).(*array.Int64Builder).Append(int64(i))
			b.Field(2).(*array.Int32Builder).Append(int32(-i))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("s", i))
			if i%5 == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Int64Builder).Append(int64(i))
			}
			b.Field(5).(*array.Int32Builder).Append(int32(i % 13))
		}
	})
}

// parquetBytes writes the rows fill appends to a builder of sc as one
// Parquet file with props, and returns the file.
func parquetBytes(t testing.TB, sc *arrow.Schema, props *parquet.WriterProperties, fill func(b *array.RecordBuilder)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// keepMod keeps the int64 values v with v % m == r; it counts its calls.
func keepMod(m, r int64, calls *int) func(memory.Allocator, arrow.Array, []int32) ([]int32, error) {
	return func(_ memory.Allocator, vals arrow.Array, out []int32) ([]int32, error) {
		*calls++
		for i, v := range vals.(*array.Int64).Int64Values() {
			if v%m == r {
				out = append(out, int32(i))
			}
		}
		return out, nil
	}
}

// readRows reads data's columns cols with opts in batches of batch rows
// and returns each row as a string, and the rows the emit calls counted.
func readRows(t *testing.T, data []byte, cols []string, batch int64, opts ...Option) ([]string, int64) {
	t.Helper()
	return readRowsWith(t, cols, batch, func(mem memory.Allocator, emit func(arrow.RecordBatch, int64) error) error {
		return ReadFrom(context.Background(), mem, bytes.NewReader(data), "test", batch,
			func(n string) bool { return slices.Contains(cols, n) }, emit, opts...)
	})
}

// TestFilterRowsMatchesNaiveFilter reads with a row filter on k and checks
// the rows against every row read without one and filtered here: across
// dictionary pages, plain pages after a dictionary's overflow, several
// pages and row groups, batches of many sizes, the other columns read page
// by page (p, i32) or whole and then taken (s, n); and that every row read
// is counted. A filter on a nullable column, or on a column not read page
// by page, is not applied: the rows are all there.
func TestFilterRowsMatchesNaiveFilter(t *testing.T) {
	const rows = 3000
	for _, f := range []struct {
		name      string
		groupRows int
		pageBytes int
		dictLimit int64
	}{
		{"one group, one page", rows, 1 << 20, 1 << 20},
		{"pages and groups", 700, 512, 1 << 20},
		{"dictionary overflow", 1100, 1024, 2048},
	} {
		data := filterTestFile(t, rows, f.groupRows, f.pageBytes, f.dictLimit)
		cols := []string{"k", "p", "i32", "s", "n", "d"}
		all, counted := readRows(t, data, cols, 4096)
		if len(all) != rows || counted != rows {
			t.Fatalf("%s: read %d rows, counted %d, want %d", f.name, len(all), counted, rows)
		}
		for _, m := range []int64{1, 3, 97, 1500, 5000} {
			var want []string
			for _, r := range all {
				var k int64
				fmt.Sscan(r, &k)
				if k%m == 1%m {
					want = append(want, r)
				}
			}
			for _, batch := range []int64{1, 7, 64, 699, 701, 4096} {
				calls := 0
				got, counted := readRows(t, data, cols, batch, FilterRows([]RowFilter{{Col: "k", Keep: keepMod(m, 1%m, &calls)}}))
				if !slices.Equal(got, want) || counted != rows {
					t.Fatalf("%s, k %% %d, batches of %d: %d rows (counted %d), want %d of %d", f.name, m, batch, len(got), counted, len(want), rows)
				}
				if calls == 0 {
					t.Fatalf("%s: the filter was not applied", f.name)
				}
			}
		}
		// not applied: on a nullable column, on a string column, on a
		// column not read
		for _, c := range []string{"n", "s", "missing"} {
			calls := 0
			got, _ := readRows(t, data, cols, 64, FilterRows([]RowFilter{{Col: c, Keep: keepMod(2, 0, &calls)}}))
			if !slices.Equal(got, all) || calls != 0 {
				t.Fatalf("%s: filter on %s: %d rows, %d calls; want all %d, none", f.name, c, len(got), calls, rows)
			}
		}
	}
}

// TestFilterRowsKeepsAllOnError checks that a Keep that fails keeps every
// row it was asked about: the dictionary entries or plain values of the
// failing call.
func TestFilterRowsKeepsAllOnError(t *testing.T) {
	data := filterTestFile(t, 2000, 500, 1024, 2048)
	all, _ := readRows(t, data, []string{"k", "p"}, 100)
	boom := func(_ memory.Allocator, vals arrow.Array, out []int32) ([]int32, error) {
		return out, errors.New("boom")
	}
	got, counted := readRows(t, data, []string{"k", "p"}, 100, FilterRows([]RowFilter{{Col: "k", Keep: boom}}))
	if !slices.Equal(got, all) || counted != 2000 {
		t.Fatalf("read %d rows, counted %d; want all %d", len(got), counted, len(all))
	}
}
