package millrace

// Math functions of the library SQL shares (package functions), Spark's
// semantics: a string argument is cast to a double; logarithms out of
// their domain are null.

// Round rounds half up to scale decimal places (0 when omitted; negative
// rounds to tens, hundreds …); an integer stays an integer (Spark's round).
func Round(c Column, scale ...int) Column {
	if len(scale) > 0 {
		return call("round", c, int32(scale[0]))
	}
	return call("round", c)
}

// BRound rounds half to even (banker's rounding), as Round otherwise
// (Spark's bround).
func BRound(c Column, scale ...int) Column {
	if len(scale) > 0 {
		return call("bround", c, int32(scale[0]))
	}
	return call("bround", c)
}

// Floor is the largest integer not above c, as a bigint.
func Floor(c Column) Column { return call("floor", c) }

// Ceil is the smallest integer not below c, as a bigint.
func Ceil(c Column) Column { return call("ceil", c) }

// Pow is x to the power y, a double.
func Pow(x, y any) Column { return call("pow", x, y) }

// Sqrt is the square root (NaN for a negative number).
func Sqrt(c Column) Column { return call("sqrt", c) }

// Exp is e to the power c.
func Exp(c Column) Column { return call("exp", c) }

// Log is the natural logarithm (null for c <= 0), Spark's ln and log(x).
func Log(c Column) Column { return call("ln", c) }

// LogBase is the logarithm of c to base (Spark's log(base, x)).
func LogBase(base float64, c Column) Column { return call("log", base, c) }

// Log10 is the base-10 logarithm.
func Log10(c Column) Column { return call("log10", c) }

// Log2 is the base-2 logarithm.
func Log2(c Column) Column { return call("log2", c) }

// Signum is -1.0, 0.0 or 1.0 as c is negative, zero or positive.
func Signum(c Column) Column { return call("signum", c) }

// Sin is the sine of c radians.
func Sin(c Column) Column { return call("sin", c) }

// Cos is the cosine of c radians.
func Cos(c Column) Column { return call("cos", c) }

// Tan is the tangent of c radians.
func Tan(c Column) Column { return call("tan", c) }

// Atan2 is the angle of the point (x, y), Spark's atan2(y, x).
func Atan2(y, x any) Column { return call("atan2", y, x) }

// Greatest is the largest non-null argument of each row (null only when
// all are null); the arguments meet at their wider type.
func Greatest(cols ...any) Column { return call("greatest", cols...) }

// Least is the smallest non-null argument of each row.
func Least(cols ...any) Column { return call("least", cols...) }

// Mod is the remainder of a / b with the sign of a (Spark's mod and %);
// null when b is 0.
func Mod(a, b any) Column { return call("mod", a, b) }

// Pmod is the positive remainder of a / b (Spark's pmod).
func Pmod(a, b any) Column { return call("pmod", a, b) }
