// Package pqread reads the columns a caller names from a Parquet file, in
// record batches, with arrow-go (flat fixed-width and string columns by its
// column chunk reader, straight into the batch's buffers; the rest by
// pqarrow): the plumbing that lake's data files and the file source's
// Parquet files share. Fitting the columns to the caller's schema is
// kernels.Conform; filling in columns the file lacks (nulls, Delta
// partition values) is the caller's. Snappy pages are decompressed by
// internal/snappy, installed as arrow-go's snappy codec when this package
// is loaded.
package pqread

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/snappy"
)

func init() { snappy.Install() }

// Read opens the Parquet file at path and calls emit for each record batch
// (at most batchRows rows) of the file's top-level columns for which
// want(name) is true, in file order. When the file has none of them, emit
// gets a nil record and the row counts, so that callers still produce one
// row per row of the file. The record belongs to the reader: emit must
// Retain what it keeps.
//
// what names the kind of file in errors ("lake: data file", may be empty):
// Read's own errors read "<what> <path>: …"; emit's errors are returned as they are. Read stops at
// the first error and when ctx is done.
func Read(ctx context.Context, mem memory.Allocator, path, what string, batchRows int64,
	want func(name string) bool, emit func(rec arrow.RecordBatch, rows int64) error, opts ...Option) error {
	where := strings.TrimSpace(what + " " + path)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: open: %w", where, err)
	}
	defer f.Close()
	// the pages that pageCol decodes are read from the file mapped
	// (chunkPages); a file cut short under the reader then faults, which
	// SetPanicOnFault turns into a panic that guard reports as an error
	mapped, unmap := mapFile(f)
	if unmap != nil {
		defer unmap()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		opts = append(opts, func(c *readConfig) { c.mapped = mapped })
	}
	pf, err := guard(func() (*file.Reader, error) { return file.NewParquetReader(f, readOptions()...) })
	if err != nil {
		return fmt.Errorf("%s: open: %w", where, err)
	}
	defer pf.Close()
	return readFile(ctx, mem, pf, where, batchRows, want, emit, opts)
}

// ReadFrom is Read of a Parquet file held by r (an object in memory, or
// ranged reads of an object in object storage); where names it in errors
// ("lake: data file s3://bucket/t/part-0.parquet").
func ReadFrom(ctx context.Context, mem memory.Allocator, r parquet.ReaderAtSeeker, where string, batchRows int64,
	want func(name string) bool, emit func(rec arrow.RecordBatch, rows int64) error, opts ...Option) error {
	pf, err := guard(func() (*file.Reader, error) { return file.NewParquetReader(r) })
	if err != nil {
		return fmt.Errorf("%s: open: %w", where, err)
	}
	defer pf.Close()
	return readFile(ctx, mem, pf, where, batchRows, want, emit, opts)
}

// ReadBytes is ReadFrom of a file held whole in memory (an object read
// whole): the pages of the columns read directly are decoded where they
// lie, without a copy.
func ReadBytes(ctx context.Context, mem memory.Allocator, data []byte, where string, batchRows int64,
	want func(name string) bool, emit func(rec arrow.RecordBatch, rows int64) error, opts ...Option) error {
	opts = append(opts, func(c *readConfig) { c.mapped = data })
	return ReadFrom(ctx, mem, bytes.NewReader(data), where, batchRows, want, emit, opts...)
}

func readFile(ctx context.Context, mem memory.Allocator, pf *file.Reader, where string, batchRows int64,
	want func(name string) bool, emit func(rec arrow.RecordBatch, rows int64) error, opts []Option) error {
	var cfg readConfig
	for _, o := range opts {
		o(&cfg)
	}
	keep, total := keptRowGroups(pf, cfg.conds)
	if total == 0 {
		return nil
	}
	// PreAllocBinaryData sizes a string column's buffer from the column
	// chunk's size up front, instead of doubling it as values arrive
	// (1.12x on Nexmark's bids, BENCHMARKS "Parquet scan").
	props := pqarrow.ArrowReadProperties{BatchSize: batchRows, PreAllocBinaryData: true}
	fr, leaves, fields, directs, err := columnsOf(pf, props, mem, where, want)
	if err != nil {
		return err
	}
	// dictionary-only string columns the direct path does not take are
	// read as dictionaries (dict.go)
	if readDicts {
		redo := false
		for _, c := range dictColumns(pf) {
			if !slices.ContainsFunc(directs, func(d *directCol) bool { return d != nil && d.leaf == c }) {
				props.SetReadDict(c, true)
				redo = true
			}
		}
		if redo {
			if fr, leaves, fields, directs, err = columnsOf(pf, props, mem, where, want); err != nil {
				return err
			}
		}
	}
	for _, d := range directs {
		if d != nil {
			d.keep, d.mapped = keep, cfg.mapped
		}
	}
	if len(fields) == 0 {
		for lo := int64(0); lo < total; lo += batchRows {
			if err := emit(nil, min(total-lo, batchRows)); err != nil {
				return err
			}
			if err := ctx.Err(); err != nil { // a footer may claim any number of rows
				return err
			}
		}
		return nil
	}
	b := batcher{mem: unzeroed(mem), pf: pf, where: where, fields: fields, directs: directs}
	defer func() {
		for _, d := range directs {
			if d != nil {
				d.release()
			}
		}
	}()
	if len(leaves) == 0 { // every column read directly
		b.filter = chooseFilter(pf, cfg.filters, fields, directs, keep, mem) // Keep gets zeroed memory
		for lo := int64(0); lo < total; lo += batchRows {
			n := min(total-lo, batchRows)
			var err error
			if b.filter != nil {
				err = b.emitFiltered(n, emit)
			} else {
				err = b.emit(nil, n, emit)
			}
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	var groups []int // nil: all
	for rg, k := range keep {
		if k {
			groups = append(groups, rg)
		}
	}
	rr, err := guard(func() (pqarrow.RecordReader, error) { return fr.GetRecordReader(ctx, leaves, groups) })
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	defer rr.Release()
	for {
		more, err := guard(func() (bool, error) { return rr.Next(), nil })
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if !more {
			break
		}
		rec := decodeDicts(mem, rr.RecordBatch())
		err = b.emit(rec, rec.NumRows(), emit)
		rec.Release()
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", where, err)
	}
	return nil
}

// unzeroed returns the view of mem that skips zeroing recycled memory
// (columnar.Recycler's), or mem itself: the direct columns write every
// byte they allocate.
func unzeroed(mem memory.Allocator) memory.Allocator {
	if u, ok := mem.(interface{ Unzeroed() memory.Allocator }); ok {
		return u.Unzeroed()
	}
	return mem
}

// columnsOf plans the read of the wanted columns: pqarrow's reader of the
// file, the leaves it reads, and per output field its direct reader or nil.
func columnsOf(pf *file.Reader, props pqarrow.ArrowReadProperties, mem memory.Allocator, where string,
	want func(name string) bool) (fr *pqarrow.FileReader, leaves []int, fields []arrow.Field, directs []*directCol, err error) {
	fr, err = guard(func() (*pqarrow.FileReader, error) {
		return pqarrow.NewFileReader(pf, props, mem)
	})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	// inferred is what pqarrow makes of the Parquet schema alone, without
	// the file's stored Arrow schema (see newDirectCol)
	inferred, _ := pqarrow.FromParquet(pf.MetaData().Schema, &props, nil)
	for i, sf := range fr.Manifest.Fields {
		if !want(sf.Field.Name) {
			continue
		}
		var d *directCol
		if readDirect && inferred != nil && i < inferred.NumFields() && inferred.Field(i).Name == sf.Field.Name {
			d = newDirectCol(pf, sf, inferred.Field(i).Type)
		}
		if d == nil {
			leaves = appendLeaves(leaves, sf)
		}
		fields = append(fields, *sf.Field)
		directs = append(directs, d)
	}
	return fr, leaves, fields, directs, nil
}

// batcher puts together the records a file emits: pqarrow's columns and
// the directly read ones, in the file's column order.
type batcher struct {
	mem     memory.Allocator // the direct columns' (unzeroed)
	pf      *file.Reader
	where   string
	fields  []arrow.Field
	directs []*directCol
	filter  *rowFilter // FilterRows's, when the read applies one
}

// emit calls emit with n rows: the columns of rec (pqarrow's, nil when
// every column is read directly) and the next n rows of each direct
// column.
func (b *batcher) emit(rec arrow.RecordBatch, n int64, emit func(rec arrow.RecordBatch, rows int64) error) error {
	if rec != nil && rec.NumCols() == int64(len(b.fields)) {
		return emit(rec, n) // no direct column
	}
	cols := make([]arrow.Array, len(b.fields))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range b.fields {
		if d := b.directs[i]; d != nil {
			c, err := guard(func() (arrow.Array, error) { return d.read(b.mem, b.pf, int(n)) })
			if err != nil {
				return fmt.Errorf("%s: %w", b.where, err)
			}
			cols[i] = c
			continue
		}
		idx := rec.Schema().FieldIndices(f.Name)
		if len(idx) != 1 {
			return fmt.Errorf("%s: column %s missing from the reader's batch", b.where, f.Name)
		}
		cols[i] = rec.Column(idx[0])
		cols[i].Retain()
		b.fields[i] = rec.Schema().Field(idx[0]) // a decoded dictionary's type
	}
	out := array.NewRecordBatch(arrow.NewSchema(b.fields, nil), cols, n)
	defer out.Release()
	return emit(out, n)
}

// appendLeaves appends the leaf column indices of sf (itself, or every
// leaf below a nested field).
func appendLeaves(dst []int, sf pqarrow.SchemaField) []int {
	if sf.IsLeaf() {
		return append(dst, sf.ColIndex)
	}
	for _, c := range sf.Children {
		dst = appendLeaves(dst, c)
	}
	return dst
}

// guard runs one call into arrow-go's Parquet reader, which panics on some
// corrupt files (a page header of the wrong kind: a nil DataPageHeader in
// arrow-go v18.8.0, found by FuzzCheckpointParquet), and turns a panic into
// an error, which the caller prefixes with the file's name. Only the
// reader's own calls are guarded, so a panic in the caller's emit is not
// mistaken for a corrupt file. A fault at an address (a mapped file cut
// short under the reader: Read sets SetPanicOnFault) says so.
func guard[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("the file changed while it was read (cut short or rewritten in place?): %v", r)
				return
			}
			err = fmt.Errorf("corrupt Parquet file (the reader failed: %v)", r)
		}
	}()
	return f()
}

// readOptions are the reader's options for a local file: pages are read
// through a small buffer straight into the page reader's own (reused)
// buffer. Without it, arrow-go allocates a zeroed buffer the size of each
// column chunk and preads the whole chunk into it, then copies each page
// out of it: 1.05-1.1x on q0 from Parquet (BENCHMARKS "Buffer reuse").
// Objects in object storage keep the whole-chunk reads: a small buffer
// there would be a request per 64 KiB.
//
// The page readers' own buffers (each decompressed page, the dictionary
// page) come from pageMem, one recycler for the process: a column chunk's
// page reader grows a buffer to the page size (a megabyte for the common
// writers), and with Go's allocator every chunk of every file allocated,
// zeroed and faulted in its own, 1.05-1.1x on q0 and q2 (BENCHMARKS
// "Fourth scan round"). A page reader returns them when closed, at the end
// of its chunk (directCol.closePages); the readers the direct path does not
// close leave theirs to the garbage collector, as before. Nothing keeps a
// slice of a page past its reader's next page: arrow-go reuses the buffer
// for each page of a chunk anyway. They are not zeroed: the page reader
// writes every byte it then reads (a page read from the file, a page
// decompressed into its exact size), which the poisoned test suite checks
// (fresh unzeroed buffers filled with 0xA5).
var pageMem = columnar.NewRecycler(32 << 20)

func readOptions() []file.ReadOption {
	props := parquet.NewReaderProperties(pageMem.Unzeroed())
	props.BufferedStreamEnabled = true
	props.BufferSize = 64 << 10
	return []file.ReadOption{file.WithReadProps(props)}
}
