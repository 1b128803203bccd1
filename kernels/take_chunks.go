package kernels

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeChunks gathers rows from a column split into chunks: output row i is
// row idx[i] of srcs[ch[i]] (of srcs[0] when ch is nil), or null when
// idx[i] < 0. Every src has type dt; every type Take supports is supported.
// The caller releases the result. The joins gather their output with it
// (several buffered batches, null rows for outer joins).
//
// Flat types have typed loops specialised on whether there is one chunk and
// whether idx holds -1, so neither branch runs per row in the common cases;
// with one chunk and no -1 it is Take. Nested types recurse as in Take
// (take_nested.go), with the child rows' chunks carried along.
func TakeChunks(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, ch []uint32, idx []int32) arrow.Array {
	if len(srcs) == 1 {
		ch = nil
	}
	neg := hasNegative(idx)
	if ch == nil && !neg && len(srcs) > 0 {
		return Take(mem, srcs[0], idx)
	}
	n := len(idx)
	switch dt.ID() {
	case arrow.NULL:
		return array.NewNull(n)
	case arrow.BOOL:
		valid, nulls := gatherValidity(mem, srcs, ch, idx, neg)
		out := newBuffer(mem, bitmapBytes(n))
		gatherBools(srcs, ch, idx, out.Bytes())
		return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
	case arrow.STRING, arrow.BINARY:
		valid, nulls := gatherValidity(mem, srcs, ch, idx, neg)
		views := make([]varView[int32], len(srcs))
		for c, s := range srcs {
			vb, _ := varBinaryView(s)
			views[c] = varView[int32](vb)
		}
		offs, data := gatherVarBinary(mem, views, ch, idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		valid, nulls := gatherValidity(mem, srcs, ch, idx, neg)
		views := make([]varView[int64], len(srcs))
		for c, s := range srcs {
			views[c] = varView[int64]{largeOffsets(s), varData(s)}
		}
		offs, data := gatherVarBinary(mem, views, ch, idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		valid, nulls := gatherValidity(mem, srcs, ch, idx, neg)
		children := make([]arrow.ArrayData, st.NumFields())
		fsrcs := make([]arrow.Array, len(srcs))
		for f := range children {
			for c, s := range srcs {
				fsrcs[c] = s.(*array.Struct).Field(f)
			}
			a := TakeChunks(mem, st.Field(f).Type, fsrcs, ch, idx)
			children[f] = a.Data()
			defer a.Release()
		}
		d := array.NewData(st, n, []*memory.Buffer{valid}, children, nulls, 0)
		if valid != nil {
			valid.Release()
		}
		defer d.Release()
		return array.MakeFromData(d)
	}
	width, ok := byteWidth(dt)
	if !ok {
		return takeNested(mem, dt, srcs, ch, idx)
	}
	valid, nulls := gatherValidity(mem, srcs, ch, idx, neg)
	out := newBuffer(mem, n*width)
	switch width {
	case 8:
		gatherFixed(srcs, ch, idx, neg, 8, arrow.Int64Traits.CastFromBytes, arrow.Int64Traits.CastFromBytes(out.Bytes()))
	case 4:
		gatherFixed(srcs, ch, idx, neg, 4, arrow.Int32Traits.CastFromBytes, arrow.Int32Traits.CastFromBytes(out.Bytes()))
	case 2:
		gatherFixed(srcs, ch, idx, neg, 2, arrow.Int16Traits.CastFromBytes, arrow.Int16Traits.CastFromBytes(out.Bytes()))
	case 1:
		gatherFixed(srcs, ch, idx, neg, 1, func(b []byte) []byte { return b }, out.Bytes())
	default:
		ob := out.Bytes()
		clear(ob)
		for i, r := range idx {
			if r < 0 {
				continue
			}
			src := valueBytes(srcs[chunkAt(ch, i)], width)
			copy(ob[i*width:(i+1)*width], src[int(r)*width:int(r+1)*width])
		}
	}
	return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
}

// chunkAt is the chunk of output row i.
func chunkAt(ch []uint32, i int) int {
	if ch == nil {
		return 0
	}
	return int(ch[i])
}

// valueBytes returns the value buffer of a fixed-width array from its first
// (offset-adjusted) value on.
func valueBytes(a arrow.Array, width int) []byte {
	d := a.Data()
	b := d.Buffers()[1]
	if b == nil {
		return nil
	}
	return b.Bytes()[d.Offset()*width:]
}

// gatherFixed is the typed loop of TakeChunks for fixed-width values. It is
// specialised on whether there is one chunk and whether idx holds -1, so
// neither branch runs per row in the common cases.
func gatherFixed[T any](srcs []arrow.Array, ch []uint32, idx []int32, neg bool, width int, cast func([]byte) []T, dst []T) {
	dst = dst[:len(idx)]
	views := make([][]T, len(srcs))
	for c, s := range srcs {
		views[c] = cast(valueBytes(s, width))
	}
	var zero T
	switch {
	case ch == nil && !neg:
		src := views[0]
		for i, r := range idx {
			dst[i] = src[r]
		}
	case ch == nil:
		src := views[0]
		for i, r := range idx {
			if r < 0 {
				dst[i] = zero
				continue
			}
			dst[i] = src[r]
		}
	case !neg:
		ch = ch[:len(idx)]
		for i, r := range idx {
			dst[i] = views[ch[i]][r]
		}
	default:
		ch = ch[:len(idx)]
		for i, r := range idx {
			if r < 0 {
				dst[i] = zero
				continue
			}
			dst[i] = views[ch[i]][r]
		}
	}
}

func hasNegative(idx []int32) bool {
	for _, r := range idx {
		if r < 0 {
			return true
		}
	}
	return false
}

// gatherValidity returns the validity bitmap of the gathered rows and their
// null count, or (nil, 0) when no gathered row is null. neg says whether
// idx holds -1 (a null row).
func gatherValidity(mem memory.Allocator, srcs []arrow.Array, ch []uint32, idx []int32, neg bool) (*memory.Buffer, int) {
	bms := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	anyNulls := false
	for c, s := range srcs {
		if bm, off := validity(s); bm != nil {
			bms[c], offs[c] = bm, off
			anyNulls = true
		}
	}
	if !anyNulls && !neg {
		return nil, 0
	}
	n := len(idx)
	buf := newBuffer(mem, bitmapBytes(n))
	bm := buf.Bytes()
	clear(bm)
	for i, r := range idx {
		if r < 0 {
			continue
		}
		c := chunkAt(ch, i)
		if b := bms[c]; b != nil && bitAt(b, offs[c]+int(r)) == 0 {
			continue
		}
		bitutil.SetBit(bm, i)
	}
	nulls := n - bitutil.CountSetBits(bm, 0, n)
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

// gatherBools gathers boolean values (false where idx < 0) into dst.
func gatherBools(srcs []arrow.Array, ch []uint32, idx []int32, dst []byte) {
	clear(dst)
	for i, r := range idx {
		if r < 0 {
			continue
		}
		bm, off := boolBits(srcs[chunkAt(ch, i)].(*array.Boolean))
		if bitAt(bm, off+int(r)) == 1 {
			bitutil.SetBit(dst, i)
		}
	}
}

// varView is the offset-adjusted offsets and the data of a string or
// binary array (O = int32) or of a large one (O = int64).
type varView[O int32 | int64] struct {
	offs []O
	data []byte
}

// gatherVarBinary gathers variable-length values (empty where idx < 0)
// into new offset and data buffers.
func gatherVarBinary[O int32 | int64](mem memory.Allocator, views []varView[O], ch []uint32, idx []int32) (*memory.Buffer, *memory.Buffer) {
	var zero O
	offBuf := newBuffer(mem, (len(idx)+1)*int(unsafeSizeof(zero)))
	offs := castOffsets[O](offBuf.Bytes())[:len(idx)+1]
	var total O
	for i, r := range idx {
		offs[i] = total
		if r < 0 {
			continue
		}
		v := &views[chunkAt(ch, i)]
		total += v.offs[r+1] - v.offs[r]
	}
	offs[len(idx)] = total
	dataBuf := newBuffer(mem, int(total))
	data := dataBuf.Bytes()
	for i, r := range idx {
		if r < 0 {
			continue
		}
		v := &views[chunkAt(ch, i)]
		copy(data[offs[i]:offs[i+1]], v.data[v.offs[r]:v.offs[r+1]])
	}
	return offBuf, dataBuf
}
