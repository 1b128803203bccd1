package kernels

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// b2i converts a bool to 0 or 1; the compiler turns it into a SETcc.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// growInt32 returns out resliced to length n, allocating only when its
// capacity is too small. The result is never nil: a nil selection means
// "every row", so an empty result must be an empty non-nil slice.
func growInt32(out []int32, n int) []int32 {
	if out == nil || cap(out) < n {
		return make([]int32, n, max(n+n/8, 8))
	}
	return out[:n]
}

// growUint64 is growInt32 for hashes.
func growUint64(out []uint64, n int) []uint64 {
	if cap(out) < n {
		return make([]uint64, n, n+n/8)
	}
	return out[:n]
}

// growInt64 is growInt32 for int64 results.
func growInt64(out []int64, n int) []int64 {
	if cap(out) < n {
		return make([]int64, n, n+n/8)
	}
	return out[:n]
}

// liveCount returns the number of live rows of an array of length n.
func liveCount(sel []int32, n int) int {
	if sel != nil {
		return len(sel)
	}
	return n
}

// validity returns the validity bitmap of a and the bit offset of its row 0,
// or nil when a has no nulls (the fast path).
func validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) == 0 || bufs[0] == nil {
		return nil, 0
	}
	return bufs[0].Bytes(), d.Offset()
}

// bitAt returns bit i of bm as 0 or 1.
func bitAt(bm []byte, i int) int {
	return int(bm[i>>3]>>(uint(i)&7)) & 1
}

// boolBits returns the value bitmap of a boolean array and its bit offset.
func boolBits(a *array.Boolean) ([]byte, int) {
	d := a.Data()
	return d.Buffers()[1].Bytes(), d.Offset()
}

// int64View returns the values of an int64 or timestamp array as []int64.
func int64View(a arrow.Array) ([]int64, bool) {
	switch c := a.(type) {
	case *array.Int64:
		return c.Int64Values(), true
	case *array.Timestamp:
		v := c.TimestampValues()
		return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
	}
	return nil, false
}

// varBinary is the offsets and raw data of a string or binary array.
// offs is offset-adjusted: value i spans data[offs[i]:offs[i+1]].
type varBinary struct {
	offs []int32
	data []byte
}

// varBinaryView returns the layout of a string or binary array.
func varBinaryView(a arrow.Array) (varBinary, bool) {
	var offs []int32
	switch c := a.(type) {
	case *array.String:
		offs = c.ValueOffsets()
	case *array.Binary:
		offs = c.ValueOffsets()
	default:
		return varBinary{}, false
	}
	var data []byte
	if b := a.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	if len(offs) == 0 {
		offs = []int32{0}
	}
	return varBinary{offs: offs, data: data}, true
}

// bstr views data[s:e] as a string without copying.
func bstr(data []byte, s, e int32) string {
	b := data[s:e]
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// fkey maps a float64 to an int64 whose order is Spark's order of doubles:
// -0 equals 0 and every NaN equals every other NaN and sorts above +Inf.
func fkey(f float64) int64 {
	if f == 0 {
		f = 0
	}
	b := int64(math.Float64bits(f))
	k := b ^ int64(uint64(b>>63)>>1)
	if f != f {
		k = math.MaxInt64
	}
	return k
}

// filterValid removes from sel (in place) the rows whose validity bit is 0.
func filterValid(sel []int32, bm []byte, off int) []int32 {
	n := 0
	for _, r := range sel {
		sel[n] = r
		n += bitAt(bm, off+int(r))
	}
	return sel[:n]
}

// selectAll writes every live row (sel, or 0..n-1) to out.
func selectAll(sel []int32, n int, out []int32) []int32 {
	if sel != nil {
		out = growInt32(out, len(sel))
		copy(out, sel)
		return out
	}
	out = growInt32(out, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// newBuffer allocates a zero-length-checked buffer of n bytes from mem.
func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(n)
	return buf
}

// bitmapBytes is the byte length of a bitmap of n bits.
func bitmapBytes(n int) int { return (n + 7) / 8 }

// makeArray wraps buffers into an array of type dt and drops the caller's
// references to the buffers (the array holds its own).
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

// unsafeSizeof is unsafe.Sizeof for a type parameter's value.
func unsafeSizeof[T any](v T) uintptr { return unsafe.Sizeof(v) }

// castOffsets views a byte buffer as offsets of type O.
func castOffsets[O int32 | int64](b []byte) []O {
	var zero O
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*O)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(zero)))
}

// largeOffsets returns the offset-adjusted offsets of a large string or
// large binary array (one more than its length).
func largeOffsets(a arrow.Array) []int64 {
	var offs []int64
	switch c := a.(type) {
	case *array.LargeString:
		if c.Len() > 0 {
			offs = c.ValueOffsets()
		}
	case *array.LargeBinary:
		if c.Len() > 0 {
			offs = c.ValueOffsets()
		}
	}
	if len(offs) == 0 {
		offs = []int64{0}
	}
	return offs
}

// varData returns the data buffer of a variable-length binary array.
func varData(a arrow.Array) []byte {
	if b := a.Data().Buffers()[2]; b != nil {
		return b.Bytes()
	}
	return nil
}
