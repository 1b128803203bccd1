package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// Take gathers the rows idx of arr (in idx's order; repeats allowed) into a
// new array allocated from mem. Nulls are preserved. Supported: every
// fixed-width primitive type of 1, 2, 4 or 8 bytes (int32, int64, float64,
// timestamp, date, ...), bool, string, binary, null, and structs of those.
// Take panics on other types, like an out-of-range index; both are
// programming errors of the caller (the engine only builds these types).
func Take(mem memory.Allocator, arr arrow.Array, idx []int32) arrow.Array {
	n := len(idx)
	dt := arr.DataType()
	valid, nulls := takeValidity(mem, arr, idx)
	switch a := arr.(type) {
	case *array.Null:
		return array.NewNull(n)
	case *array.Boolean:
		out := newBuffer(mem, bitmapBytes(n))
		bm, off := boolBits(a)
		gatherBits(bm, off, idx, out.Bytes())
		return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
	case *array.String, *array.Binary:
		vb, _ := varBinaryView(a)
		offs, data := takeVarBinary(mem, vb, idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case *array.Struct:
		st := dt.(*arrow.StructType)
		children := make([]arrow.ArrayData, a.NumField())
		for i := range children {
			c := Take(mem, a.Field(i), idx)
			children[i] = c.Data()
			defer c.Release()
		}
		d := array.NewData(st, n, []*memory.Buffer{valid}, children, nulls, 0)
		if valid != nil {
			valid.Release()
		}
		defer d.Release()
		return array.MakeFromData(d)
	}
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 {
		if valid != nil {
			valid.Release()
		}
		panic(fmt.Sprintf("kernels: take: unsupported type %s", dt))
	}
	width := fw.BitWidth() / 8
	d := arr.Data()
	src := d.Buffers()[1].Bytes()[d.Offset()*width:]
	out := newBuffer(mem, n*width)
	switch width {
	case 8:
		gather(arrow.Int64Traits.CastFromBytes(src), idx, arrow.Int64Traits.CastFromBytes(out.Bytes()))
	case 4:
		gather(arrow.Int32Traits.CastFromBytes(src), idx, arrow.Int32Traits.CastFromBytes(out.Bytes()))
	case 2:
		gather(arrow.Int16Traits.CastFromBytes(src), idx, arrow.Int16Traits.CastFromBytes(out.Bytes()))
	case 1:
		gather(src, idx, out.Bytes())
	default:
		ob := out.Bytes()
		for i, r := range idx {
			copy(ob[i*width:(i+1)*width], src[int(r)*width:])
		}
	}
	return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
}

func gather[T any](src []T, idx []int32, dst []T) {
	dst = dst[:len(idx)]
	for i, r := range idx {
		dst[i] = src[r]
	}
}

// gatherBits writes bit idx[i] of src (at bit offset off) to bit i of dst.
func gatherBits(src []byte, off int, idx []int32, dst []byte) {
	clear(dst)
	for i, r := range idx {
		dst[i>>3] |= byte(bitAt(src, off+int(r)) << (uint(i) & 7))
	}
}

// takeValidity gathers the validity of arr, or returns nil when arr has no
// nulls (or none of the taken rows is null).
func takeValidity(mem memory.Allocator, arr arrow.Array, idx []int32) (*memory.Buffer, int) {
	bm, off := validity(arr)
	if bm == nil {
		return nil, 0
	}
	n := len(idx)
	buf := newBuffer(mem, bitmapBytes(n))
	gatherBits(bm, off, idx, buf.Bytes())
	nulls := n - bitutil.CountSetBits(buf.Bytes(), 0, n)
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

// takeVarBinary gathers string/binary values into new offset and data
// buffers.
func takeVarBinary(mem memory.Allocator, vb varBinary, idx []int32) (*memory.Buffer, *memory.Buffer) {
	offBuf := newBuffer(mem, (len(idx)+1)*4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:len(idx)+1]
	total := 0
	for i, r := range idx {
		offs[i] = int32(total)
		total += int(vb.offs[r+1] - vb.offs[r])
	}
	offs[len(idx)] = int32(total)
	dataBuf := newBuffer(mem, total)
	data := dataBuf.Bytes()
	for i, r := range idx {
		copy(data[offs[i]:offs[i+1]], vb.data[vb.offs[r]:vb.offs[r+1]])
	}
	return offBuf, dataBuf
}

// Compact returns a record holding only the live rows of b. When b has no
// selection it returns b.Rec with an extra reference; either way the caller
// releases the result (and still owns its reference to b).
func Compact(mem memory.Allocator, b columnar.Batch) arrow.RecordBatch {
	if b.Sel == nil {
		b.Rec.Retain()
		return b.Rec
	}
	cols := make([]arrow.Array, b.Rec.NumCols())
	for i := range cols {
		cols[i] = Take(mem, b.Rec.Column(i), b.Sel)
	}
	rec := array.NewRecordBatch(b.Rec.Schema(), cols, int64(len(b.Sel)))
	for _, c := range cols {
		c.Release()
	}
	return rec
}
