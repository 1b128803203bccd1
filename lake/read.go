package lake

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
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
		columnar.ReleaseAll(out)
		return nil, err
	}
	return out, nil
}

// readFile emits the rows of one logical file as records of the table
// schema: the rows of its data file less those its deletion vector deletes.
func (s *Snapshot) readFile(ctx context.Context, mem memory.Allocator, f *AddFile, emit func(arrow.RecordBatch) error) error {
	p, err := decodePath(f.Path)
	if err != nil {
		return err
	}
	loc, name, err := s.loc.object(p)
	if err != nil {
		return err
	}
	del, err := loadDeletionVector(s.loc, f)
	if err != nil {
		return err
	}
	if del != nil {
		emit = skipDeleted(ctx, mem, loc.where(name), del, emit)
	}
	return readDataFile(ctx, mem, loc, name, f.Size, s.schema, s.metadata.PartitionColumns, f.PartitionValues, emit)
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

func readDataFile(ctx context.Context, mem memory.Allocator, loc *location, name string, size int64, schema *arrow.Schema, partCols []string, pv PartitionValues, emit func(arrow.RecordBatch) error) error {
	// The table's data columns present in the file; partition columns come
	// from the partition values.
	want := func(name string) bool {
		return len(schema.FieldIndices(name)) == 1 && !slices.Contains(partCols, name)
	}
	return loc.readParquet(ctx, mem, name, size, "lake: data file", readBatchRows, want, func(in arrow.RecordBatch, n int64) error {
		rec, err := assemble(mem, schema, partCols, pv, in, n)
		if err != nil {
			return fmt.Errorf("lake: data file %s: %w", loc.where(name), err)
		}
		return emit(rec)
	})
}

// assemble builds a record of schema from the file's columns in (may be
// nil), partition values and nulls for columns the file lacks.
func assemble(mem memory.Allocator, schema *arrow.Schema, partCols []string, pv PartitionValues, in arrow.RecordBatch, n int64) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer columnar.ReleaseAll(cols)
	for i, f := range schema.Fields() {
		var err error
		switch {
		case slices.Contains(partCols, f.Name):
			v, ok := pv[f.Name]
			cols[i], err = partitionArray(mem, f.Type, v, !ok || v == "", int(n))
		case in != nil && len(in.Schema().FieldIndices(f.Name)) == 1:
			cols[i], err = kernels.Conform(mem, in.Column(in.Schema().FieldIndices(f.Name)[0]), f.Type)
		default:
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
		}
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name, err)
		}
	}
	return array.NewRecordBatch(schema, cols, n), nil
}
