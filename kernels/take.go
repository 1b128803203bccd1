package kernels

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// Take gathers the rows idx of arr (in idx's order; repeats allowed) into a
// new array allocated from mem. Nulls are preserved, at every level of a
// nested type. Every index must be in [0, arr.Len()): an out-of-range index
// panics, as a programming error of the caller.
//
// Flat types have typed loops (the hot path): null, bool, every fixed-width
// type of whole bytes (integers, floats, decimals, timestamps, dates, times,
// durations, intervals, fixed-size binary), string, binary and their large
// variants, and structs (field by field, through Take). Lists, large lists,
// fixed-size lists and maps gather their offsets and then Take their child;
// dictionaries Take their indices and keep their dictionary; extension types
// Take their storage (take_nested.go). Any other type (views, run-end
// encoded) goes through a generic path built on array.Concatenate. Only
// unions, which no source produces, are unsupported; they panic.
func Take(mem memory.Allocator, arr arrow.Array, idx []int32) arrow.Array {
	n := len(idx)
	dt := arr.DataType()
	switch a := arr.(type) {
	case *array.Null:
		return array.NewNull(n)
	case *array.Boolean:
		valid, nulls := takeValidity(mem, arr, idx)
		out := newBuffer(mem, bitmapBytes(n))
		bm, off := boolBits(a)
		gatherBits(bm, off, idx, out.Bytes())
		return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
	case *array.String, *array.Binary:
		valid, nulls := takeValidity(mem, arr, idx)
		vb, _ := varBinaryView(a)
		offs, data := takeVarBinary(mem, vb.offs, vb.data, idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case *array.LargeString, *array.LargeBinary:
		valid, nulls := takeValidity(mem, arr, idx)
		offs, data := takeVarBinary(mem, largeOffsets(a), varData(a), idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case *array.Struct:
		return takeStruct(mem, a, idx)
	}
	if width, ok := byteWidth(dt); ok {
		return takeFixed(mem, arr, width, idx)
	}
	return takeNested(mem, dt, []arrow.Array{arr}, nil, idx)
}

// byteWidth returns the value width in bytes of the fixed-width types that
// takeFixed gathers. It lists type ids rather than asking for
// arrow.FixedWidthDataType, because dictionaries (and bool) also implement
// that interface but are not a plain value buffer.
func byteWidth(dt arrow.DataType) (int, bool) {
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.INT32, arrow.UINT32,
		arrow.INT64, arrow.UINT64, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256, arrow.FIXED_SIZE_BINARY:
		bw := dt.(arrow.FixedWidthDataType).BitWidth()
		return bw / 8, bw%8 == 0 && bw > 0
	}
	return 0, false
}

// takeFixed gathers a fixed-width array of width bytes per value.
func takeFixed(mem memory.Allocator, arr arrow.Array, width int, idx []int32) arrow.Array {
	n := len(idx)
	valid, nulls := takeValidity(mem, arr, idx)
	d := arr.Data()
	var src []byte
	if b := d.Buffers()[1]; b != nil {
		src = b.Bytes()[d.Offset()*width:]
	}
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
			copy(ob[i*width:(i+1)*width], src[int(r)*width:int(r+1)*width])
		}
	}
	return makeArray(arr.DataType(), n, []*memory.Buffer{valid, out}, nulls)
}

// takeStruct gathers a struct field by field. Struct.Field is already
// sliced to the struct's offset, so idx applies to every field as is.
func takeStruct(mem memory.Allocator, a *array.Struct, idx []int32) arrow.Array {
	valid, nulls := takeValidity(mem, a, idx)
	children := make([]arrow.ArrayData, a.NumField())
	for i := range children {
		c := Take(mem, a.Field(i), idx)
		children[i] = c.Data()
		defer c.Release()
	}
	d := array.NewData(a.DataType(), len(idx), []*memory.Buffer{valid}, children, nulls, 0)
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
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

// takeVarBinary gathers variable-length values (string, binary and their
// large variants) into new offset and data buffers. offs is offset-adjusted:
// value i spans data[offs[i]:offs[i+1]].
func takeVarBinary[O int32 | int64](mem memory.Allocator, offs []O, data []byte, idx []int32) (*memory.Buffer, *memory.Buffer) {
	var zero O
	width := int(unsafeSizeof(zero))
	offBuf := newBuffer(mem, (len(idx)+1)*width)
	out := castOffsets[O](offBuf.Bytes())[:len(idx)+1]
	var total O
	for i, r := range idx {
		out[i] = total
		total += offs[r+1] - offs[r]
	}
	out[len(idx)] = total
	dataBuf := newBuffer(mem, int(total))
	dst := dataBuf.Bytes()
	for i, r := range idx {
		copy(dst[out[i]:out[i+1]], data[offs[r]:offs[r+1]])
	}
	return offBuf, dataBuf
}

// Compact returns a record holding only the live rows of b. When b has no
// selection it returns b.Rec with an extra reference; either way the caller
// releases the result (and still owns its reference to b). Every column type
// Take supports is supported.
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
