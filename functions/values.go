package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// Const returns n copies of a literal argument's value as an array of its
// type; the caller owns it. Functions use it for a Const argument they take
// row by row (concat(a, '-', b)).
func Const(mem memory.Allocator, a Arg, n int) (arrow.Array, error) {
	if a.Value == nil || a.Type.ID() == arrow.NULL {
		return array.MakeArrayOfNull(mem, a.Type, n), nil
	}
	b := array.NewBuilder(mem, a.Type)
	defer b.Release()
	b.Reserve(n)
	switch bb := b.(type) {
	case *array.BooleanBuilder:
		v := a.Value.(bool)
		for range n {
			bb.Append(v)
		}
	case *array.Int32Builder:
		v := a.Value.(int32)
		for range n {
			bb.Append(v)
		}
	case *array.Int64Builder:
		v := a.Value.(int64)
		for range n {
			bb.Append(v)
		}
	case *array.Float64Builder:
		v := a.Value.(float64)
		for range n {
			bb.Append(v)
		}
	case *array.StringBuilder:
		v := a.Value.(string)
		bb.ReserveData(n * len(v))
		for range n {
			bb.Append(v)
		}
	case *array.TimestampBuilder:
		v := arrow.Timestamp(a.Value.(int64))
		for range n {
			bb.Append(v)
		}
	case *array.Date32Builder:
		v := a.Value.(arrow.Date32)
		for range n {
			bb.Append(v)
		}
	default:
		return nil, fmt.Errorf("a literal of type %s", columnar.TypeName(a.Type))
	}
	return b.NewArray(), nil
}

// column returns argument i as an array of n rows (materializing a Const
// one); the caller releases it.
func column(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (arrow.Array, error) {
	if cols[i] != nil {
		cols[i].Retain()
		return cols[i], nil
	}
	return Const(mem, args[i], n)
}

// castTo returns a converted to type to with Spark's CAST (kernels.Cast);
// the caller releases it.
func castTo(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(a.DataType(), to) {
		a.Retain()
		return a, nil
	}
	if a.DataType().ID() == arrow.NULL {
		return array.MakeArrayOfNull(mem, to, a.Len()), nil
	}
	return kernels.Cast(mem, a, to)
}

// castArg returns argument i as n rows cast to type to (Spark's CAST), as
// A, the Arrow array type of to; the caller releases it.
func castArg[A arrow.Array](mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int, to arrow.DataType) (A, error) {
	a, err := column(mem, args, cols, i, n)
	if err != nil {
		var none A
		return none, err
	}
	defer a.Release()
	c, err := castTo(mem, a, to)
	if err != nil {
		var none A
		return none, err
	}
	return c.(A), nil
}

// stringArg returns argument i as strings of n rows, cast as Spark casts
// an argument where a string is expected.
func stringArg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (*array.String, error) {
	return castArg[*array.String](mem, args, cols, i, n, arrow.BinaryTypes.String)
}

// isStringLike reports whether Spark casts t implicitly to a string
// argument: strings, numbers, booleans, timestamps and dates do; NULL
// does.
func isStringLike(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.INT32, arrow.INT64, arrow.FLOAT64, arrow.BOOL, arrow.TIMESTAMP, arrow.DATE32, arrow.NULL:
		return true
	}
	return false
}

// isNumeric reports whether t is a number type plan computes with.
func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.FLOAT64:
		return true
	}
	return false
}

func typeErr(i int, want string, got arrow.DataType) error {
	return fmt.Errorf("argument %d must be %s, not %s", i+1, want, columnar.TypeName(got))
}
