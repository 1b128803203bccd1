package join

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherArray gathers rows from a column split into chunks: output row i is
// row idx[i] of srcs[ch[i]] (of srcs[0] when ch is nil), or null when
// idx[i] < 0. Every src has type dt. Supported types: fixed-width types of
// whole bytes, bool, string, binary, null and structs of those (the types
// kernels.Take supports). The caller releases the result.
func gatherArray(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, ch []uint32, idx []int32) arrow.Array {
	n := len(idx)
	if dt.ID() == arrow.NULL {
		return array.NewNull(n)
	}
	valid, nulls := gatherValidity(mem, srcs, ch, idx)
	switch dt.ID() {
	case arrow.BOOL:
		out := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
		gatherBools(srcs, ch, idx, out.Bytes())
		return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
	case arrow.STRING, arrow.BINARY:
		offs, data := gatherVarBinary(mem, srcs, ch, idx)
		return makeArray(dt, n, []*memory.Buffer{valid, offs, data}, nulls)
	case arrow.STRUCT:
		st := dt.(*arrow.StructType)
		children := make([]arrow.ArrayData, st.NumFields())
		fsrcs := make([]arrow.Array, len(srcs))
		for f := range children {
			for c, s := range srcs {
				fsrcs[c] = s.(*array.Struct).Field(f)
			}
			a := gatherArray(mem, st.Field(f).Type, fsrcs, ch, idx)
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
	fw, ok := dt.(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 {
		if valid != nil {
			valid.Release()
		}
		panic(fmt.Sprintf("join: gather: unsupported column type %s", dt))
	}
	width := fw.BitWidth() / 8
	out := newBuffer(mem, n*width)
	switch width {
	case 8:
		gatherFixed(srcs, ch, idx, 8, arrow.Int64Traits.CastFromBytes, arrow.Int64Traits.CastFromBytes(out.Bytes()))
	case 4:
		gatherFixed(srcs, ch, idx, 4, arrow.Int32Traits.CastFromBytes, arrow.Int32Traits.CastFromBytes(out.Bytes()))
	case 2:
		gatherFixed(srcs, ch, idx, 2, arrow.Int16Traits.CastFromBytes, arrow.Int16Traits.CastFromBytes(out.Bytes()))
	case 1:
		gatherFixed(srcs, ch, idx, 1, func(b []byte) []byte { return b }, out.Bytes())
	default:
		ob := out.Bytes()
		clear(ob)
		for i, r := range idx {
			if r < 0 {
				continue
			}
			c := 0
			if ch != nil {
				c = int(ch[i])
			}
			src := valueBytes(srcs[c], width)
			copy(ob[i*width:(i+1)*width], src[int(r)*width:])
		}
	}
	return makeArray(dt, n, []*memory.Buffer{valid, out}, nulls)
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

// gatherFixed is the typed loop of gatherArray for fixed-width values. It is
// specialised on whether there is one chunk and whether idx holds -1, so
// neither branch runs per row in the common cases.
func gatherFixed[T any](srcs []arrow.Array, ch []uint32, idx []int32, width int, cast func([]byte) []T, dst []T) {
	dst = dst[:len(idx)]
	views := make([][]T, len(srcs))
	for c, s := range srcs {
		views[c] = cast(valueBytes(s, width))
	}
	var zero T
	neg := hasNegative(idx)
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
// null count, or (nil, 0) when no gathered row is null.
func gatherValidity(mem memory.Allocator, srcs []arrow.Array, ch []uint32, idx []int32) (*memory.Buffer, int) {
	anyNulls := false
	for _, s := range srcs {
		if s.NullN() > 0 {
			anyNulls = true
		}
	}
	if !anyNulls && !hasNegative(idx) {
		return nil, 0
	}
	n := len(idx)
	buf := newBuffer(mem, int(bitutil.BytesForBits(int64(n))))
	bm := buf.Bytes()
	clear(bm)
	bms := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	for c, s := range srcs {
		if s.NullN() > 0 {
			bms[c] = s.NullBitmapBytes()
			offs[c] = s.Data().Offset()
		}
	}
	for i, r := range idx {
		if r < 0 {
			continue
		}
		c := 0
		if ch != nil {
			c = int(ch[i])
		}
		if b := bms[c]; b != nil && !bitutil.BitIsSet(b, offs[c]+int(r)) {
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
		c := 0
		if ch != nil {
			c = int(ch[i])
		}
		s := srcs[c]
		if bitutil.BitIsSet(s.Data().Buffers()[1].Bytes(), s.Data().Offset()+int(r)) {
			bitutil.SetBit(dst, i)
		}
	}
}

// varView is the offsets and data of a string or binary array.
type varView struct {
	offs []int32
	data []byte
}

func varViewOf(a arrow.Array) varView {
	var v varView
	switch s := a.(type) {
	case *array.String:
		v.offs = s.ValueOffsets()
	case *array.Binary:
		v.offs = s.ValueOffsets()
	}
	if b := a.Data().Buffers()[2]; b != nil {
		v.data = b.Bytes()
	}
	return v
}

// gatherVarBinary gathers string/binary values (empty where idx < 0) into
// new offset and data buffers.
func gatherVarBinary(mem memory.Allocator, srcs []arrow.Array, ch []uint32, idx []int32) (*memory.Buffer, *memory.Buffer) {
	views := make([]varView, len(srcs))
	for c, s := range srcs {
		views[c] = varViewOf(s)
	}
	offBuf := newBuffer(mem, (len(idx)+1)*4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())[:len(idx)+1]
	total := 0
	for i, r := range idx {
		offs[i] = int32(total)
		if r < 0 {
			continue
		}
		c := 0
		if ch != nil {
			c = int(ch[i])
		}
		v := &views[c]
		total += int(v.offs[r+1] - v.offs[r])
	}
	offs[len(idx)] = int32(total)
	dataBuf := newBuffer(mem, total)
	data := dataBuf.Bytes()
	for i, r := range idx {
		if r < 0 {
			continue
		}
		c := 0
		if ch != nil {
			c = int(ch[i])
		}
		v := &views[c]
		copy(data[offs[i]:offs[i+1]], v.data[v.offs[r]:v.offs[r+1]])
	}
	return offBuf, dataBuf
}

func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	return buf
}

// makeArray wraps buffers into an array of type dt and drops the caller's
// references to the buffers.
func makeArray(dt arrow.DataType, n int, bufs []*memory.Buffer, nulls int) arrow.Array {
	d := array.NewData(dt, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	a := array.MakeFromData(d)
	d.Release()
	return a
}
