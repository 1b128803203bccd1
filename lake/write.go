package lake

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// writeFiles writes recs as new data files of snapshot s's table. On error
// the files are deleted.
func (t *Table) writeFiles(ctx context.Context, s *Snapshot, recs []arrow.RecordBatch) ([]AddFile, *dataWriter, error) {
	w, err := newDataWriter(ctx, t.loc, t.opts.Allocator, s.schema, s.metadata, t.opts.TargetFileSize)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range recs {
		cr, err := conformRecord(t.opts.Allocator, s.schema, r)
		if err == nil {
			err = w.write(cr)
			cr.Release()
		}
		if err != nil {
			w.abort()
			return nil, nil, fmt.Errorf("lake: write record %d to %s: %w", i, t.root(), err)
		}
	}
	adds, err := w.close()
	if err != nil {
		w.abort()
		return nil, nil, err
	}
	return adds, w, nil
}

// commitWritten commits op, read at snapshot s, and deletes the files w
// wrote if the table's features refuse op or the commit lost to a
// conflicting one (they can never be referenced).
func (t *Table) commitWritten(ctx context.Context, s *Snapshot, op *operation, w *dataWriter) (int64, error) {
	if err := prepareWrite(s, op); err != nil {
		if w != nil {
			w.abort()
		}
		return -1, fmt.Errorf("lake: %s of %s: %w", op.name, t.root(), err)
	}
	v, err := t.commit(ctx, s.version, op)
	if err != nil && errors.Is(err, ErrConcurrentModification) && w != nil {
		w.abort()
	}
	return v, err
}

func writeMetrics(adds []AddFile, removed int) map[string]any {
	var bytes, rows int64
	for _, a := range adds {
		bytes += a.Size
		if st, _ := parseStats(a.Stats); st != nil && st.NumRecords != nil {
			rows += *st.NumRecords
		}
	}
	m := map[string]any{"numFiles": strconv.Itoa(len(adds)), "numOutputBytes": strconv.FormatInt(bytes, 10),
		"numOutputRows": strconv.FormatInt(rows, 10)}
	if removed > 0 {
		m["numRemovedFiles"] = strconv.Itoa(removed)
	}
	return m
}

// Append adds the rows of recs to the table in one commit and returns the
// committed version. Records must have the table's columns in order.
func (t *Table) Append(ctx context.Context, recs []arrow.RecordBatch) (int64, error) {
	return t.append(ctx, recs, nil)
}

func (t *Table) append(ctx context.Context, recs []arrow.RecordBatch, txn *Txn) (int64, error) {
	s, err := t.writableSnapshot()
	if err != nil {
		return -1, err
	}
	adds, w, err := t.writeFiles(ctx, s, recs)
	if err != nil {
		return -1, err
	}
	op := &operation{name: "WRITE", params: map[string]any{"mode": "Append", "partitionBy": jsonList(s.metadata.PartitionColumns)},
		adds: adds, txn: txn, metrics: writeMetrics(adds, 0)}
	return t.commitWritten(ctx, s, op, w)
}

// Overwrite replaces the table's contents with recs in one commit (remove
// every file, add the new ones) and returns the committed version.
func (t *Table) Overwrite(ctx context.Context, recs []arrow.RecordBatch) (int64, error) {
	return t.overwrite(ctx, recs, nil)
}

func (t *Table) overwrite(ctx context.Context, recs []arrow.RecordBatch, txn *Txn) (int64, error) {
	s, err := t.writableSnapshot()
	if err != nil {
		return -1, err
	}
	adds, w, err := t.writeFiles(ctx, s, recs)
	if err != nil {
		return -1, err
	}
	op := &operation{name: "WRITE", params: map[string]any{"mode": "Overwrite", "partitionBy": jsonList(s.metadata.PartitionColumns)},
		adds: adds, txn: txn, readAll: true, readPaths: map[string]bool{}}
	now := t.now().UnixMilli()
	for k, f := range s.files {
		op.removes = append(op.removes, removeOf(f, now))
		op.readPaths[k.path] = true
	}
	op.metrics = writeMetrics(adds, len(op.removes))
	return t.commitWritten(ctx, s, op, w)
}

// removeOf returns the remove action of logical file f: with f's deletion
// vector, since (path, DV) is what identifies it.
func removeOf(f *AddFile, now int64) RemoveFile {
	size := f.Size
	return RemoveFile{Path: f.Path, DeletionTimestamp: &now, DataChange: true, ExtendedFileMetadata: true,
		PartitionValues: f.PartitionValues, Size: &size, DeletionVector: f.DeletionVector}
}

// writableSnapshot loads the latest snapshot and checks this package may
// write to it.
func (t *Table) writableSnapshot() (*Snapshot, error) {
	s, err := t.Snapshot()
	if err != nil {
		return nil, err
	}
	if err := checkWrite(s.protocol, s.metadata); err != nil {
		return nil, fmt.Errorf("lake: write to %s: %w", t.root(), err)
	}
	return s, nil
}
