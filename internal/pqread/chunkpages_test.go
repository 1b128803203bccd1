package pqread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// pagesTestFile writes 2000 rows of required columns (k: int64 of 300
// values, p: plain int64, s: a string of 40 values, d: a double) and a
// nullable one (n), with the given codec and data page version, pages of
// about 1 KiB and row groups of 700 rows.
func pagesTestFile(t testing.TB, codec compress.Compression, v2 bool) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "p", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	version := parquet.DataPageV1
	if v2 {
		version = parquet.DataPageV2
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(codec), parquet.WithDataPageVersion(version),
		parquet.WithMaxRowGroupLength(700), parquet.WithDataPageSize(1024), parquet.WithBatchSize(100),
		parquet.WithDictionaryFor("p", false), parquet.WithDictionaryFor("k", true), parquet.WithDictionaryFor("s", true))
	return parquetBytes(t, sc, props, func(b *array.RecordBuilder) {
		for i := range 2000 {
			b.Field(0).(*array.Int64Builder).Append(int64(i * 7919 % 300))
			b.Field(1).(*array.Int64Builder).Append(int64(i) << 20)
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprint("value-", i%40))
			b.Field(3).(*array.Float64Builder).Append(float64(i) / 3)
			if i%3 == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Int32Builder).Append(int32(i))
			}
		}
	})
}

var pageCodecs = []compress.Compression{compress.Codecs.Uncompressed, compress.Codecs.Snappy, compress.Codecs.Gzip, compress.Codecs.Zstd}

// TestChunkPagesMatchArrow reads every chunk of files of every codec and
// both data page versions with chunkPages and with arrow-go's page reader
// and checks that they give the same pages: kind, value count, encoding,
// levels and bytes.
func TestChunkPagesMatchArrow(t *testing.T) {
	for _, codec := range pageCodecs {
		for _, v2 := range []bool{false, true} {
			data := pagesTestFile(t, codec, v2)
			pf, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			pages := 0
			for rg := range pf.NumRowGroups() {
				for leaf := range pf.MetaData().Schema.NumColumns() {
					var buf []byte
					ours := newChunkPages(pf, data, rg, leaf, &buf)
					if ours == nil {
						t.Fatalf("%s: no chunk pages", codec)
					}
					pr, err := pf.RowGroup(rg).GetColumnPageReader(leaf)
					if err != nil {
						t.Fatal(err)
					}
					theirs := arrowPages{pr}
					for {
						var a, b rawPage
						okA, errA := ours.next(&a)
						okB, errB := theirs.next(&b)
						if errA != nil || errB != nil || okA != okB {
							t.Fatalf("%s v2=%v rg %d col %d: ours %v %v, arrow-go's %v %v", codec, v2, rg, leaf, okA, errA, okB, errB)
						}
						if !okA {
							break
						}
						pages++
						if a.dict != b.dict || a.v2 != b.v2 || a.numValues != b.numValues || a.numNulls != b.numNulls ||
							a.levels != b.levels || a.encoding != b.encoding || !bytes.Equal(a.data, b.data) {
							t.Fatalf("%s v2=%v rg %d col %d: page %+v, arrow-go's %+v", codec, v2, rg, leaf, a, b)
						}
					}
					theirs.close()
				}
			}
			if pages < 20 {
				t.Fatalf("%s: only %d pages", codec, pages)
			}
		}
	}
}

// TestReadMappedMatchesArrow reads the files whole through Read (mapped),
// ReadBytes and ReadFrom (arrow-go's pages), in batches of several sizes,
// with and without a row filter, and checks that the rows are the same.
func TestReadMappedMatchesArrow(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"k", "p", "s", "d", "n"}
	for _, codec := range pageCodecs {
		for _, v2 := range []bool{false, true} {
			data := pagesTestFile(t, codec, v2)
			path := filepath.Join(dir, fmt.Sprintf("%s-%v.parquet", codec, v2))
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, batch := range []int64{1, 99, 4096} {
				calls := 0
				for _, opts := range [][]Option{nil, {FilterRows([]RowFilter{{Col: "k", Keep: keepMod(7, 2, &calls)}})}} {
					want, _ := readRows(t, data, cols, batch, opts...)
					got, _ := readRowsWith(t, cols, batch, func(mem memory.Allocator, emit func(arrow.RecordBatch, int64) error) error {
						return ReadBytes(context.Background(), mem, data, "test", batch, func(n string) bool { return slices.Contains(cols, n) }, emit, opts...)
					})
					if !slices.Equal(got, want) {
						t.Fatalf("%s v2=%v batch %d: ReadBytes gave %d rows, ReadFrom %d", codec, v2, batch, len(got), len(want))
					}
					got, _ = readRowsWith(t, cols, batch, func(mem memory.Allocator, emit func(arrow.RecordBatch, int64) error) error {
						return Read(context.Background(), mem, path, "test", batch, func(n string) bool { return slices.Contains(cols, n) }, emit, opts...)
					})
					if !slices.Equal(got, want) {
						t.Fatalf("%s v2=%v batch %d: Read gave %d rows, ReadFrom %d", codec, v2, batch, len(got), len(want))
					}
				}
			}
		}
	}
}

// readRowsWith is readRows over any read.
func readRowsWith(t *testing.T, cols []string, batch int64, read func(memory.Allocator, func(arrow.RecordBatch, int64) error) error) ([]string, int64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var got []string
	var counted int64
	err := read(mem, func(rec arrow.RecordBatch, n int64) error {
		counted += n
		if rec.NumRows() > n {
			return fmt.Errorf("a batch of %d rows counted as %d", rec.NumRows(), n)
		}
		for i := range int(rec.NumRows()) {
			var row []string
			for c := range int(rec.NumCols()) {
				row = append(row, rec.Column(c).ValueStr(i))
			}
			got = append(got, strings.Join(row, " "))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, counted
}

// TestReadTruncatedWhileMapped cuts the file short while it is read: the
// read fails with an error naming the file, instead of the process dying
// of SIGBUS.
func TestReadTruncatedWhileMapped(t *testing.T) {
	data := pagesTestFile(t, compress.Codecs.Uncompressed, false)
	path := filepath.Join(t.TempDir(), "cut.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	batches := 0
	err := Read(context.Background(), memory.NewGoAllocator(), path, "test", 50,
		func(n string) bool { return n == "k" || n == "p" },
		func(rec arrow.RecordBatch, n int64) error {
			if batches++; batches == 1 {
				return os.Truncate(path, 0)
			}
			return nil
		})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("read of a file cut short: %v", err)
	}
}

// FuzzPageHeader checks that parsePageHeader never panics nor reads past
// its input, and that a header it accepts has the sizes it read.
func FuzzPageHeader(f *testing.F) {
	for _, v2 := range []bool{false, true} {
		data := pagesTestFile(f, compress.Codecs.Snappy, v2)
		f.Add(data[4:200])
	}
	f.Add([]byte{0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := parsePageHeader(b)
		if err == nil && (n <= 0 || n > len(b)) {
			t.Fatalf("header of %d bytes in %d: %+v", n, len(b), h)
		}
	})
}

// FuzzReadBytes reads mutated files in place (chunkPages, the direct
// columns, a row filter): any input gives rows or an error, never a panic
// out of the reader.
func FuzzReadBytes(f *testing.F) {
	for _, codec := range []compress.Compression{compress.Codecs.Snappy, compress.Codecs.Uncompressed} {
		for _, v2 := range []bool{false, true} {
			f.Add(pagesTestFile(f, codec, v2), v2)
		}
	}
	cols := []string{"k", "p", "s", "d", "n"}
	f.Fuzz(func(t *testing.T, data []byte, filter bool) {
		var opts []Option
		calls := 0
		if filter {
			opts = append(opts, FilterRows([]RowFilter{{Col: "k", Keep: keepMod(3, 1, &calls)}}))
		}
		var rows int64
		_ = ReadBytes(context.Background(), memory.NewGoAllocator(), data, "fuzz", 128,
			func(n string) bool { return slices.Contains(cols, n) },
			func(rec arrow.RecordBatch, n int64) error {
				if rec != nil && rec.NumRows() > n {
					t.Fatalf("a batch of %d rows counted as %d", rec.NumRows(), n)
				}
				// a footer may claim any number of rows, which a read of
				// no column it has emits as counts alone
				if rows += n; rows > 1<<20 {
					return errors.New("enough")
				}
				return nil
			}, opts...)
	})
}
