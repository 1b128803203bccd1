package functions

import (
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func init() {
	register(&Func{Name: "abs", MinArgs: 1, MaxArgs: 1, Bind: bindAbs})
}

// bindAbs is Spark's abs: the argument's type; abs of the smallest integer
// overflows to itself, as in Spark's non-ANSI mode.
func bindAbs(args []Arg) (Bound, error) {
	t := args[0].Type
	if t.ID() == arrow.NULL {
		t = arrow.PrimitiveTypes.Float64
	}
	if !isNumeric(t) {
		return Bound{}, typeErr(0, "a number", t)
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		a2, err := castTo(mem, a, t)
		if err != nil {
			return nil, err
		}
		defer a2.Release()
		switch x := a2.(type) {
		case *array.Int32:
			return mapFixed(mem, x, func(v int32) int32 {
				if v < 0 {
					return -v
				}
				return v
			}), nil
		case *array.Int64:
			return mapFixed(mem, x, func(v int64) int64 {
				if v < 0 {
					return -v
				}
				return v
			}), nil
		default:
			return mapFixed(mem, x.(*array.Float64), func(v float64) float64 {
				return math.Abs(v)
			}), nil
		}
	}}, nil
}

// fixedArray is an Arrow array of fixed-width values with a typed view.
type fixedArray[T int32 | int64 | float64] interface {
	arrow.Array
	Values() []T
}

// mapFixed applies f to every value of a (a null slot's value is computed
// and ignored), keeping a's validity.
func mapFixed[T int32 | int64 | float64, A fixedArray[T]](mem memory.Allocator, a A, f func(T) T) arrow.Array {
	in := a.Values()
	var zero T
	buf := memory.NewResizableBuffer(mem)
	defer buf.Release()
	buf.Resize(len(in) * int(unsafe.Sizeof(zero)))
	out := arrow.GetData[T](buf.Bytes())[:len(in)]
	for i, v := range in {
		out[i] = f(v)
	}
	valid := validity(mem, a)
	if valid != nil {
		defer valid.Release()
	}
	d := array.NewData(a.DataType(), a.Len(), []*memory.Buffer{valid, buf}, nil, a.NullN(), 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// validity returns a's validity bitmap starting at bit 0, or nil when a
// has no nulls; the caller releases it.
func validity(mem memory.Allocator, a arrow.Array) *memory.Buffer {
	if a.NullN() == 0 {
		return nil
	}
	src := a.Data().Buffers()[0]
	if a.Data().Offset() == 0 {
		src.Retain()
		return src
	}
	dst := memory.NewResizableBuffer(mem)
	dst.Resize(int(bitutil.BytesForBits(int64(a.Len()))))
	bitutil.CopyBitmap(src.Bytes(), a.Data().Offset(), a.Len(), dst.Bytes(), 0)
	return dst
}
