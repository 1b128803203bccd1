package lake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// readBatchRows is the row count of the records a scan emits.
const readBatchRows = 64 * 1024

// ScanFiles returns the files that may hold rows matching all preds, after
// partition pruning and stats-based skipping.
func (s *Snapshot) ScanFiles(preds ...Predicate) ([]AddFile, error) {
	var out []AddFile
	for _, f := range s.Files() {
		ok, err := mayMatch(s.schema, s.metadata.PartitionColumns, &f, preds)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, f)
		}
	}
	return out, nil
}

// Scan emits the rows of the files that may match preds as records of the
// table schema (partition columns filled from the partition values). The
// predicates prune files only: rows of a kept file are not filtered. emit
// takes over the reference to each record.
func (s *Snapshot) Scan(ctx context.Context, mem memory.Allocator, preds []Predicate, emit func(arrow.RecordBatch) error) error {
	files, err := s.ScanFiles(preds...)
	if err != nil {
		return err
	}
	for i := range files {
		if err := s.readFile(ctx, mem, &files[i], emit); err != nil {
			return err
		}
	}
	return nil
}

// ReadAll returns all records of a Scan; the caller releases them.
func (s *Snapshot) ReadAll(ctx context.Context, mem memory.Allocator, preds ...Predicate) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	err := s.Scan(ctx, mem, preds, func(r arrow.RecordBatch) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		releaseRecords(out)
		return nil, err
	}
	return out, nil
}

func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// filePath returns the local path of a data file.
func (s *Snapshot) filePath(f *AddFile) (string, error) {
	p, err := decodePath(f.Path)
	if err != nil {
		return "", err
	}
	if filepath.IsAbs(p) {
		return p, nil
	}
	return filepath.Join(s.root, filepath.FromSlash(p)), nil
}

// readFile emits the rows of one logical file as records of the table
// schema: the rows of its data file less those its deletion vector deletes.
func (s *Snapshot) readFile(ctx context.Context, mem memory.Allocator, f *AddFile, emit func(arrow.RecordBatch) error) error {
	path, err := s.filePath(f)
	if err != nil {
		return err
	}
	del, err := loadDeletionVector(s.root, f)
	if err != nil {
		return err
	}
	if del != nil {
		emit = skipDeleted(ctx, mem, path, del, emit)
	}
	return readDataFile(ctx, mem, path, s.schema, s.metadata.PartitionColumns, f.PartitionValues, emit)
}

// skipDeleted wraps emit, which receives the records of a data file in
// order, to drop the rows at the positions del holds.
func skipDeleted(ctx context.Context, mem memory.Allocator, path string, del *deletedRows, emit func(arrow.RecordBatch) error) func(arrow.RecordBatch) error {
	var pos int64 // file position of the record's first row
	var buf []int32
	return func(rec arrow.RecordBatch) error {
		n := rec.NumRows()
		lo := pos
		pos += n
		var cut bool
		buf, cut = del.keep(lo, n, buf)
		switch {
		case !cut:
			return emit(rec)
		case len(buf) == 0:
			rec.Release()
			return nil
		}
		kept, err := takeRows(ctx, mem, rec, buf)
		rec.Release()
		if err != nil {
			return fmt.Errorf("lake: data file %s rows %d-%d: apply deletion vector: %w", path, lo, lo+n-1, err)
		}
		return emit(kept)
	}
}

func readDataFile(ctx context.Context, mem memory.Allocator, path string, schema *arrow.Schema, partCols []string, pv PartitionValues, emit func(arrow.RecordBatch) error) error {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return fmt.Errorf("lake: open data file %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: readBatchRows}, mem)
	if err != nil {
		return fmt.Errorf("lake: data file %s: %w", path, err)
	}
	// Leaves of the table's data columns present in the file, and where
	// each lands in the records the reader returns.
	var leaves []int
	for _, sf := range fr.Manifest.Fields {
		if idx := schema.FieldIndices(sf.Field.Name); len(idx) == 1 && !slices.Contains(partCols, sf.Field.Name) {
			leaves = appendLeaves(leaves, sf)
		}
	}
	total := pf.NumRows()
	if len(leaves) == 0 {
		for lo := int64(0); lo < total; lo += readBatchRows {
			n := min(total-lo, readBatchRows)
			rec, err := assemble(mem, schema, partCols, pv, nil, n)
			if err != nil {
				return fmt.Errorf("lake: data file %s: %w", path, err)
			}
			if err := emit(rec); err != nil {
				return err
			}
		}
		return nil
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return fmt.Errorf("lake: data file %s: %w", path, err)
	}
	defer rr.Release()
	for rr.Next() {
		rec, err := assemble(mem, schema, partCols, pv, rr.RecordBatch(), rr.RecordBatch().NumRows())
		if err != nil {
			return fmt.Errorf("lake: data file %s: %w", path, err)
		}
		if err := emit(rec); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("lake: data file %s: %w", path, err)
	}
	return nil
}

// assemble builds a record of schema from the file's columns in (may be
// nil), partition values and nulls for columns the file lacks.
func assemble(mem memory.Allocator, schema *arrow.Schema, partCols []string, pv PartitionValues, in arrow.RecordBatch, n int64) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer releaseArrays(cols)
	for i, f := range schema.Fields() {
		var err error
		switch {
		case slices.Contains(partCols, f.Name):
			v, ok := pv[f.Name]
			cols[i], err = partitionArray(mem, f.Type, v, !ok || v == "", int(n))
		case in != nil && len(in.Schema().FieldIndices(f.Name)) == 1:
			cols[i], err = conform(mem, in.Column(in.Schema().FieldIndices(f.Name)[0]), f.Type)
		default:
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	return array.NewRecordBatch(schema, cols, n), nil
}

func releaseArrays(cols []arrow.Array) {
	for i, c := range cols {
		if c != nil {
			c.Release()
			cols[i] = nil
		}
	}
}

// conform returns a new reference to an array of type want with arr's
// values: arr relabelled when the layouts agree (field names, time zones,
// nullability), timestamps rescaled when units differ.
func conform(mem memory.Allocator, arr arrow.Array, want arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), want) {
		arr.Retain()
		return arr, nil
	}
	hts, ok1 := arr.DataType().(*arrow.TimestampType)
	wts, ok2 := want.(*arrow.TimestampType)
	if ok1 && ok2 && hts.Unit != wts.Unit {
		return rescaleTimestamps(mem, arr.(*array.Timestamp), wts), nil
	}
	d, err := relabel(arr.Data(), want)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// relabel returns data with type want when only names, nullability or
// time zones differ.
func relabel(d arrow.ArrayData, want arrow.DataType) (arrow.ArrayData, error) {
	have := d.DataType()
	if have.ID() != want.ID() {
		return nil, fmt.Errorf("the file has type %s, the table wants %s", have, want)
	}
	if ts, ok := have.(*arrow.TimestampType); ok && ts.Unit != want.(*arrow.TimestampType).Unit {
		return nil, fmt.Errorf("nested timestamp unit %s, the table wants %s", have, want)
	}
	var children []arrow.ArrayData
	var wantChildren []arrow.DataType
	switch w := want.(type) {
	case *arrow.StructType:
		for _, f := range w.Fields() {
			wantChildren = append(wantChildren, f.Type)
		}
	case *arrow.ListType:
		wantChildren = []arrow.DataType{w.Elem()}
	case *arrow.MapType:
		wantChildren = []arrow.DataType{w.Elem()}
	}
	if len(wantChildren) != len(d.Children()) {
		return nil, fmt.Errorf("the file has type %s, the table wants %s", have, want)
	}
	for i, c := range d.Children() {
		nc, err := relabel(c, wantChildren[i])
		if err != nil {
			for _, x := range children {
				x.Release()
			}
			return nil, err
		}
		children = append(children, nc)
	}
	out := array.NewData(want, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out, nil
}

func unitNanos(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1_000_000_000
	case arrow.Millisecond:
		return 1_000_000
	case arrow.Microsecond:
		return 1_000
	}
	return 1
}

// rescaleTimestamps converts timestamps to want's unit, rounding down.
func rescaleTimestamps(mem memory.Allocator, arr *array.Timestamp, want *arrow.TimestampType) arrow.Array {
	from := unitNanos(arr.DataType().(*arrow.TimestampType).Unit)
	to := unitNanos(want.Unit)
	src := arr.TimestampValues()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(src) * 8)
	dst := arrow.TimestampTraits.CastFromBytes(buf.Bytes())[:len(src)]
	if from >= to {
		m := arrow.Timestamp(from / to)
		for i, v := range src {
			dst[i] = v * m
		}
	} else {
		d := to / from
		for i, v := range src {
			q := int64(v) / d
			if int64(v)%d < 0 {
				q--
			}
			dst[i] = arrow.Timestamp(q)
		}
	}
	var validity *memory.Buffer
	nulls := arr.NullN()
	if nulls > 0 {
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(len(src)))))
		bitutil.CopyBitmap(arr.NullBitmapBytes(), arr.Data().Offset(), len(src), validity.Bytes(), 0)
	}
	nd := array.NewData(want, len(src), []*memory.Buffer{validity, buf}, nil, nulls, 0)
	buf.Release()
	if validity != nil {
		validity.Release()
	}
	defer nd.Release()
	return array.MakeFromData(nd)
}
