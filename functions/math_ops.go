package functions

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func init() {
	register(&Func{Name: "mod", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindMod(args, false) }})
	register(&Func{Name: "pmod", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindMod(args, true) }})
	register(&Func{Name: "greatest", MinArgs: 2, MaxArgs: -1, Bind: func(args []Arg) (Bound, error) { return bindExtreme(args, 1) }})
	register(&Func{Name: "least", MinArgs: 2, MaxArgs: -1, Bind: func(args []Arg) (Bound, error) { return bindExtreme(args, -1) }})
}

// bindMod is mod(a, b) (Spark's a % b: the sign of a) and pmod (the
// positive remainder): the arguments' wider number type, a string being a
// double; null when b is 0.
func bindMod(args []Arg, positive bool) (Bound, error) {
	var t arrow.DataType = arrow.Null
	for i, a := range args {
		at := a.Type
		switch {
		case at.ID() == arrow.STRING:
			at = arrow.PrimitiveTypes.Float64
		case !isNumeric(at) && at.ID() != arrow.NULL:
			return Bound{}, typeErr(i, "a number", at)
		}
		t, _ = widerType(t, at, false)
	}
	if t.ID() == arrow.NULL {
		t = arrow.PrimitiveTypes.Int32
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		var xs [2]arrow.Array
		for i := range xs {
			a, err := column(mem, args, cols, i, n)
			if err != nil {
				return nil, err
			}
			xs[i], err = castTo(mem, a, t)
			a.Release()
			if err != nil {
				return nil, err
			}
			defer xs[i].Release()
		}
		switch t.ID() {
		case arrow.INT32:
			return modInts[int32](mem, t, xs, positive), nil
		case arrow.INT64:
			return modInts[int64](mem, t, xs, positive), nil
		}
		o := newFixedOut[float64](mem, n)
		b := fixedValues[float64](xs[1])
		for i, a := range fixedValues[float64](xs[0]) {
			if b[i] == 0 {
				o.setNull(i)
				continue
			}
			r := math.Mod(a, b[i])
			if positive && r < 0 {
				r = math.Mod(r+b[i], b[i])
			}
			o.V[i] = r
		}
		o.nullsFrom(xs[0])
		o.nullsFrom(xs[1])
		return o.finish(t), nil
	}}, nil
}

func modInts[T int32 | int64](mem memory.Allocator, t arrow.DataType, xs [2]arrow.Array, positive bool) arrow.Array {
	o := newFixedOut[T](mem, xs[0].Len())
	b := fixedValues[T](xs[1])
	for i, a := range fixedValues[T](xs[0]) {
		d := b[i]
		switch {
		case d == 0:
			o.setNull(i)
			continue
		case d == -1:
			o.V[i] = 0 // MinInt % -1 is 0 (Go's division would trap on it)
			continue
		}
		r := a % d
		if positive && r < 0 {
			r = (r + d) % d
		}
		o.V[i] = r
	}
	o.nullsFrom(xs[0])
	o.nullsFrom(xs[1])
	return o.finish(t)
}

// bindExtreme is greatest (dir 1) and least (dir -1): the largest or
// smallest non-null argument of each row, null only when all are; the
// arguments meet at their wider type (no string promotion, as Spark).
// A NaN is larger than any other double, as in Spark's ordering.
func bindExtreme(args []Arg, dir int) (Bound, error) {
	t, err := commonType(args, 0, false)
	if err != nil {
		return Bound{}, err
	}
	switch t.ID() {
	case arrow.NULL, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.STRING, arrow.BOOL, arrow.DATE32, arrow.TIMESTAMP:
	default:
		return Bound{}, typeErr(0, "an orderable value", t)
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		xs, err := castAll(mem, args, cols, 0, t, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		src := make([]int32, n)
		for i := range src {
			src[i] = -1
		}
		for j, x := range xs {
			cmp := comparer(x)
			for i := range src {
				if x.IsNull(i) {
					continue
				}
				if src[i] < 0 || dir*cmp(xs[src[i]], i) > 0 {
					src[i] = int32(j)
				}
			}
		}
		return gather(mem, t, xs, src), nil
	}}, nil
}

// castAll returns arguments from: as arrays of type t.
func castAll(mem memory.Allocator, args []Arg, cols []arrow.Array, from int, t arrow.DataType, n int) ([]arrow.Array, error) {
	var xs []arrow.Array
	for i := from; i < len(args); i++ {
		a, err := column(mem, args, cols, i, n)
		if err != nil {
			releaseAll(xs)
			return nil, err
		}
		c, err := castTo(mem, a, t)
		a.Release()
		if err != nil {
			releaseAll(xs)
			return nil, err
		}
		xs = append(xs, c)
	}
	return xs, nil
}

func releaseAll(xs []arrow.Array) {
	for _, x := range xs {
		x.Release()
	}
}

// comparer returns cmp(y, i): the order of row i of x against row i of y
// (same type), -1, 0 or 1; NaN is the largest double.
func comparer(x arrow.Array) func(y arrow.Array, i int) int {
	switch x.DataType().ID() {
	case arrow.INT32, arrow.DATE32:
		v := fixedValues[int32](x)
		return func(y arrow.Array, i int) int { return cmp3(v[i], fixedValues[int32](y)[i]) }
	case arrow.INT64, arrow.TIMESTAMP:
		v := fixedValues[int64](x)
		return func(y arrow.Array, i int) int { return cmp3(v[i], fixedValues[int64](y)[i]) }
	case arrow.FLOAT64:
		v := fixedValues[float64](x)
		return func(y arrow.Array, i int) int { return cmpDouble(v[i], fixedValues[float64](y)[i]) }
	case arrow.STRING:
		s := x.(*array.String)
		return func(y arrow.Array, i int) int { return cmp3(s.Value(i), y.(*array.String).Value(i)) }
	case arrow.BOOL:
		b := x.(*array.Boolean)
		return func(y arrow.Array, i int) int { return cmp3(b2i(b.Value(i)), b2i(y.(*array.Boolean).Value(i))) }
	}
	return func(arrow.Array, int) int { return 0 }
}

func cmp3[T int | int32 | int64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpDouble orders doubles as Spark: NaN equals NaN and is above +Inf;
// -0.0 equals 0.0.
func cmpDouble(a, b float64) int {
	an, bn := a != a, b != b
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
