package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/sources"
)

// writeParquet writes n rows: extra (int64), event_time (timestamp[ms]),
// user (string, null every 3rd row), and nint (int32).
func writeParquet(t *testing.T, path string, n int) {
	t.Helper()
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "extra", Type: arrow.PrimitiveTypes.Int64},
		{Name: "event_time", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "nint", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(1714521600000 + int64(i)))
		if i%3 == 0 {
			b.Field(2).AppendNull()
		} else {
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("u%d", i))
		}
		b.Field(3).(*array.Int32Builder).Append(int32(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(7000)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestParquetProjection(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "p.parquet"), 20000)
	rows, err := readOne(t, Options{Path: dir, Format: Parquet, Schema: clickSchema})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		user := fmt.Sprintf("u%d", i)
		if i%3 == 0 {
			user = "null"
		}
		// n is not in the file: null. event_time is rescaled ms → µs.
		if want := fmt.Sprintf("%s|null|%d", user, us20240501+int64(i)*1000); r != want {
			t.Fatalf("row %d = %s, want %s", i, r, want)
		}
	}
}

// Columns the query never reads (PruneColumns) are not decoded: they come
// out as nulls, the others intact.
func TestParquetPrunedColumns(t *testing.T) {
	dir := t.TempDir()
	// more rows than two batches: the shared null arrays are reused, then
	// remade for the shorter last batch (checkedMem finds a leak)
	const n = 2*BatchRows + 3000
	writeParquet(t, filepath.Join(dir, "p.parquet"), n)
	mem := checkedMem(t)
	s, err := New(Options{Path: dir, Format: Parquet, Schema: clickSchema})
	if err != nil {
		t.Fatal(err)
	}
	s.PruneColumns([]string{"event_time"})
	start, _ := s.InitialOffset(context.Background())
	end, err := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readRange(t, mem, s, start, end)
	if err != nil || len(rows) != n {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	for i, r := range rows {
		if want := fmt.Sprintf("null|null|%d", us20240501+int64(i)*1000); r != want {
			t.Fatalf("row %d = %s, want %s (user pruned)", i, r, want)
		}
	}
}

func TestParquetTypeMismatch(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "p.parquet"), 10)
	schema := arrow.NewSchema([]arrow.Field{{Name: "nint", Type: arrow.BinaryTypes.String}}, nil)
	_, err := readOne(t, Options{Path: dir, Format: Parquet, Schema: schema})
	if err == nil || !strings.Contains(err.Error(), "p.parquet: column nint: type int32 cannot be read as utf8") {
		t.Fatalf("error %v", err)
	}
	// No matching column at all: rows of nulls.
	schema = arrow.NewSchema([]arrow.Field{{Name: "zzz", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rows, err := readOne(t, Options{Path: dir, Format: Parquet, Schema: schema})
	if err != nil || len(rows) != 10 || rows[0] != "null" {
		t.Fatalf("rows %v err %v", rows, err)
	}
	// A corrupt file names the file.
	writeFile(t, dir, "q.parquet", "not parquet at all", 99)
	_, err = readOne(t, Options{Path: dir, Format: Parquet, Schema: clickSchema, Pattern: "q*"})
	if err == nil || !strings.Contains(err.Error(), "q.parquet") {
		t.Fatalf("corrupt file error %v", err)
	}
}
