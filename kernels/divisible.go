package kernels

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A filter such as Nexmark q2's `auction % 123 = 0` compares a remainder
// with zero: whether x is a multiple of d. That needs no division. For odd
// d, multiplying by d's inverse modulo 2^64 maps the multiples of d onto
// 0..(2^64-1)/d, one to one, and every other value above it (Granlund and
// Montgomery; Lemire, Kaser and Kurz, "Faster remainder by direct
// computation", 2019). An even d = d'·2^k rotates the product right by k
// bits, which moves values that are not multiples of 2^k out of that
// range. It is what compilers emit for a constant divisor; here the divisor
// is the query's literal, so it is worked out once per batch.

// ZeroRemainderTest reports whether `x % d op r` is a divisibility test
// that SelectDivisible evaluates: op is = or <>, r is an integer zero and d
// a nonzero integer. It returns d.
func ZeroRemainderTest(op CmpOp, d, r any) (int64, bool) {
	if op != Eq && op != Ne {
		return 0, false
	}
	if z, ok := litInt64(r); !ok || z != 0 {
		return 0, false
	}
	if _, ok := r.(arrow.Timestamp); ok {
		return 0, false
	}
	v, ok := litInt64(d)
	if _, ts := d.(arrow.Timestamp); ts || !ok || v == 0 {
		return 0, false
	}
	return v, true
}

// SelectDivisible returns the live rows (sel, or all of col's rows) whose
// value is a multiple of d (multiple true) or is not (multiple false), in
// order, written to out: the rows where `col % d = 0` (or `<> 0`) holds in
// Spark's semantics. Null rows hold neither. d must not be 0. ok is false
// when col is not an int32 or int64 column (the caller computes the
// remainders instead).
func SelectDivisible(col arrow.Array, d int64, multiple bool, sel, out []int32) (res []int32, ok bool) {
	out = growInt32(out, liveCount(sel, col.Len()))
	switch c := col.(type) {
	case *array.Int64:
		res = selectDivisible(c.Int64Values(), d, multiple, sel, out)
	case *array.Int32:
		res = selectDivisible(c.Int32Values(), d, multiple, sel, out)
	default:
		return out[:0], false
	}
	if bm, off := validity(col); bm != nil {
		res = filterValid(res, bm, off)
	}
	return res, true
}

// multipleTest is the multiply-rotate-compare form of a divisibility test.
type multipleTest struct {
	inv   uint64 // the inverse of d's odd part, modulo 2^64
	shift int    // d's trailing zero bits
	limit uint64 // (2^64-1)/|d|: the largest product of a multiple
}

func newMultipleTest(d int64) multipleTest {
	m := uint64(d)
	if d < 0 {
		m = -m // |math.MinInt64| is 2^63 as a uint64
	}
	k := bits.TrailingZeros64(m)
	odd := m >> k
	inv := odd // correct to 3 bits; each Newton step doubles that
	for range 5 {
		inv *= 2 - odd*inv
	}
	return multipleTest{inv: inv, shift: k, limit: ^uint64(0) / m}
}

// divides reports whether x is a multiple of the divisor (of |x|, as x % d
// is zero exactly when |x| % |d| is).
func (v multipleTest) divides(x int64) bool {
	s := uint64(x >> 63)
	u := (uint64(x) ^ s) - s // |x|; math.MinInt64 gives 2^63
	return bits.RotateLeft64(u*v.inv, -v.shift) <= v.limit
}

func selectDivisible[T int32 | int64](vals []T, d int64, multiple bool, sel, out []int32) []int32 {
	v := newMultipleTest(d)
	k := 0
	if sel == nil {
		out = out[:len(vals)]
		for i, x := range vals {
			out[k] = int32(i)
			k += b2i(v.divides(int64(x)) == multiple)
		}
		return out[:k]
	}
	out = out[:len(sel)]
	for _, r := range sel {
		out[k] = r
		k += b2i(v.divides(int64(vals[r])) == multiple)
	}
	return out[:k]
}
