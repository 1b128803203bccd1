package testutil

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// BatchSizes are the batch sizes operator tests replay their input over:
// the degenerate ones, a small one, and the engine's default.
var BatchSizes = []int{1, 2, 3, 16, 1024, 65536}

// GenColumn returns a column of n values of type t drawn from card distinct
// values, each null with probability nullP. Floats include NaN, -0 and +0;
// strings vary in length. The array is a slice with a non-zero offset when
// sliced is set, so kernels that ignore offsets fail.
func GenColumn(mem memory.Allocator, rng *rand.Rand, t arrow.DataType, n, card int, nullP float64, sliced bool) arrow.Array {
	pad := 0
	if sliced {
		pad = 3
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for i := 0; i < n+2*pad; i++ {
		if rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		v := rng.IntN(card)
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.Append(int64(v)*7919 - 1000)
		case *array.Int32Builder:
			bb.Append(int32(v) - 50)
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v*37 - 400))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(int64(v) * 60_000_000))
		case *array.Float64Builder:
			switch v {
			case 0:
				bb.Append(math.NaN())
			case 1:
				bb.Append(math.Copysign(0, -1))
			case 2:
				bb.Append(0)
			default:
				bb.Append(float64(v) / 4)
			}
		case *array.BooleanBuilder:
			bb.Append(v%2 == 0)
		case *array.StringBuilder:
			bb.Append(fmt.Sprintf("k%0*d", v%13, v))
		case *array.BinaryBuilder:
			bb.Append([]byte(fmt.Sprintf("b\x00%d", v)))
		}
	}
	arr := b.NewArray()
	if !sliced {
		return arr
	}
	defer arr.Release()
	return array.NewSlice(arr, int64(pad), int64(pad+n))
}

// GenSel returns a random increasing selection over n rows (about two rows
// in three), or nil when use is false.
func GenSel(rng *rand.Rand, n int, use bool) []int32 {
	if !use {
		return nil
	}
	sel := []int32{}
	for i := 0; i < n; i++ {
		if rng.IntN(3) != 0 {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// LiveRows returns sel, or every row index below n when sel is nil.
func LiveRows(sel []int32, n int) []int32 {
	if sel != nil {
		return sel
	}
	return columnar.Identity(nil, n)
}

// ReleaseAll releases every array.
func ReleaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

// Must returns v, panicking on err: for constructors in tests, whose
// options are known to be good.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
