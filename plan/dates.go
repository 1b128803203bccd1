package plan

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// DateComparison is the type both sides of a comparison involving a date
// are cast to, as Spark promotes them: a date and a timestamp compare as
// timestamps (the date at midnight UTC), a date and a string as dates (the
// string parsed as CAST does), two dates as dates. ok is false when the
// types cannot be compared.
func DateComparison(a, b arrow.DataType) (arrow.DataType, bool) {
	if b.ID() == arrow.DATE32 {
		a, b = b, a
	}
	if a.ID() != arrow.DATE32 {
		return nil, false
	}
	switch b.ID() {
	case arrow.DATE32, arrow.STRING, arrow.NULL:
		return a, true
	case arrow.TIMESTAMP:
		return columnar.Timestamp, true
	}
	return nil, false
}

// CoerceDates returns the comparison e with casts inserted where one side
// is a date and the other is not (DateComparison), so that the kernels
// compare values of one type. Other expressions are returned unchanged.
func CoerceDates(e Binary, s *arrow.Schema) Binary {
	if !e.Op.IsComparison() {
		return e
	}
	lt, err1 := TypeOf(e.L, s)
	rt, err2 := TypeOf(e.R, s)
	if err1 != nil || err2 != nil || (lt.ID() != arrow.DATE32 && rt.ID() != arrow.DATE32) {
		return e
	}
	to, ok := DateComparison(lt, rt)
	if !ok {
		return e
	}
	e.L, e.R = castSide(e.L, lt, to), castSide(e.R, rt, to)
	return e
}

// castSide casts e of type t to type to; a string literal becomes a date
// literal here, once, so that the comparison runs against a constant.
func castSide(e Expr, t, to arrow.DataType) Expr {
	if arrow.TypeEqual(t, to) || t.ID() == arrow.NULL {
		return e
	}
	if l, ok := Unalias(e).(Literal); ok && to.ID() == arrow.DATE32 {
		if s, ok := l.Value.(string); ok {
			if d, ok := kernels.ParseSparkDate(s); ok {
				return Literal{Value: arrow.Date32(d)}
			}
			return Literal{Value: nil}
		}
	}
	return Cast{E: e, To: to}
}

// DateArithmetic is date ± days as Spark resolves it: dt + n and n + dt are
// date_add(dt, n), dt - n is date_sub(dt, n), for an int number of days
// (a date minus a date, an interval in Spark, is not supported). lt and rt
// are the types of e's operands; ok is false for any other arithmetic.
func DateArithmetic(e Binary, lt, rt arrow.DataType) (Call, bool) {
	isDays := func(t arrow.DataType) bool { return t.ID() == arrow.INT32 }
	switch {
	case e.Op == OpAdd && lt.ID() == arrow.DATE32 && isDays(rt):
		return Call{Name: "date_add", Args: []Expr{e.L, e.R}}, true
	case e.Op == OpAdd && isDays(lt) && rt.ID() == arrow.DATE32:
		return Call{Name: "date_add", Args: []Expr{e.R, e.L}}, true
	case e.Op == OpSub && lt.ID() == arrow.DATE32 && isDays(rt):
		return Call{Name: "date_sub", Args: []Expr{e.L, e.R}}, true
	}
	return Call{}, false
}
