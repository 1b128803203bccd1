package lake

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// Row group bounds of the data files we write.
const (
	maxRowGroupRows  = 1 << 20
	maxRowGroupBytes = 64 << 20
)

// dataWriter writes records of the table schema into Parquet data files,
// one open file per partition, rolling to a new file at the target size.
type dataWriter struct {
	ctx        context.Context
	loc        *location
	mem        memory.Allocator
	schema     *arrow.Schema // table schema
	partCols   []string
	partIdx    []int
	dataIdx    []int
	dataSchema *arrow.Schema
	target     int64
	open       map[string]*openFile // by partition dir
	adds       []AddFile
	written    []string // every file created (names in loc), for abort
	keys       [][]byte
	seq        int
	statsSpec  statsSpec
}

type openFile struct {
	f     *os.File      // a local table's file
	buf   *bytes.Buffer // or the object's content, put when finished
	cw    *countingWriter
	fw    *pqarrow.FileWriter
	stats *fileStats
	rel   string // relative path, not URI-encoded
	pv    PartitionValues
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// newDataWriter returns a writer of data files for a table with schema and
// metadata md (partition columns; the properties that choose the columns
// with statistics).
func newDataWriter(ctx context.Context, loc *location, mem memory.Allocator, schema *arrow.Schema, md *Metadata, target int64) (*dataWriter, error) {
	partCols := md.PartitionColumns
	w := &dataWriter{ctx: ctx, loc: loc, mem: mem, schema: schema, partCols: partCols, target: target,
		open: map[string]*openFile{}, statsSpec: statsSpecOf(md.Configuration)}
	var dataFields []arrow.Field
	for _, c := range partCols {
		i, err := columnar.FieldIndex(schema, c)
		if err != nil {
			return nil, fmt.Errorf("lake: partition column: %w", err)
		}
		w.partIdx = append(w.partIdx, i)
	}
	for i, f := range schema.Fields() {
		isPart := false
		for _, p := range w.partIdx {
			isPart = isPart || p == i
		}
		if !isPart {
			w.dataIdx = append(w.dataIdx, i)
			dataFields = append(dataFields, f)
		}
	}
	w.dataSchema = arrow.NewSchema(dataFields, nil)
	return w, nil
}

// conformRecord checks rec against the table schema (same column names in
// order, same types up to timestamp unit and nullability) and returns a new
// reference to a record of the table schema.
func conformRecord(mem memory.Allocator, schema *arrow.Schema, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if rec.Schema().Equal(schema) {
		rec.Retain()
		return rec, nil
	}
	if int(rec.NumCols()) != schema.NumFields() {
		return nil, fmt.Errorf("lake: record has columns %s, the table has %s", columnar.FieldNames(rec.Schema()), columnar.FieldNames(schema))
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer columnar.ReleaseAll(cols)
	for i, f := range schema.Fields() {
		if rf := rec.Schema().Field(i); rf.Name != f.Name {
			return nil, fmt.Errorf("lake: record column %d is %q, the table has %q (table columns %s)", i, rf.Name, f.Name, columnar.FieldNames(schema))
		}
		c, err := kernels.Conform(mem, rec.Column(i), f.Type)
		if err != nil {
			return nil, fmt.Errorf("lake: column %s: %w", f.Name, err)
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows()), nil
}

// write adds the rows of rec (of the table schema) to the data files.
func (w *dataWriter) write(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if len(w.partIdx) == 0 {
		return w.writePartition(rec, PartitionValues{})
	}
	groups, pvs, err := w.groupRows(rec)
	if err != nil {
		return err
	}
	if len(groups) == 1 {
		return w.writePartition(rec, pvs[0])
	}
	for g, rows := range groups {
		sub, err := takeRows(w.ctx, w.mem, rec, rows)
		if err != nil {
			return fmt.Errorf("lake: split partitions: %w", err)
		}
		err = w.writePartition(sub, pvs[g])
		sub.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// groupRows groups the rows of rec by partition values.
func (w *dataWriter) groupRows(rec arrow.RecordBatch) ([][]int32, []PartitionValues, error) {
	n := int(rec.NumRows())
	pcols := make([]arrow.Array, len(w.partIdx))
	for i, ci := range w.partIdx {
		pcols[i] = rec.Column(ci)
	}
	for i := range w.keys {
		w.keys[i] = w.keys[i][:0]
	}
	keys, err := columnar.EncodeKeys(w.keys, pcols, nil)
	w.keys = keys
	if err != nil {
		// A type the key encoder lacks: fall back to the serialised values.
		keys = keys[:0]
		for r := 0; r < n; r++ {
			var k []byte
			for _, c := range pcols {
				s, err := partitionString(c, r)
				if err != nil {
					return nil, nil, err
				}
				k = append(append(k, s...), 0, byte(boolByte(c.IsNull(r))))
			}
			keys = append(keys, k)
		}
	}
	ids := map[string]int{}
	var groups [][]int32
	var pvs []PartitionValues
	for r := 0; r < n; r++ {
		g, ok := ids[string(keys[r])]
		if !ok {
			g = len(groups)
			ids[string(keys[r])] = g
			groups = append(groups, nil)
			pv := PartitionValues{}
			for i, c := range pcols {
				s, err := partitionString(c, r)
				if err != nil {
					return nil, nil, err
				}
				pv[w.partCols[i]] = s
			}
			pvs = append(pvs, pv)
		}
		groups[g] = append(groups[g], int32(r))
	}
	return groups, pvs, nil
}

func boolByte(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writePartition writes rec, all of whose rows have partition values pv.
func (w *dataWriter) writePartition(rec arrow.RecordBatch, pv PartitionValues) error {
	dir := partitionDir(w.partCols, pv)
	of := w.open[dir]
	if of == nil {
		var err error
		if of, err = w.newFile(dir, pv); err != nil {
			return err
		}
		w.open[dir] = of
	}
	cols := make([]arrow.Array, len(w.dataIdx))
	for i, ci := range w.dataIdx {
		cols[i] = rec.Column(ci)
	}
	data := array.NewRecordBatch(w.dataSchema, cols, rec.NumRows())
	defer data.Release()
	of.stats.update(data)
	if err := of.fw.WriteBuffered(data); err != nil {
		return fmt.Errorf("lake: write %s: %w", of.rel, err)
	}
	rgRows, _ := of.fw.RowGroupNumRows()
	rgBytes := of.fw.RowGroupTotalBytesWritten()
	if of.cw.n+rgBytes >= w.target {
		delete(w.open, dir)
		return w.finish(of)
	}
	if rgRows >= maxRowGroupRows || rgBytes >= maxRowGroupBytes {
		of.fw.NewBufferedRowGroup()
	}
	return nil
}

func (w *dataWriter) newFile(dir string, pv PartitionValues) (*openFile, error) {
	w.seq++
	rel := fmt.Sprintf("%spart-%05d-%s-c000.zstd.parquet", dir, w.seq, newUUID())
	of := &openFile{stats: newFileStats(w.dataSchema.Fields(), w.statsSpec), rel: rel, pv: pv}
	if w.loc.local {
		full := w.loc.file(rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, fmt.Errorf("lake: data dir: %w", err)
		}
		f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lake: create data file: %w", err)
		}
		w.written = append(w.written, rel)
		of.f, of.cw = f, &countingWriter{w: f}
	} else {
		// An object is put whole when the file is finished, so no reader
		// (and no crash) ever sees part of it.
		of.buf = new(bytes.Buffer)
		of.cw = &countingWriter{w: of.buf}
	}
	fw, err := pqarrow.NewFileWriter(w.dataSchema, of.cw, dataWriterProps(w.mem, w.dataSchema), pqarrow.DefaultWriterProps())
	if err != nil {
		if of.f != nil {
			of.f.Close()
		}
		return nil, fmt.Errorf("lake: parquet writer %s: %w", w.loc.where(rel), err)
	}
	of.fw = fw
	return of, nil
}

// dataWriterProps are the Parquet properties of data files of schema sc:
// zstd, no dictionary (3–6x faster to write on our batches and about as
// small), and no column statistics for float and double columns. Those
// statistics leave NaN out (as the Parquet format asks), and Spark pushes
// its filters into the Parquet reader, which then drops a row group whose
// max is 0 for `f > 0` although its NaN rows match in Spark's order, and
// every row group for `f = NaN`. The Delta stats in the log still skip
// files.
func dataWriterProps(mem memory.Allocator, sc *arrow.Schema) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(maxRowGroupRows),
		parquet.WithAllocator(mem),
		parquet.WithCreatedBy("millrace"),
	}
	if ps, err := pqarrow.ToParquet(sc, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps()); err == nil {
		for i := 0; i < ps.NumColumns(); i++ {
			switch c := ps.Column(i); c.PhysicalType() {
			case parquet.Types.Float, parquet.Types.Double:
				opts = append(opts, parquet.WithStatsPath(c.ColumnPath(), false))
			}
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// finish closes and syncs a data file (or puts the object) and records
// its add action.
func (w *dataWriter) finish(of *openFile) error {
	// Close writes the footer; it does not close of.f, which it sees only
	// through the counting writer.
	if err := of.fw.Close(); err != nil {
		if of.f != nil {
			of.f.Close()
		}
		return fmt.Errorf("lake: close %s: %w", w.loc.where(of.rel), err)
	}
	var size, mtime int64
	if of.f != nil {
		err := of.f.Sync()
		if cerr := of.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("lake: sync %s: %w", w.loc.where(of.rel), err)
		}
		st, err := os.Stat(w.loc.file(of.rel))
		if err != nil {
			return fmt.Errorf("lake: stat %s: %w", w.loc.where(of.rel), err)
		}
		size, mtime = st.Size(), st.ModTime().UnixMilli()
	} else {
		// The name is new (a UUID); WriteNew makes sure of it.
		w.written = append(w.written, of.rel)
		if err := w.loc.store.WriteNew(w.ctx, of.rel, of.buf.Bytes()); err != nil {
			return fmt.Errorf("lake: put data file: %w", err)
		}
		size, mtime = int64(of.buf.Len()), time.Now().UnixMilli()
		of.buf = nil
	}
	w.adds = append(w.adds, AddFile{
		Path: encodePath(of.rel), PartitionValues: of.pv, Size: size,
		ModificationTime: mtime, DataChange: true, Stats: of.stats.json(),
	})
	return nil
}

// close finishes all open files and returns the add actions.
func (w *dataWriter) close() ([]AddFile, error) {
	var first error
	for dir, of := range w.open {
		if err := w.finish(of); err != nil && first == nil {
			first = err
		}
		delete(w.open, dir)
	}
	return w.adds, first
}

// abort closes open files and deletes every file this writer created.
func (w *dataWriter) abort() {
	for dir, of := range w.open {
		of.fw.Close()
		if of.f != nil {
			of.f.Close()
		}
		delete(w.open, dir)
	}
	for _, name := range w.written {
		if w.loc.local {
			os.Remove(w.loc.file(name))
		} else {
			_ = w.loc.store.Delete(context.Background(), name)
		}
	}
	w.adds = nil
}
