package millrace

import (
	"github.com/millrace/millrace/plan"
)

// CallFunction calls the scalar function called name from the library that
// SQL shares (package functions), as Spark's call_function: args are
// Columns or Go literals. CallFunction("lower", Col("name")) is
// Lower(Col("name")). An unknown name or wrong arguments make the stream
// using the column invalid, with the error naming the function.
func CallFunction(name string, args ...any) Column {
	es := make([]plan.Expr, len(args))
	for i, a := range args {
		es[i] = toExpr(a)
	}
	return Column{plan.Call{Name: name, Args: es}}
}

// call is CallFunction for the typed wrappers.
func call(name string, args ...any) Column { return CallFunction(name, args...) }

// Lower is the string in lower case (Spark's lower).
func Lower(c Column) Column { return call("lower", c) }

// Upper is the string in upper case (Spark's upper).
func Upper(c Column) Column { return call("upper", c) }

// Abs is the absolute value (Spark's abs).
func Abs(c Column) Column { return call("abs", c) }

// SplitPart is the part-th piece (1-based; negative counts from the end)
// of c split on delim, a plain string (Spark's split_part); "" when there
// is no such piece.
func SplitPart(c Column, delim string, part int) Column { return call("split_part", c, delim, part) }
