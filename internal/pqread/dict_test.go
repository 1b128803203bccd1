package pqread

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestDictionaryColumnsReadAsPlain checks the dictionary path and the
// direct one against pqarrow's plain one on files that exercise them:
// several row groups, each with its own dictionary, batches spanning them,
// nulls and empty strings, a column whose dictionary overflows into plain
// pages, large strings (which only the dictionary path takes), binary,
// and a memory-checked allocator for leaks.
func TestDictionaryColumnsReadAsPlain(t *testing.T) {
	for _, large := range []bool{false, true} {
		for _, batchRows := range []int64{7, 1000, 4096} {
			t.Run(fmt.Sprintf("large=%v/batch=%d", large, batchRows), func(t *testing.T) {
				data := dictTestFile(t, large)
				pf, err := file.NewParquetReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				got := dictColumns(pf)
				pf.Close()
				if len(got) != 3 { // low, nullable, bin; not overflow
					t.Fatalf("dictionary columns %v, want the three dictionary-only ones", got)
				}
				plain := readAll(t, data, batchRows, modePlain)
				for _, m := range []readMode{modeDicts, modeDefault} {
					other := readAll(t, data, batchRows, m)
					if len(plain) != len(other) {
						t.Fatalf("%d rows plain, %d %s", len(plain), len(other), m)
					}
					for i := range plain {
						if plain[i] != other[i] {
							t.Fatalf("row %d: plain %q, %s %q", i, plain[i], m, other[i])
						}
					}
				}
			})
		}
	}
}

// readMode says which of the reader's paths a test read takes.
type readMode struct{ dicts, direct bool }

var (
	modePlain   = readMode{}                          // pqarrow's plain path only
	modeDicts   = readMode{dicts: true}               // dictionaries, no direct columns
	modeDefault = readMode{dicts: true, direct: true} // what the reader does
)

func (m readMode) String() string { return fmt.Sprintf("dicts=%v/direct=%v", m.dicts, m.direct) }

func readAll(t *testing.T, data []byte, batchRows int64, m readMode) []string {
	t.Helper()
	return readCols(t, data, batchRows, m, func(string) bool { return true })
}

func readCols(t *testing.T, data []byte, batchRows int64, m readMode, want func(string) bool) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	return readWith(t, mem, data, batchRows, m, want)
}

// readWith reads the file in data with mem, each row as a string.
func readWith(t *testing.T, mem memory.Allocator, data []byte, batchRows int64, m readMode, want func(string) bool) []string {
	t.Helper()
	readDicts, readDirect = m.dicts, m.direct
	defer func() { readDicts, readDirect = true, true }()
	var rows []string
	err := ReadFrom(context.Background(), mem, bytes.NewReader(data), "test", batchRows, want,
		func(rec arrow.RecordBatch, n int64) error {
			for _, c := range rec.Columns() {
				if _, ok := c.(*array.Dictionary); ok {
					t.Fatalf("a dictionary array reached the caller: %s", c.DataType())
				}
			}
			for i := 0; i < int(n); i++ {
				row := ""
				for _, c := range rec.Columns() {
					row += c.ValueStr(i) + "|" + fmt.Sprint(c.IsNull(i)) + ";"
				}
				rows = append(rows, row)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// dictTestFile writes 5 row groups of 3000 rows: low (10 distinct strings
// per row group, different in each), nullable (a third null), bin (binary)
// and overflow (distinct long strings past a 1 KiB dictionary page limit,
// so its chunks fall back to plain pages).
func dictTestFile(t *testing.T, large bool) []byte {
	t.Helper()
	strType, binType := arrow.DataType(arrow.BinaryTypes.String), arrow.DataType(arrow.BinaryTypes.Binary)
	if large {
		strType, binType = arrow.BinaryTypes.LargeString, arrow.BinaryTypes.LargeBinary
	}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "low", Type: strType},
		{Name: "nullable", Type: strType, Nullable: true},
		{Name: "bin", Type: binType},
		{Name: "overflow", Type: strType},
	}, nil)
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithDictionaryPageSizeLimit(1024), parquet.WithMaxRowGroupLength(3000))
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for rg := 0; rg < 5; rg++ {
		for i := 0; i < 3000; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(rg*3000 + i))
			low := fmt.Sprintf("rg%d-v%d", rg, r.IntN(10))
			appendStr(b.Field(1), low)
			if r.IntN(3) == 0 {
				b.Field(2).AppendNull()
			} else if r.IntN(7) == 0 {
				appendStr(b.Field(2), "")
			} else {
				appendStr(b.Field(2), fmt.Sprintf("n%d", r.IntN(5)))
			}
			appendStr(b.Field(3), string([]byte{byte(r.IntN(4)), 0, 0xff}))
			appendStr(b.Field(4), fmt.Sprintf("distinct-%d-%064d", rg*3000+i, r.Int64()))
		}
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func appendStr(b array.Builder, s string) {
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(s)
	case *array.LargeStringBuilder:
		b.Append(s)
	case *array.BinaryBuilder:
		b.Append([]byte(s))
	}
}
