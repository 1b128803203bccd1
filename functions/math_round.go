package functions

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// round(x[, d]) rounds half up (away from zero) and bround half to even,
// to d decimal places (0 by default; negative rounds to tens, hundreds …),
// as Spark: the result has x's type, so rounding an integer stays an
// integer (and wraps, as Spark's, if rounding overflows it). A double is
// rounded as the decimal Spark makes of it (Double.toString's shortest
// digits), so round(1.005, 2) is 1.01, not the 1.0 its binary value gives.

func init() {
	register(&Func{Name: "round", MinArgs: 1, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindRound(args, false) }})
	register(&Func{Name: "bround", MinArgs: 1, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindRound(args, true) }})
}

func bindRound(args []Arg, even bool) (Bound, error) {
	t := args[0].Type
	switch t.ID() {
	case arrow.NULL, arrow.STRING:
		t = arrow.PrimitiveTypes.Float64
	case arrow.INT32, arrow.INT64, arrow.FLOAT64:
	default:
		return Bound{}, typeErr(0, "a number", t)
	}
	scale := 0
	if len(args) == 2 {
		a := args[1]
		if !a.Const {
			return Bound{}, fmt.Errorf("argument 2 (the scale) must be a literal int")
		}
		switch v := a.Value.(type) {
		case nil:
			return nullResult(t), nil
		case int32:
			scale = int(v)
		case int64:
			if v < math.MinInt32 || v > math.MaxInt32 {
				return Bound{}, fmt.Errorf("argument 2 (the scale) %d is out of the int range", v)
			}
			scale = int(v)
		default:
			return Bound{}, typeErr(1, "an int scale", a.Type)
		}
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		x, err := castTo(mem, a, t)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		switch x := x.(type) {
		case *array.Int32:
			return mapFixed(mem, x, func(v int32) int32 { return int32(roundInt(int64(v), scale, even)) }), nil
		case *array.Int64:
			return mapFixed(mem, x, func(v int64) int64 { return roundInt(v, scale, even) }), nil
		default:
			return mapFixed(mem, x.(*array.Float64), func(v float64) float64 { return roundDouble(v, scale, even) }), nil
		}
	}}, nil
}

// roundInt rounds v to 10^-scale; the product wraps as Java's longValue
// of the rounded BigDecimal does.
func roundInt(v int64, scale int, even bool) int64 {
	if scale >= 0 {
		return v
	}
	k := -scale
	if k > 19 {
		return 0 // |v| < 10^19 / 2
	}
	if k == 19 {
		// 10^19 does not fit: only |v| ≥ 5·10^18 rounds away from 0,
		// to ±10^19, whose low 64 bits are ±(10^19 - 2^64).
		const wrapped = -8446744073709551616
		if v >= 5_000_000_000_000_000_000 {
			return wrapped
		}
		if v <= -5_000_000_000_000_000_000 {
			return -wrapped
		}
		return 0
	}
	p := int64(1)
	for range k {
		p *= 10
	}
	q, r := v/p, v%p
	if r < 0 {
		r = -r
	}
	up := 2*uint64(r) > uint64(p) || (2*uint64(r) == uint64(p) && (!even || q%2 != 0))
	if up {
		if v < 0 {
			q--
		} else {
			q++
		}
	}
	return q * p
}

// roundDouble rounds the shortest decimal form of v to scale places, half
// up or half to even; NaN and ±Inf stay, and a zero result is +0.0 (a
// BigDecimal has no negative zero).
func roundDouble(v float64, scale int, even bool) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 {
		return v
	}
	var buf [40]byte
	e := strconv.AppendFloat(buf[:0], math.Abs(v), 'e', -1, 64) // d.ddde±x
	// The digits and the exponent of the first.
	var digits [24]byte
	nd := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(unsafe.String(&e[i+1], len(e)-i-1))
	keep := exp + 1 + scale // digits at or above 10^-scale
	if keep >= nd {
		return v
	}
	if keep < 0 {
		return 0
	}
	rest := digits[keep:nd]
	up := rest[0] > '5' || (rest[0] == '5' && (!even || hasNonZero(rest[1:])))
	if even && rest[0] == '5' && !hasNonZero(rest[1:]) {
		up = keep > 0 && (digits[keep-1]-'0')%2 == 1
	}
	// The kept digits as an integer, plus one when rounding up; then
	// m·10^-scale parsed, so that the double is the nearest to the decimal.
	var m uint64
	for _, d := range digits[:keep] {
		m = m*10 + uint64(d-'0')
	}
	if up {
		m++
	}
	if m == 0 {
		return 0
	}
	out := strconv.AppendUint(buf[:0], m, 10)
	out = append(out, 'e')
	out = strconv.AppendInt(out, int64(-scale), 10)
	r, _ := strconv.ParseFloat(unsafe.String(&out[0], len(out)), 64)
	if v < 0 {
		r = -r
	}
	return r
}

func hasNonZero(ds []byte) bool {
	for _, d := range ds {
		if d != '0' {
			return true
		}
	}
	return false
}
