package pqread

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Fixed-width columns are read straight into the record's buffer. pqarrow's
// record reader decodes a page's values into a buffer of its own, tracks
// levels for every column and hands the buffer over, so each batch costs
// it a new buffer, level bookkeeping and a copy; the column chunk reader's
// ReadBatch decodes (dictionary lookups included) into the slice it is
// given. On Nexmark's integer columns that is 1.25-1.4x the rows per
// CPU-second (BENCHMARKS "Parquet scan"). Only flat columns whose Arrow
// type is the physical type's own bits qualify (int32/int64 and what is
// stored in them as such: dates, times, timestamps, unsigned integers;
// float, double), and flat byte arrays read as strings or binaries
// (direct_binary.go); everything else (narrow integers, decimals, INT96,
// booleans, large strings, nested columns) goes through pqarrow.

// directCol reads one flat fixed-width or binary column across the row
// groups.
type directCol struct {
	field  arrow.Field // the output field, as pqarrow's manifest gives it
	leaf   int
	phys   parquet.Type
	width  int
	maxDef int16
	rg     int    // the row group cr reads; -1 before the first
	keep   []bool // the row groups read (nil: all; SkipRowGroups)
	mapped []byte // the file's bytes, when mapped (chunkPages)
	cr     file.ColumnChunkReader
	defs   []int16 // definition levels of a batch (optional columns)

	// required fixed-width columns whose chunk is plain or dictionary
	// encoded are read page by page (direct_pages.go): paged says the
	// current row group is, pagedDone that its pages are exhausted
	paged, pagedDone bool
	pages            pageCol

	// binary columns (readBinary)
	binary      bool
	vals        []parquet.ByteArray // a batch's values, aliasing a page
	bytesPerRow float64             // value bytes per row so far: the next buffer's size
}

// directFixed is whether a leaf of physical type phys read as t can be
// read by a directCol: t must be the physical value's own bits.
func directFixed(phys parquet.Type, t arrow.DataType) (width int, ok bool) {
	switch phys {
	case parquet.Types.Int64:
		switch t.ID() {
		case arrow.INT64, arrow.UINT64, arrow.TIMESTAMP, arrow.TIME64, arrow.DURATION:
			return 8, true
		}
	case parquet.Types.Int32:
		switch t.ID() {
		case arrow.INT32, arrow.UINT32, arrow.DATE32, arrow.TIME32:
			return 4, true
		}
	case parquet.Types.Double:
		return 8, t.ID() == arrow.FLOAT64
	case parquet.Types.Float:
		return 4, t.ID() == arrow.FLOAT32
	}
	return 0, false
}

// newDirectCol returns a reader of the manifest field sf, or nil when it
// must go through pqarrow. inferred is the type pqarrow infers from the
// Parquet schema alone: a type the file's stored Arrow schema changes
// beyond its time zone (a timestamp stored as ns but written as µs, say)
// is pqarrow's to convert.
func newDirectCol(pf *file.Reader, sf pqarrow.SchemaField, inferred arrow.DataType) *directCol {
	if !sf.IsLeaf() || sf.ColIndex < 0 {
		return nil
	}
	c := pf.MetaData().Schema.Column(sf.ColIndex)
	if c.MaxRepetitionLevel() > 0 || c.MaxDefinitionLevel() > 1 || len(c.ColumnPath()) != 1 {
		return nil
	}
	if !sameBits(sf.Field.Type, inferred) {
		return nil
	}
	d := &directCol{field: *sf.Field, leaf: sf.ColIndex, phys: c.PhysicalType(), maxDef: c.MaxDefinitionLevel(), rg: -1}
	if directBinary(d.phys, sf.Field.Type) {
		d.binary = true
		return d
	}
	width, ok := directFixed(d.phys, sf.Field.Type)
	if !ok {
		return nil
	}
	d.width = width
	return d
}

// sameBits is whether a and b are the same type up to a timestamp's time
// zone (which does not change the stored values).
func sameBits(a, b arrow.DataType) bool {
	if ta, ok := a.(*arrow.TimestampType); ok {
		tb, ok := b.(*arrow.TimestampType)
		return ok && ta.Unit == tb.Unit
	}
	return arrow.TypeEqual(a, b)
}

// read returns the column's next n rows as an array.
func (d *directCol) read(mem memory.Allocator, pf *file.Reader, n int) (arrow.Array, error) {
	if d.binary {
		return d.readBinary(mem, pf, n)
	}
	return d.readFixed(mem, pf, n)
}

// readFixed returns the column's next n rows as a fixed-width array.
func (d *directCol) readFixed(mem memory.Allocator, pf *file.Reader, n int) (arrow.Array, error) {
	vals := memory.NewResizableBuffer(mem)
	vals.Resize(n * d.width)
	if d.maxDef > 0 && cap(d.defs) < n {
		d.defs = make([]int16, n)
	}
	defs := d.defs[:0]
	if d.maxDef > 0 {
		defs = d.defs[:n]
	}
	levels, values := 0, 0
	for levels < n {
		if d.paged && !d.pagedDone {
			got, err := d.pages.read(vals.Bytes()[levels*d.width : n*d.width])
			if err != nil {
				vals.Release()
				return nil, fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err)
			}
			d.pagedDone = got == 0
			levels += got
			values += got
			continue
		}
		if d.paged || d.cr == nil || !d.cr.HasNext() {
			if err := d.nextRowGroup(pf); err != nil {
				vals.Release()
				return nil, err
			}
			continue
		}
		var lvlDst []int16
		if d.maxDef > 0 {
			lvlDst = defs[levels:]
		}
		total, got, err := d.readBatch(int64(n-levels), vals.Bytes(), values, lvlDst)
		if err != nil {
			vals.Release()
			return nil, err
		}
		levels += int(total)
		values += got
	}
	if values < n {
		spread(vals.Bytes(), d.width, defs, d.maxDef, values)
	}
	nulls, nullCount := d.validity(mem, n, values)
	data := array.NewData(d.field.Type, n, []*memory.Buffer{nulls, vals}, nil, nullCount, 0)
	vals.Release()
	if nulls != nil {
		nulls.Release()
	}
	defer data.Release()
	return array.MakeFromData(data), nil
}

// nextRowGroup moves the reader to the next row group's column chunk.
// closePages closes the chunk's page reader, if the chunk is read page by
// page, returning its buffers to pageMem.
func (d *directCol) closePages() {
	if d.paged {
		d.pages.src.close()
		d.paged = false
	}
}

// release closes the chunk's pages and returns the column's page and
// dictionary buffers to pageMem, at the end of the read.
func (d *directCol) release() {
	d.closePages()
	for _, b := range []*[]byte{&d.pages.buf, &d.pages.dict} {
		if *b != nil {
			pageMem.Unzeroed().Free((*b)[:cap(*b)])
			*b = nil
		}
	}
}

func (d *directCol) nextRowGroup(pf *file.Reader) error {
	d.closePages()
	d.rg++
	for d.keep != nil && d.rg < len(d.keep) && !d.keep[d.rg] { // skipped (SkipRowGroups)
		d.rg++
	}
	if d.rg >= pf.NumRowGroups() {
		return fmt.Errorf("column %s: the row groups end before the file's row count", d.field.Name)
	}
	if readPages && d.maxDef == 0 && pagedChunk(pf, d.rg, d.leaf) {
		src := newChunkPages(pf, d.mapped, d.rg, d.leaf, &d.pages.buf)
		if src == nil {
			pr, err := pf.RowGroup(d.rg).GetColumnPageReader(d.leaf)
			if err != nil {
				return fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err)
			}
			src = arrowPages{pr}
		}
		d.pages.reset(src, d.width) // width 0: byte arrays
		d.paged, d.pagedDone, d.cr = true, false, nil
		return nil
	}
	cr, err := pf.RowGroup(d.rg).Column(d.leaf)
	if err != nil {
		return fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err)
	}
	d.cr = cr
	if d.binary && d.bytesPerRow == 0 {
		// the chunk's uncompressed bytes per row (lengths and page
		// headers included): the first batch's buffer size
		if md, err := pf.MetaData().RowGroup(d.rg).ColumnChunk(d.leaf); err == nil && md.NumValues() > 0 {
			d.bytesPerRow = float64(md.TotalUncompressedSize()) / float64(md.NumValues())
		}
	}
	return nil
}

// readBatch reads up to n levels of the current chunk, their values
// written densely from value index at into buf.
func (d *directCol) readBatch(n int64, buf []byte, at int, defs []int16) (int64, int, error) {
	switch cr := d.cr.(type) {
	case *file.Int64ColumnChunkReader:
		return cr.ReadBatch(n, arrow.Int64Traits.CastFromBytes(buf)[at:], defs, nil)
	case *file.Int32ColumnChunkReader:
		return cr.ReadBatch(n, arrow.Int32Traits.CastFromBytes(buf)[at:], defs, nil)
	case *file.Float64ColumnChunkReader:
		return cr.ReadBatch(n, arrow.Float64Traits.CastFromBytes(buf)[at:], defs, nil)
	case *file.Float32ColumnChunkReader:
		return cr.ReadBatch(n, arrow.Float32Traits.CastFromBytes(buf)[at:], defs, nil)
	}
	return 0, 0, fmt.Errorf("column %s: unexpected chunk reader %T", d.field.Name, d.cr)
}

// spread moves the dense values (the first `values` of buf, width bytes
// each) to the rows whose definition level says present, last first so
// that no value is overwritten before it moves, and zeroes the null rows'
// slots.
func spread(buf []byte, width int, defs []int16, maxDef int16, values int) {
	j := values - 1
	for i := len(defs) - 1; i >= 0; i-- {
		dst := buf[i*width : (i+1)*width]
		if defs[i] == maxDef {
			copy(dst, buf[j*width:(j+1)*width])
			j--
		} else {
			clear(dst)
		}
	}
}

// validity returns the validity bitmap of a batch of n rows of which
// `values` are present, from its definition levels, and the null count;
// nil when no row is null. Every byte is written: the allocator's memory
// may be recycled, not zeroed.
func (d *directCol) validity(mem memory.Allocator, n, values int) (*memory.Buffer, int) {
	if values == n {
		return nil, 0
	}
	nulls := memory.NewResizableBuffer(mem)
	nulls.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := nulls.Bytes()
	clear(bits)
	for i, def := range d.defs[:n] {
		if def == d.maxDef {
			bitutil.SetBit(bits, i)
		}
	}
	return nulls, n - values
}
