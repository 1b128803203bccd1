package plan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// TestDateTyping checks DATE as a plan type: literals, casts and the
// comparisons Spark allows, with the casts CoerceDates inserts.
func TestDateTyping(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "dt", Type: arrow.FixedWidthTypes.Date32},
		{Name: "ts", Type: columnar.Timestamp},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	dt, ts, str, i := ColumnRef{Name: "dt"}, ColumnRef{Name: "ts"}, ColumnRef{Name: "s"}, ColumnRef{Name: "i"}
	day := Literal{Value: arrow.Date32(19782)}
	if typ, err := TypeOf(day, s); err != nil || typ.ID() != arrow.DATE32 || day.String() != "DATE '2024-02-29'" {
		t.Errorf("date literal: %v %v %s", typ, err, day)
	}
	for _, c := range []struct {
		e       Expr
		ok      bool
		coerced string
	}{
		{Binary{Op: OpLt, L: dt, R: ts}, true, "(CAST(dt AS timestamp[us, tz=UTC]) < ts)"},
		{Binary{Op: OpEq, L: dt, R: Literal{Value: "2024-02-29"}}, true, "(dt = DATE '2024-02-29')"},
		{Binary{Op: OpEq, L: Literal{Value: "2024-02-30"}, R: dt}, true, "(NULL = dt)"},
		{Binary{Op: OpGe, L: dt, R: str}, true, "(dt >= CAST(s AS date32))"},
		{Binary{Op: OpEq, L: dt, R: day}, true, "(dt = DATE '2024-02-29')"},
		{Binary{Op: OpEq, L: dt, R: i}, false, ""},
		{Cast{E: dt, To: columnar.Timestamp}, true, ""},
		{Cast{E: ts, To: arrow.FixedWidthTypes.Date32}, true, ""},
		{Cast{E: str, To: arrow.FixedWidthTypes.Date32}, true, ""},
		{Cast{E: dt, To: arrow.PrimitiveTypes.Int64}, false, ""},
		{Cast{E: i, To: arrow.FixedWidthTypes.Date32}, false, ""},
	} {
		_, err := TypeOf(c.e, s)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok=%v", c.e, err, c.ok)
		}
		if b, isBin := c.e.(Binary); isBin && c.coerced != "" {
			if got := CoerceDates(b, s).String(); got != c.coerced {
				t.Errorf("CoerceDates(%s) = %s, want %s", c.e, got, c.coerced)
			}
		}
	}
	// date ± days is a date (date_add/date_sub); a date minus a date is not.
	for _, c := range []struct {
		e  Expr
		ok bool
	}{
		{Binary{Op: OpAdd, L: dt, R: i}, true},
		{Binary{Op: OpAdd, L: Literal{Value: int32(1)}, R: dt}, true},
		{Binary{Op: OpSub, L: dt, R: i}, true},
		{Binary{Op: OpSub, L: i, R: dt}, false},
		{Binary{Op: OpSub, L: dt, R: dt}, false},
		{Binary{Op: OpMul, L: dt, R: i}, false},
	} {
		typ, err := TypeOf(c.e, s)
		if (err == nil && typ.ID() == arrow.DATE32) != c.ok {
			t.Errorf("%s: %v %v, want a date: %v", c.e, typ, err, c.ok)
		}
	}
	if typ, ok := CommonType(arrow.FixedWidthTypes.Date32, columnar.Timestamp); !ok || typ.ID() != arrow.TIMESTAMP {
		t.Errorf("CommonType(date, timestamp) = %v", typ)
	}
	// CASE promotes to string as Spark's (CASE WHEN … THEN '1999-01-01' ELSE dt END).
	if typ, ok := CommonType(arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32); !ok || typ.ID() != arrow.STRING {
		t.Errorf("CommonType(string, date) = %v", typ)
	}
	if _, ok := CommonType(arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean); ok {
		t.Error("CommonType(string, boolean) accepted")
	}
}
