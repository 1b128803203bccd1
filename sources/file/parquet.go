package file

import (
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/textdecode"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/millrace/millrace/columnar"
)

// readParquet reads the file's columns named by the schema with pqarrow and
// emits them as records of the schema.
func (p *Partition) readParquet(ctx context.Context, mem memory.Allocator, path string, emit func(arrow.RecordBatch) error) error {
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		return fmt.Errorf("file source: open parquet %s: %w", path, err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: BatchRows}, mem)
	if err != nil {
		return fmt.Errorf("file source: parquet %s: %w", path, err)
	}
	schema := p.src.opts.Schema
	// Leaf columns of the schema's fields present in the file.
	var leaves []int
	for _, f := range schema.Fields() {
		for _, sf := range fr.Manifest.Fields {
			if sf.Field.Name == f.Name {
				leaves = appendLeaves(leaves, sf)
				break
			}
		}
	}
	if len(leaves) == 0 {
		// None of the schema's columns: emit the row count as nulls.
		return p.parquetNulls(mem, pf.NumRows(), emit)
	}
	rr, err := fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return fmt.Errorf("file source: parquet %s: %w", path, err)
	}
	defer rr.Release()
	cols := make([]arrow.Array, schema.NumFields())
	for rr.Next() {
		in := rr.RecordBatch()
		n := in.NumRows()
		for i, f := range schema.Fields() {
			idx := in.Schema().FieldIndices(f.Name)
			if len(idx) == 0 {
				cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
				continue
			}
			cols[i], err = conform(mem, in.Column(idx[0]), f.Type)
			if err != nil {
				releaseArrays(cols[:i])
				return fmt.Errorf("file source: parquet %s: column %s: %w", path, f.Name, err)
			}
		}
		out := array.NewRecordBatch(schema, cols, n)
		releaseArrays(cols)
		if err := emit(out); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("file source: parquet %s: %w", path, err)
	}
	return nil
}

func (p *Partition) parquetNulls(mem memory.Allocator, rows int64, emit func(arrow.RecordBatch) error) error {
	schema := p.src.opts.Schema
	cols := make([]arrow.Array, schema.NumFields())
	for lo := int64(0); lo < rows; lo += BatchRows {
		n := min(rows-lo, BatchRows)
		for i, f := range schema.Fields() {
			cols[i] = array.MakeArrayOfNull(mem, f.Type, int(n))
		}
		rec := array.NewRecordBatch(schema, cols, n)
		releaseArrays(cols)
		if err := emit(rec); err != nil {
			return err
		}
	}
	return nil
}

func appendLeaves(dst []int, sf pqarrow.SchemaField) []int {
	if sf.IsLeaf() {
		return append(dst, sf.ColIndex)
	}
	for _, c := range sf.Children {
		dst = appendLeaves(dst, c)
	}
	return dst
}

func releaseArrays(cols []arrow.Array) {
	for i, c := range cols {
		if c != nil {
			c.Release()
			cols[i] = nil
		}
	}
}

// conform returns a (new reference to an) array of type want holding arr's
// values: arr itself when the types match, a relabelled or rescaled copy for
// timestamps.
func conform(mem memory.Allocator, arr arrow.Array, want arrow.DataType) (arrow.Array, error) {
	have := arr.DataType()
	if arrow.TypeEqual(have, want) {
		arr.Retain()
		return arr, nil
	}
	hts, ok1 := have.(*arrow.TimestampType)
	wts, ok2 := want.(*arrow.TimestampType)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("the file has type %s, the schema wants %s", columnar.TypeName(have), columnar.TypeName(want))
	}
	d := arr.Data()
	nulls := arr.NullN() // Data().NullN() may be unknown (-1) on slices
	if hts.Unit == wts.Unit {
		// Same values, another time zone label.
		nd := array.NewData(want, d.Len(), d.Buffers(), nil, nulls, d.Offset())
		defer nd.Release()
		return array.MakeFromData(nd), nil
	}
	src := arr.(*array.Timestamp).TimestampValues()
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(src) * 8)
	dst := arrow.TimestampTraits.CastFromBytes(buf.Bytes())[:len(src)]
	rescale(dst, src, hts.Unit, wts.Unit)
	var validity *memory.Buffer
	if nulls > 0 {
		// Copy the validity bits so the new array starts at offset 0.
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(len(src)))))
		bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset(), len(src), validity.Bytes(), 0)
	}
	nd := array.NewData(want, len(src), []*memory.Buffer{validity, buf}, nil, nulls, 0)
	buf.Release()
	if validity != nil {
		validity.Release()
	}
	defer nd.Release()
	return array.MakeFromData(nd), nil
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

// rescale converts timestamps from one unit to another, rounding down.
func rescale(dst, src []arrow.Timestamp, from, to arrow.TimeUnit) {
	f, t := unitNanos(from), unitNanos(to)
	if f >= t {
		m := arrow.Timestamp(f / t)
		for i, v := range src {
			dst[i] = v * m
		}
		return
	}
	d := t / f
	for i, v := range src {
		dst[i] = arrow.Timestamp(textdecode.FloorDiv(int64(v), d))
	}
}
