package kernels

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// Overflowed returns the first row whose integer result res of x op y
// wrapped around int64, or -1: the check ANSI mode makes after Arith or
// ArithScalar (which wrap, as Spark does without ANSI mode). y is nil when
// the other operand is the scalar lit (its left operand when litLeft). Only
// Add, Sub and Mul of integers can overflow; null results are skipped.
func Overflowed(op ArithOp, res, x, y arrow.Array, lit any, litLeft bool) int {
	if op != Add && op != Sub && op != Mul || res.DataType().ID() != arrow.INT64 {
		return -1
	}
	out := viewOf(res).i64
	xv := viewOf(x)
	var yv numView
	var litI int64
	if y != nil {
		yv = viewOf(y)
	} else {
		v, ok := litInt64(lit)
		if !ok {
			return -1
		}
		litI = v
	}
	for i, r := range out {
		if res.IsNull(i) {
			continue
		}
		a := xv.int(i)
		b := litI
		if y != nil {
			b = yv.int(i)
		} else if litLeft {
			a, b = b, a
		}
		if wrapped(op, a, b, r) {
			return i
		}
	}
	return -1
}

func (v numView) int(i int) int64 {
	if v.kind == kindInt32 {
		return int64(v.i32[i])
	}
	return v.i64[i]
}

// wrapped reports whether r, the wrapped result of a op b, differs from the
// true result.
func wrapped(op ArithOp, a, b, r int64) bool {
	switch op {
	case Add:
		return (a^r)&(b^r) < 0
	case Sub:
		return (a^b)&(a^r) < 0
	case Mul:
		return a != 0 && (r/a != b || (a == -1 && b == math.MinInt64))
	}
	return false
}

// AddChecked returns a+b and whether it did not overflow int64.
func AddChecked(a, b int64) (int64, bool) {
	s := a + b
	return s, (a^s)&(b^s) >= 0
}
