package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSelectDivisibleMatchesRemainder checks the multiply-rotate test
// against Go's remainder (Spark's, for a nonzero divisor) for divisors odd,
// even, powers of two, negative and extreme, over random and edge values,
// with and without a selection and nulls.
func TestSelectDivisibleMatchesRemainder(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	divisors := []int64{1, -1, 2, -2, 3, 7, 10, 64, 123, -123, 1000, 1 << 40, 3 << 20, math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for range 20 {
		divisors = append(divisors, r.Int64N(1<<20)-1<<19|1, r.Int64()>>r.IntN(63))
	}
	edges := []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt32, math.MinInt32}
	mem := memory.NewGoAllocator()
	for _, d := range divisors {
		if d == 0 {
			continue
		}
		n := 500
		vals := make([]int64, n)
		valid := make([]bool, n)
		for i := range vals {
			switch i % 4 {
			case 0:
				vals[i] = edges[r.IntN(len(edges))]
			case 1:
				vals[i] = d * (r.Int64N(2001) - 1000) // a multiple (it may wrap)
			case 2:
				vals[i] = r.Int64N(10000) - 5000
			default:
				vals[i] = int64(r.Uint64())
			}
			valid[i] = r.IntN(8) != 0
		}
		b64 := array.NewInt64Builder(mem)
		b32 := array.NewInt32Builder(mem)
		b64.AppendValues(vals, valid)
		for i, v := range vals {
			if valid[i] {
				b32.Append(int32(v))
			} else {
				b32.AppendNull()
			}
		}
		cols := []arrow.Array{b64.NewArray(), b32.NewArray()}
		var sel []int32
		for i := range n {
			if r.IntN(3) != 0 {
				sel = append(sel, int32(i))
			}
		}
		for _, col := range cols {
			for _, s := range [][]int32{nil, sel} {
				for _, multiple := range []bool{true, false} {
					var want []int32
					live := s
					if live == nil {
						for i := range n {
							live = append(live, int32(i))
						}
					}
					for _, i := range live {
						if !col.IsValid(int(i)) {
							continue
						}
						x := oracleValue(col, int(i)).(int64)
						if (x%d == 0) == multiple {
							want = append(want, i)
						}
					}
					got, ok := SelectDivisible(col, d, multiple, s, nil)
					if !ok {
						t.Fatalf("%s: not taken", col.DataType())
					}
					if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
						t.Fatalf("%s %% %d, multiple %v, sel %v: got %v, want %v", col.DataType(), d, multiple, s != nil, got, want)
					}
				}
			}
			col.Release()
		}
		b64.Release()
		b32.Release()
	}
}

func TestZeroRemainderTest(t *testing.T) {
	for _, c := range []struct {
		op   CmpOp
		d, r any
		ok   bool
	}{
		{Eq, int64(123), int64(0), true},
		{Ne, 7, int32(0), true},
		{Eq, int64(123), int64(1), false},
		{Lt, int64(123), int64(0), false},
		{Eq, int64(0), int64(0), false},
		{Eq, 1.5, int64(0), false},
		{Eq, int64(3), 0.0, false},
	} {
		if _, ok := ZeroRemainderTest(c.op, c.d, c.r); ok != c.ok {
			t.Errorf("%v %v %v: %v", c.op, c.d, c.r, ok)
		}
	}
}
