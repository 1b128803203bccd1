package functions

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Math functions of doubles, Spark's (non-ANSI): a number or a string
// argument is cast to double; a logarithm of a number out of its domain is
// null (Spark's Logarithm), a square root of a negative number is NaN.

func init() {
	isPos := func(x float64) bool { return x <= 0 } // null at or below 0
	register(unaryDouble("sqrt", math.Sqrt, nil))
	register(unaryDouble("exp", math.Exp, nil))
	register(unaryDouble("expm1", math.Expm1, nil))
	register(unaryDouble("ln", math.Log, isPos))
	register(unaryDouble("log10", math.Log10, isPos))
	register(unaryDouble("log2", math.Log2, isPos))
	register(unaryDouble("log1p", math.Log1p, func(x float64) bool { return x <= -1 }))
	register(unaryDouble("cbrt", math.Cbrt, nil))
	register(unaryDouble("sin", math.Sin, nil))
	register(unaryDouble("cos", math.Cos, nil))
	register(unaryDouble("tan", math.Tan, nil))
	register(unaryDouble("asin", math.Asin, nil))
	register(unaryDouble("acos", math.Acos, nil))
	register(unaryDouble("atan", math.Atan, nil))
	register(unaryDouble("sinh", math.Sinh, nil))
	register(unaryDouble("cosh", math.Cosh, nil))
	register(unaryDouble("tanh", math.Tanh, nil))
	register(unaryDouble("degrees", func(x float64) float64 { return x * (180 / math.Pi) }, nil))
	register(unaryDouble("radians", func(x float64) float64 { return x / 180 * math.Pi }, nil))
	register(unaryDouble("signum", signum, nil), "sign")
	register(&Func{Name: "log", MinArgs: 1, MaxArgs: 2, Bind: bindLog})
	register(&Func{Name: "pow", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return binaryDouble(args, javaPow, nil) }}, "power")
	register(&Func{Name: "atan2", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return binaryDouble(args, math.Atan2, nil) }})
	register(&Func{Name: "hypot", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return binaryDouble(args, math.Hypot, nil) }})
	register(&Func{Name: "floor", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) { return bindFloorCeil(args, math.Floor) }})
	register(&Func{Name: "ceil", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) { return bindFloorCeil(args, math.Ceil) }}, "ceiling")
}

func signum(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return x // ±0 and NaN stay
}

// javaPow is Java's Math.pow, which differs from Go's math.Pow where the
// exponent is NaN (always NaN) and for ±1 to an infinite power (NaN).
func javaPow(x, y float64) float64 {
	if math.IsNaN(y) || (math.IsInf(y, 0) && math.Abs(x) == 1) {
		return math.NaN()
	}
	return math.Pow(x, y)
}

// isDoubleInput reports whether Spark casts t implicitly to a double
// argument: numbers, strings and NULL.
func isDoubleInput(t arrow.DataType) bool {
	return isNumeric(t) || t.ID() == arrow.STRING || t.ID() == arrow.NULL
}

// doubleArg returns argument i as doubles of n rows.
func doubleArg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (*array.Float64, error) {
	return castArg[*array.Float64](mem, args, cols, i, n, arrow.PrimitiveTypes.Float64)
}

// unaryDouble is a function of one double to a double; null(x), if set,
// says which arguments give null.
func unaryDouble(name string, f func(float64) float64, null func(float64) bool) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if !isDoubleInput(args[0].Type) {
			return Bound{}, typeErr(0, "a number", args[0].Type)
		}
		out := arrow.PrimitiveTypes.Float64
		return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			x, err := doubleArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer x.Release()
			if null == nil {
				return mapFixed(mem, x, f), nil
			}
			o := newFixedOut[float64](mem, n)
			for i, v := range x.Float64Values() {
				if null(v) {
					o.setNull(i)
					continue
				}
				o.V[i] = f(v)
			}
			o.nullsFrom(x)
			return o.finish(out), nil
		}}, nil
	}}
}

// binaryDouble is a function of two doubles to a double; null(x, y), if
// set, says which arguments give null.
func binaryDouble(args []Arg, f func(x, y float64) float64, null func(x, y float64) bool) (Bound, error) {
	for i := range args {
		if !isDoubleInput(args[i].Type) {
			return Bound{}, typeErr(i, "a number", args[i].Type)
		}
	}
	out := arrow.PrimitiveTypes.Float64
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		x, err := doubleArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		y, err := doubleArg(mem, args, cols, 1, n)
		if err != nil {
			return nil, err
		}
		defer y.Release()
		yv := y.Float64Values()
		o := newFixedOut[float64](mem, n)
		for i, v := range x.Float64Values() {
			if null != nil && null(v, yv[i]) {
				o.setNull(i)
				continue
			}
			o.V[i] = f(v, yv[i])
		}
		o.nullsFrom(x)
		o.nullsFrom(y)
		return o.finish(out), nil
	}}, nil
}

// bindLog is log(x) (the natural logarithm) and log(base, x); null when x
// or the base is not positive, as Spark.
func bindLog(args []Arg) (Bound, error) {
	if len(args) == 1 {
		return unaryDouble("log", math.Log, func(x float64) bool { return x <= 0 }).Bind(args)
	}
	return binaryDouble(args, func(b, x float64) float64 { return math.Log(x) / math.Log(b) },
		func(b, x float64) bool { return b <= 0 || x <= 0 })
}

// bindFloorCeil is floor and ceil: a bigint, as Spark's; a double out of
// range saturates and NaN is 0 (Java's (long) cast).
func bindFloorCeil(args []Arg, f func(float64) float64) (Bound, error) {
	t := args[0].Type
	if !isDoubleInput(t) {
		return Bound{}, typeErr(0, "a number", t)
	}
	out := arrow.PrimitiveTypes.Int64
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		if t.ID() == arrow.INT32 || t.ID() == arrow.INT64 {
			a, err := column(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer a.Release()
			return castTo(mem, a, out)
		}
		x, err := doubleArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		o := newFixedOut[int64](mem, n)
		for i, v := range x.Float64Values() {
			o.V[i] = javaLong(f(v))
		}
		o.nullsFrom(x)
		return o.finish(out), nil
	}}, nil
}

// javaLong is Java's (long) cast of a double: truncation, saturation at
// the int64 range, NaN to 0.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
