package functions

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fixedValue is a fixed-width value an Arrow array holds in one buffer.
type fixedValue interface {
	~int32 | ~int64 | ~float64
}

// fixedOut builds an array of fixed-width values row by row without a
// builder's per-value bookkeeping: V is written in place, and a row is
// made null by setNull. Every row starts valid.
type fixedOut[T fixedValue] struct {
	vals, valid *memory.Buffer
	V           []T
	bits        []byte
	nulls       int
}

func newFixedOut[T fixedValue](mem memory.Allocator, n int) *fixedOut[T] {
	var zero T
	o := &fixedOut[T]{vals: memory.NewResizableBuffer(mem), valid: memory.NewResizableBuffer(mem)}
	o.vals.Resize(n * int(unsafe.Sizeof(zero)))
	o.V = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(o.vals.Bytes()))), n)
	o.valid.Resize(int(bitutil.BytesForBits(int64(n))))
	o.bits = o.valid.Bytes()
	bitutil.SetBitsTo(o.bits, 0, int64(n), true)
	return o
}

func (o *fixedOut[T]) setNull(i int) {
	bitutil.ClearBit(o.bits, i)
	o.V[i] = 0
	o.nulls++
}

// nullsFrom makes null every row where a is null.
func (o *fixedOut[T]) nullsFrom(a arrow.Array) {
	if a.NullN() == 0 {
		return
	}
	for i := range o.V {
		if a.IsNull(i) {
			o.setNull(i)
		}
	}
}

// finish returns the array of type t; the builder is spent.
func (o *fixedOut[T]) finish(t arrow.DataType) arrow.Array {
	valid := o.valid
	if o.nulls == 0 {
		valid = nil
	}
	d := array.NewData(t, len(o.V), []*memory.Buffer{valid, o.vals}, nil, o.nulls, 0)
	o.vals.Release()
	o.valid.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// fixedValues is the values of a fixed-width array (int32, int64, float64,
// date32, timestamp) as a slice of T, which must have the same width.
func fixedValues[T fixedValue](a arrow.Array) []T {
	var zero T
	w := int(unsafe.Sizeof(zero))
	buf := a.Data().Buffers()[1]
	if buf == nil || buf.Len() < (a.Data().Offset()+a.Len())*w {
		return make([]T, a.Len()) // an all-null array without values
	}
	b := buf.Bytes()[a.Data().Offset()*w:]
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), a.Len())
}
