package lake

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// Merge upserts recs into the table by the key columns keyCols and returns
// the committed version: a target row whose key equals a source row's key
// is replaced by it, other source rows are inserted. Null keys equal each
// other. Among source rows with one key the last wins. It is copy-on-write:
// only files whose partition values and stats can hold a source key are
// read, and only those holding one are rewritten.
func (t *Table) Merge(ctx context.Context, recs []arrow.RecordBatch, keyCols []string) (int64, error) {
	return t.merge(ctx, recs, keyCols, nil)
}

func (t *Table) merge(ctx context.Context, recs []arrow.RecordBatch, keyCols []string, txn *Txn) (int64, error) {
	if len(keyCols) == 0 {
		return -1, fmt.Errorf("lake: merge into %s: no key columns", t.root())
	}
	s, err := t.writableSnapshot()
	if err != nil {
		return -1, err
	}
	mem := t.opts.Allocator
	keyIdx := make([]int, len(keyCols))
	for i, c := range keyCols {
		if keyIdx[i], err = columnar.FieldIndex(s.schema, c); err != nil {
			return -1, fmt.Errorf("lake: merge key: %w", err)
		}
	}
	// Source rows, deduplicated by key (last wins).
	var src []arrow.RecordBatch
	defer func() { columnar.ReleaseAll(src) }()
	for i, r := range recs {
		cr, err := conformRecord(mem, s.schema, r)
		if err != nil {
			return -1, fmt.Errorf("lake: merge record %d: %w", i, err)
		}
		src = append(src, cr)
	}
	srcKeys := map[string][2]int{} // key -> (record, row) of its last occurrence
	var keys [][]byte
	for ri, r := range src {
		if keys, err = encodeKeyCols(keys, r, keyIdx); err != nil {
			return -1, fmt.Errorf("lake: merge key: %w", err)
		}
		for row := 0; row < int(r.NumRows()); row++ {
			srcKeys[string(keys[row])] = [2]int{ri, row}
		}
	}
	src, err = dedupe(ctx, mem, src, keyIdx, srcKeys)
	if err != nil {
		return -1, err
	}
	preds := keyRangePredicates(s.schema, src, keyIdx)
	candidates, err := s.ScanFiles(preds...)
	if err != nil {
		return -1, err
	}
	w, err := newDataWriter(ctx, t.loc, mem, s.schema, s.metadata, t.opts.TargetFileSize)
	if err != nil {
		return -1, err
	}
	op := &operation{name: "MERGE", params: map[string]any{"predicate": fmt.Sprintf("key columns %v", keyCols)},
		readAll: true, readPaths: map[string]bool{}, txn: txn}
	now := t.now().UnixMilli()
	var updated, copied int64
	for i := range candidates {
		f := &candidates[i]
		p, _ := decodePath(f.Path)
		op.readPaths[p] = true
		kept, matched, err := t.filterFile(ctx, s, f, keyIdx, srcKeys)
		if err != nil {
			w.abort()
			return -1, err
		}
		if matched == 0 {
			columnar.ReleaseAll(kept)
			continue
		}
		updated += matched
		op.removes = append(op.removes, removeOf(f, now))
		for _, r := range kept {
			copied += r.NumRows()
			if err == nil {
				err = w.write(r)
			}
		}
		columnar.ReleaseAll(kept)
		if err != nil {
			w.abort()
			return -1, err
		}
	}
	var inserted int64
	for _, r := range src {
		inserted += r.NumRows()
		if err := w.write(r); err != nil {
			w.abort()
			return -1, err
		}
	}
	inserted -= updated
	if op.adds, err = w.close(); err != nil {
		w.abort()
		return -1, err
	}
	op.metrics = writeMetrics(op.adds, len(op.removes))
	op.metrics["numTargetRowsUpdated"] = strconv.FormatInt(updated, 10)
	op.metrics["numTargetRowsInserted"] = strconv.FormatInt(inserted, 10)
	op.metrics["numTargetRowsCopied"] = strconv.FormatInt(copied, 10)
	op.metrics["numTargetFilesRemoved"] = strconv.Itoa(len(op.removes))
	return t.commitWritten(ctx, s, op, w)
}

func encodeKeyCols(keys [][]byte, r arrow.RecordBatch, keyIdx []int) ([][]byte, error) {
	cols := make([]arrow.Array, len(keyIdx))
	for i, ci := range keyIdx {
		cols[i] = r.Column(ci)
	}
	for i := range keys {
		keys[i] = keys[i][:0]
	}
	return columnar.EncodeKeys(keys, cols, nil)
}

// dedupe keeps only the last occurrence of each key among the records.
func dedupe(ctx context.Context, mem memory.Allocator, src []arrow.RecordBatch, keyIdx []int, last map[string][2]int) ([]arrow.RecordBatch, error) {
	var keys [][]byte
	for ri, r := range src {
		var err error
		if keys, err = encodeKeyCols(keys, r, keyIdx); err != nil {
			return src, err
		}
		var rows []int32
		for row := 0; row < int(r.NumRows()); row++ {
			if last[string(keys[row])] == [2]int{ri, row} {
				rows = append(rows, int32(row))
			}
		}
		if len(rows) == int(r.NumRows()) {
			continue
		}
		sub, err := takeRows(ctx, mem, r, rows)
		if err != nil {
			return src, err
		}
		r.Release()
		src[ri] = sub
	}
	return src, nil
}

// takeRows returns a new record of the given rows of r. (Column by column:
// compute.Take on a whole record leaks references to its input in arrow-go
// v18.8.0.)
func takeRows(ctx context.Context, mem memory.Allocator, r arrow.RecordBatch, rows []int32) (arrow.RecordBatch, error) {
	b := array.NewInt32Builder(mem)
	b.AppendValues(rows, nil)
	idx := b.NewArray()
	b.Release()
	defer idx.Release()
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, r.NumCols())
	defer columnar.ReleaseAll(cols)
	for i, c := range r.Columns() {
		out, err := compute.TakeArray(cctx, c, idx)
		if err != nil {
			return nil, fmt.Errorf("lake: take rows of column %s: %w", r.ColumnName(i), err)
		}
		cols[i] = out
	}
	return array.NewRecordBatch(r.Schema(), cols, int64(len(rows))), nil
}

// filterFile reads file f and returns its records without the rows whose
// key is in srcKeys, and how many rows it dropped.
func (t *Table) filterFile(ctx context.Context, s *Snapshot, f *AddFile, keyIdx []int, srcKeys map[string][2]int) ([]arrow.RecordBatch, int64, error) {
	var out []arrow.RecordBatch
	var matched int64
	var keys [][]byte
	mem := t.opts.Allocator
	err := s.readFile(ctx, t.opts.Allocator, f, func(r arrow.RecordBatch) error {
		var err error
		if keys, err = encodeKeyCols(keys, r, keyIdx); err != nil {
			r.Release()
			return err
		}
		rows := make([]int32, 0, r.NumRows())
		for row := 0; row < int(r.NumRows()); row++ {
			if _, hit := srcKeys[string(keys[row])]; !hit {
				rows = append(rows, int32(row))
			}
		}
		matched += r.NumRows() - int64(len(rows))
		switch {
		case len(rows) == int(r.NumRows()):
			out = append(out, r)
		case len(rows) == 0:
			r.Release()
		default:
			sub, err := takeRows(ctx, mem, r, rows)
			r.Release()
			if err != nil {
				return err
			}
			out = append(out, sub)
		}
		return nil
	})
	if err != nil {
		columnar.ReleaseAll(out)
		return nil, 0, fmt.Errorf("lake: merge read %s: %w", f.Path, err)
	}
	return out, matched, nil
}

// keyRangePredicates returns key >= min and key <= max predicates over the
// source keys, for file skipping. Columns with null keys or types without
// stats get none.
func keyRangePredicates(schema *arrow.Schema, src []arrow.RecordBatch, keyIdx []int) []Predicate {
	var preds []Predicate
	for _, ci := range keyIdx {
		f := schema.Field(ci)
		cs := newColStats(f, ci)
		for _, r := range src {
			cs.update(r.Column(ci), nil)
		}
		if cs.nulls > 0 || !cs.has {
			continue
		}
		var lo, hi any
		switch cs.kind {
		case statInt:
			lo, hi = cs.imin, cs.imax
		case statFloat:
			lo, hi = cs.fmin, cs.fmax
			if cs.nan {
				hi = math.NaN() // NaN keys match NaN (Spark's order: NaN is the largest)
			}
		case statString:
			lo, hi = cs.smin, cs.smax
		case statDate:
			lo, hi = arrow.Date32(cs.imin).ToTime(), arrow.Date32(cs.imax).ToTime()
		case statTimestamp:
			lo = arrow.Timestamp(cs.imin).ToTime(cs.unit).Truncate(time.Microsecond)
			hi = arrow.Timestamp(cs.imax).ToTime(cs.unit)
		default:
			continue
		}
		preds = append(preds, Predicate{Column: f.Name, Op: OpGe, Value: lo}, Predicate{Column: f.Name, Op: OpLe, Value: hi})
	}
	return preds
}
