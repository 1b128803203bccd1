package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/arrowgen"
)

// batchSizes are the sizes every kernel is replayed over.
var batchSizes = []int{1, 2, 3, 16, 1024, 65536}

var tsType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// testCase is one replay configuration: size, null density, selection,
// slicing.
type testCase struct {
	n        int
	nullProb float64
	withSel  bool
	sliced   bool
}

func (c testCase) String() string {
	return fmt.Sprintf("n=%d/nulls=%.2f/sel=%v/sliced=%v", c.n, c.nullProb, c.withSel, c.sliced)
}

// forEachCase runs f over batch sizes × {no nulls, nulls} × {sel, no sel} ×
// {sliced, not}, with a checked allocator that must end empty.
func forEachCase(t *testing.T, f func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase)) {
	for _, n := range batchSizes {
		for _, np := range []float64{0, 0.2} {
			for _, ws := range []bool{false, true} {
				for _, sl := range []bool{false, true} {
					c := testCase{n: n, nullProb: np, withSel: ws, sliced: sl}
					t.Run(c.String(), func(t *testing.T) {
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						defer mem.AssertSize(t, 0)
						rng := rand.New(rand.NewPCG(uint64(n), uint64(b2i(ws)<<2|b2i(sl)<<1|b2i(np > 0))))
						f(t, mem, rng, c)
					})
				}
			}
		}
	}
}

// randSel returns a random strictly increasing selection of [0, n), or nil.
func randSel(rng *rand.Rand, n int, with bool) []int32 {
	if !with {
		return nil
	}
	p := rng.Float64()
	sel := []int32{}
	for i := 0; i < n; i++ {
		if rng.Float64() < p {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

// live returns the live rows as a slice of indices.
func live(sel []int32, n int) []int32 {
	if sel != nil {
		return sel
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// genArray builds a random array of type dt with n rows. With sliced it is a
// slice at a random offset of a larger array. Values come from a small
// domain often enough to produce equal values.
func genArray(mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nullProb float64, sliced bool) arrow.Array {
	pre, post := 0, 0
	if sliced {
		pre, post = 1+rng.IntN(13), rng.IntN(5)
	}
	total := pre + n + post
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	small := rng.IntN(2) == 0
	for i := 0; i < total; i++ {
		if rng.Float64() < nullProb {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			if small {
				bb.Append(int32(rng.IntN(20) - 10))
			} else {
				bb.Append(int32(rng.Uint32()))
			}
		case *array.Int64Builder:
			if small {
				bb.Append(int64(rng.IntN(20) - 10))
			} else {
				bb.Append(int64(rng.Uint64()))
			}
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(rng.Int64N(4_000_000_000_000) - 1_000_000_000_000))
		case *array.Float64Builder:
			bb.Append(arrowgen.RandFloat(rng, small))
		case *array.BooleanBuilder:
			bb.Append(rng.IntN(2) == 0)
		case *array.StringBuilder:
			bb.Append(arrowgen.RandString(rng, small))
		case *array.BinaryBuilder:
			bb.Append([]byte(arrowgen.RandString(rng, small)))
		default:
			panic("genArray: " + dt.String())
		}
	}
	arr := b.NewArray()
	if !sliced {
		return arr
	}
	defer arr.Release()
	return array.NewSlice(arr, int64(pre), int64(pre+n))
}

func sameInt32s(t *testing.T, what string, got, want []int32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows, want %d (got %v want %v)", what, len(got), len(want), head(got), head(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d: got %d want %d", what, i, got[i], want[i])
		}
	}
}

func head[T any](s []T) []T {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

// sparkFloatCmp is the oracle for Spark's double order.
func sparkFloatCmp(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmp3[T int64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
