package pqread

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestDirectColumnsReadAsPqarrow checks the direct fixed-width path against
// pqarrow's record reader on files that exercise it: every type it takes
// (and some it must leave to pqarrow), required and optional columns with
// nulls, several row groups with batches spanning them, dictionary and
// plain encodings, data pages v1 and v2, with and without the stored
// Arrow schema, and a memory-checked allocator for leaks.
func TestDirectColumnsReadAsPqarrow(t *testing.T) {
	for _, dict := range []bool{true, false} {
		for _, v2 := range []bool{false, true} {
			for _, stored := range []bool{true, false} {
				data := directTestFile(t, dict, v2, stored)
				for _, batchRows := range []int64{5, 777, 4096} {
					t.Run(fmt.Sprintf("dict=%v/v2=%v/stored=%v/batch=%d", dict, v2, stored, batchRows), func(t *testing.T) {
						want := readAllWith(t, data, batchRows, false)
						got := readAllWith(t, data, batchRows, true)
						if len(want) != len(got) || len(got) != 2*4*2500 {
							t.Fatalf("%d rows via pqarrow, %d direct", len(want), len(got))
						}
						for i := range want {
							if want[i] != got[i] {
								t.Fatalf("row %d: pqarrow %s\ndirect  %s", i, want[i], got[i])
							}
						}
					})
				}
			}
		}
	}
	// the columns the direct path takes, and those it leaves to pqarrow
	pf, err := file.NewParquetReader(bytes.NewReader(directTestFile(t, true, false, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	props := pqarrow.ArrowReadProperties{}
	fr, err := pqarrow.NewFileReader(pf, props, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	inferred, err := pqarrow.FromParquet(pf.MetaData().Schema, &props, nil)
	if err != nil {
		t.Fatal(err)
	}
	var direct []string
	for i, sf := range fr.Manifest.Fields {
		if newDirectCol(pf, sf, inferred.Field(i).Type) != nil {
			direct = append(direct, sf.Field.Name)
		}
	}
	if got := fmt.Sprint(direct); got != "[i64 i64n i32 f64n f32 ts tsn date u64 s bin ts_ns_stored]" {
		t.Fatalf("direct columns %s", got)
	}
}

func readAllWith(t *testing.T, data []byte, batchRows int64, direct bool) []string {
	t.Helper()
	m := readMode{dicts: true, direct: direct}
	all := readAll(t, data, batchRows, m)
	// and with only direct columns wanted (no pqarrow record reader)
	some := readCols(t, data, batchRows, m, func(name string) bool { return name == "i64n" || name == "ts" || name == "date" || name == "s" })
	return append(all, some...)
}

// directTestFile writes 4 row groups of 2500 rows of fixed-width columns,
// required and optional (about a quarter null), low cardinality (so that
// dictionaries hold) and not, a low-cardinality optional string and a
// binary of random lengths (0 to 300 bytes, so that pages and batches
// split its values unevenly), plus an int8 and a decimal that the direct
// path leaves to pqarrow.
func directTestFile(t *testing.T, dict, v2, stored bool) []byte {
	t.Helper()
	tsUTC := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i64n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "f64n", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "ts", Type: tsUTC},
		{Name: "tsn", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary},
		// ns in Arrow, coerced to µs when written: both paths read µs
		{Name: "ts_ns_stored", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
	}, nil)
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(dict), parquet.WithDataPageVersion(version),
		parquet.WithMaxRowGroupLength(2500), parquet.WithDataPageSize(4096))
	aprops := []pqarrow.WriterOption{pqarrow.WithCoerceTimestamps(arrow.Microsecond), pqarrow.WithTruncatedTimestamps(true)}
	if stored {
		aprops = append(aprops, pqarrow.WithStoreSchema())
	}
	var buf bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.NewArrowWriterProperties(aprops...))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	null := func() bool { return r.IntN(4) == 0 }
	for rg := 0; rg < 4; rg++ {
		for i := 0; i < 2500; i++ {
			row := int64(rg*2500 + i)
			b.Field(0).(*array.Int64Builder).Append(row * 1_000_003)
			if null() {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Int64Builder).Append(int64(r.IntN(7)) - 3)
			}
			b.Field(2).(*array.Int32Builder).Append(int32(r.IntN(50)))
			if null() {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Float64Builder).Append(r.NormFloat64())
			}
			b.Field(4).(*array.Float32Builder).Append(float32(r.IntN(3)) / 4)
			b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000_000 + row*1000))
			if null() {
				b.Field(6).AppendNull()
			} else {
				b.Field(6).(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000_000 + int64(r.IntN(100))))
			}
			if null() {
				b.Field(7).AppendNull()
			} else {
				b.Field(7).(*array.Date32Builder).Append(arrow.Date32(19000 + r.IntN(30)))
			}
			b.Field(8).(*array.Uint64Builder).Append(r.Uint64())
			b.Field(9).(*array.Int8Builder).Append(int8(r.IntN(256) - 128))
			b.Field(10).(*array.Decimal128Builder).Append(decimal128.FromI64(r.Int64N(1e9)))
			if null() {
				b.Field(11).AppendNull()
			} else {
				b.Field(11).(*array.StringBuilder).Append(fmt.Sprint("s", r.IntN(9)))
			}
			b.Field(12).(*array.BinaryBuilder).Append(binValue(r))
			b.Field(13).(*array.TimestampBuilder).Append(arrow.Timestamp((1_700_000_000_000_000 + row) * 1000))
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

// binValue is a random byte string of 0 to 300 bytes, empty one time in
// ten.
func binValue(r *rand.Rand) []byte {
	if r.IntN(10) == 0 {
		return []byte{}
	}
	v := make([]byte, r.IntN(301))
	for i := range v {
		v[i] = byte(r.IntN(256))
	}
	return v
}

// TestPagedColumnsReadAsChunkReader checks the page-by-page path of
// required fixed-width columns (direct_pages.go) against the column chunk
// reader on chunks that mix dictionary and plain pages (a dictionary page
// limit small enough to overflow), a constant column (indices of bit
// width 0), long runs (RLE runs) and random values (bit-packed runs), in
// data pages v1 and v2 and several row groups.
func TestPagedColumnsReadAsChunkReader(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "random", Type: arrow.PrimitiveTypes.Int64},
		{Name: "constant", Type: arrow.PrimitiveTypes.Int64},
		{Name: "runs", Type: arrow.PrimitiveTypes.Int32},
		{Name: "small", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	for _, v2 := range []bool{false, true} {
		version := parquet.DataPageV1
		if v2 {
			version = parquet.DataPageV2
		}
		props := parquet.NewWriterProperties(parquet.WithDictionaryDefault(true), parquet.WithDataPageVersion(version),
			parquet.WithMaxRowGroupLength(3000), parquet.WithDataPageSize(2048), parquet.WithDictionaryPageSizeLimit(4096))
		var buf bytes.Buffer
		w, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(8, 9))
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i := 0; i < 7000; i++ {
			b.Field(0).(*array.Int64Builder).Append(r.Int64N(1 << 40))
			b.Field(1).(*array.Int64Builder).Append(42)
			b.Field(2).(*array.Int32Builder).Append(int32(i / 300))
			b.Field(3).(*array.Float64Builder).Append(float64(r.IntN(20)) / 4)
		}
		rec := b.NewRecordBatch()
		b.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		// and byte arrays: dictionary, dictionary overflowing to plain,
		// binary, all required
		strs := dictTestFile(t, false)
		for _, batchRows := range []int64{1, 333, 4096} {
			readPages = false
			want := readCols(t, strs, batchRows, modeDefault, func(n string) bool { return n != "nullable" })
			readPages = true
			got := readCols(t, strs, batchRows, modeDefault, func(n string) bool { return n != "nullable" })
			if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 15000 {
				t.Fatalf("strings, batch %d: %d rows paged, %d by the chunk reader, or they differ", batchRows, len(got), len(want))
			}
		}
		pf, err := file.NewParquetReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for leaf := 0; leaf < 4; leaf++ {
			if !pagedChunk(pf, 0, leaf) {
				t.Fatalf("v2=%v: column %d is not read page by page", v2, leaf)
			}
		}
		pf.Close()
		for _, batchRows := range []int64{1, 333, 4096} {
			readPages = false
			want := readAll(t, data, batchRows, modeDefault)
			readPages = true
			got := readAll(t, data, batchRows, modeDefault)
			if len(got) != len(want) || len(got) != 7000 {
				t.Fatalf("v2=%v batch=%d: %d rows paged, %d by the chunk reader", v2, batchRows, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("v2=%v batch=%d row %d: paged %s, chunk reader %s", v2, batchRows, i, got[i], want[i])
				}
			}
		}
	}
}
