package pqread

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// Flat string and binary columns are read by the column chunk reader too:
// ReadBatchInPage hands out each value as a slice of the decompressed page
// (or of the dictionary), and read copies them into one value buffer and
// the offsets. pqarrow instead appends each value to a builder (a call and
// a capacity check per value, and its buffer sized from the whole column
// chunk, zeroed, for every batch). The value buffer starts at the size the
// column's bytes per row so far predict, so it grows rarely.

// directBinary reports whether the leaf's Arrow type t is read by
// readBinary: a byte array as a plain (32-bit offset) string or binary.
func directBinary(phys parquet.Type, t arrow.DataType) bool {
	return phys == parquet.Types.ByteArray && (t.ID() == arrow.STRING || t.ID() == arrow.BINARY)
}

// readBinary returns the column's next n rows as a string or binary array.
func (d *directCol) readBinary(mem memory.Allocator, pf *file.Reader, n int) (arrow.Array, error) {
	offBuf := memory.NewResizableBuffer(mem)
	offBuf.Resize((n + 1) * 4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:n+1]
	data := memory.NewResizableBuffer(mem)
	data.Reserve(max(64, int(d.bytesPerRow*float64(n)*1.0625)))
	fail := func(err error) (arrow.Array, error) {
		offBuf.Release()
		data.Release()
		return nil, err
	}
	if cap(d.vals) < n {
		d.vals = make([]parquet.ByteArray, n)
	}
	if d.maxDef > 0 && cap(d.defs) < n {
		d.defs = make([]int16, n)
	}
	pos, levels, values := 0, 0, 0
	for levels < n {
		if d.paged && !d.pagedDone {
			var got int
			var err error
			pos, got, err = d.pages.readBinary(data, offs[levels:n], pos)
			if err != nil {
				return fail(fmt.Errorf("column %s, row group %d: %w", d.field.Name, d.rg, err))
			}
			d.pagedDone = got == 0
			levels += got
			values += got
			continue
		}
		if d.paged || d.cr == nil || !d.cr.HasNext() {
			if err := d.nextRowGroup(pf); err != nil {
				return fail(err)
			}
			continue
		}
		cr, ok := d.cr.(*file.ByteArrayColumnChunkReader)
		if !ok {
			return fail(fmt.Errorf("column %s: unexpected chunk reader %T", d.field.Name, d.cr))
		}
		var defs []int16
		if d.maxDef > 0 {
			defs = d.defs[levels:n]
		}
		total, got, err := cr.ReadBatchInPage(int64(n-levels), d.vals[:n-levels], defs, nil)
		if err != nil {
			return fail(err)
		}
		vals := d.vals[:got]
		need := 0
		for _, v := range vals {
			need += len(v)
		}
		if pos+need > math.MaxInt32 {
			return fail(fmt.Errorf("column %s: over 2 GiB of values in %d rows; read the file in smaller batches", d.field.Name, n))
		}
		if pos+need > data.Cap() {
			data.Reserve(max(pos+need, 2*data.Cap()))
		}
		buf := data.Buf()
		if defs == nil || got == int(total) { // no nulls in these rows
			for k, v := range vals {
				offs[levels+k] = int32(pos)
				pos += copy(buf[pos:], v)
			}
		} else {
			j := 0
			for k := range int(total) {
				offs[levels+k] = int32(pos)
				if defs[k] == d.maxDef {
					pos += copy(buf[pos:], vals[j])
					j++
				}
			}
		}
		levels += int(total)
		values += got
	}
	offs[n] = int32(pos)
	data.ResizeNoShrink(pos)
	d.bytesPerRow = 0.75*d.bytesPerRow + 0.25*float64(pos)/float64(max(n, 1))
	if d.bytesPerRow*float64(n) < float64(pos) {
		d.bytesPerRow = float64(pos) / float64(max(n, 1))
	}
	nulls, nullCount := d.validity(mem, n, values)
	ad := array.NewData(d.field.Type, n, []*memory.Buffer{nulls, offBuf, data}, nil, nullCount, 0)
	offBuf.Release()
	data.Release()
	if nulls != nil {
		nulls.Release()
	}
	defer ad.Release()
	return array.MakeFromData(ad), nil
}
