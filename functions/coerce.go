package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// widerType is the type values of types a and b are both converted to, as
// Spark's TypeCoercion.findWiderTypeForTwo: NULL takes the other type,
// numbers widen (int, bigint, double), a date and a timestamp meet at
// timestamp; with stringPromotion (coalesce, if, nvl …) a string and a
// number, date or timestamp meet at string. ok is false when they do not
// meet.
func widerType(a, b arrow.DataType, stringPromotion bool) (arrow.DataType, bool) {
	switch {
	case a.ID() == arrow.NULL:
		return b, true
	case b.ID() == arrow.NULL || arrow.TypeEqual(a, b):
		return a, true
	case isNumeric(a) && isNumeric(b):
		switch {
		case a.ID() == arrow.FLOAT64 || b.ID() == arrow.FLOAT64:
			return arrow.PrimitiveTypes.Float64, true
		case a.ID() == arrow.INT64 || b.ID() == arrow.INT64:
			return arrow.PrimitiveTypes.Int64, true
		}
		return arrow.PrimitiveTypes.Int32, true
	case isDatetime(a) && isDatetime(b):
		return columnar.Timestamp, true
	case stringPromotion && a.ID() == arrow.STRING && promotable(b),
		stringPromotion && b.ID() == arrow.STRING && promotable(a):
		return arrow.BinaryTypes.String, true
	}
	return nil, false
}

func isDatetime(t arrow.DataType) bool { return t.ID() == arrow.DATE32 || t.ID() == arrow.TIMESTAMP }

// promotable reports whether Spark promotes t to a string beside one.
func promotable(t arrow.DataType) bool { return isNumeric(t) || isDatetime(t) }

// commonType is widerType over the types of args[from:]; the error names
// the first argument that does not fit.
func commonType(args []Arg, from int, stringPromotion bool) (arrow.DataType, error) {
	var t arrow.DataType = arrow.Null
	for i := from; i < len(args); i++ {
		w, ok := widerType(t, args[i].Type, stringPromotion)
		if !ok {
			return nil, fmt.Errorf("argument %d is %s, which does not meet %s of the arguments before it (Spark's type coercion)", i+1, columnar.TypeName(args[i].Type), columnar.TypeName(t))
		}
		t = w
	}
	return t, nil
}
