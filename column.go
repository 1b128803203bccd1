package millrace

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// Column is an expression over the columns of a stream: a column reference,
// a literal, or a computation over other columns. Methods that take `any`
// accept a Column or a Go literal (bool, int, int32, int64, float64, string,
// time.Time, nil), or a time.Duration, an interval: Col("ts").Plus(time.Hour)
// is a timestamp an hour later, as Spark's ts + INTERVAL 1 HOUR.
type Column struct{ e plan.Expr }

// Col refers to the column called name. As in Spark's col(), a dotted name
// reaches into structs: Col("window.start") is field start of column
// window (GetField). A column whose name holds a dot is backquoted:
// Col("`a.b`"); a backquote inside backquotes is doubled.
func Col(name string) Column {
	parts, err := plan.ParseColumnName(name)
	if err != nil {
		return Column{plan.Invalid{Text: name, Err: err}}
	}
	var e plan.Expr = plan.ColumnRef{Name: parts[0]}
	for _, f := range parts[1:] {
		e = plan.GetField{E: e, Name: f}
	}
	return Column{e}
}

// GetField is field name of the struct column c (Spark's getField): the
// name is taken as is, dots included.
func (c Column) GetField(name string) Column { return Column{plan.GetField{E: c.e, Name: name}} }

// Lit is a literal value.
func Lit(v any) Column { return Column{plan.Literal{Value: v}} }

// Expr parses Spark SQL expression text into a Column, as Spark's expr:
// Expr("price * 0.908 AS euros"), Expr("window(ts, '10 seconds')"),
// Expr("count(*)"). The grammar and what it maps onto are package sql's
// (sql.ParseExpr). Text that does not parse gives a Column that makes the
// stream using it invalid: the error, with line, column and a caret, is
// the stream's analysis error (Stream.Err, and Start's).
func Expr(text string) Column {
	e, err := sql.ParseExpr(text)
	if err != nil {
		return Column{plan.Invalid{Text: text, Err: err}}
	}
	return Column{e}
}

// Expr returns the logical expression (for tools and the SQL layer).
func (c Column) Expr() plan.Expr { return c.e }

func (c Column) String() string { return c.e.String() }

func toExpr(v any) plan.Expr {
	switch v := v.(type) {
	case Column:
		return v.e
	case plan.Expr:
		return v
	}
	return plan.Literal{Value: v}
}

func (c Column) bin(op plan.BinaryOp, other any) Column {
	return Column{plan.Binary{Op: op, L: c.e, R: toExpr(other)}}
}

// Plus is c + other.
func (c Column) Plus(other any) Column { return c.bin(plan.OpAdd, other) }

// Minus is c - other.
func (c Column) Minus(other any) Column { return c.bin(plan.OpSub, other) }

// Times is c * other.
func (c Column) Times(other any) Column { return c.bin(plan.OpMul, other) }

// Div is c / other; it always yields a double, as Spark's `/`. Division by
// zero yields null.
func (c Column) Div(other any) Column { return c.bin(plan.OpDiv, other) }

// Mod is c % other; modulo zero yields null.
func (c Column) Mod(other any) Column { return c.bin(plan.OpMod, other) }

// Neg is -c.
func (c Column) Neg() Column { return Column{plan.Neg{E: c.e}} }

// Eq is c = other (null if either side is null).
func (c Column) Eq(other any) Column { return c.bin(plan.OpEq, other) }

// Ne is c != other.
func (c Column) Ne(other any) Column { return c.bin(plan.OpNe, other) }

// Lt is c < other.
func (c Column) Lt(other any) Column { return c.bin(plan.OpLt, other) }

// Le is c <= other.
func (c Column) Le(other any) Column { return c.bin(plan.OpLe, other) }

// Gt is c > other.
func (c Column) Gt(other any) Column { return c.bin(plan.OpGt, other) }

// Ge is c >= other.
func (c Column) Ge(other any) Column { return c.bin(plan.OpGe, other) }

// Between is lo <= c AND c <= hi.
func (c Column) Between(lo, hi any) Column { return c.Ge(lo).And(c.Le(hi)) }

// And is c AND other, in three-valued logic.
func (c Column) And(other any) Column { return c.bin(plan.OpAnd, other) }

// Or is c OR other, in three-valued logic.
func (c Column) Or(other any) Column { return c.bin(plan.OpOr, other) }

// Not is NOT c.
func (c Column) Not() Column { return Column{plan.Not{E: c.e}} }

// IsNull is true where c is null.
func (c Column) IsNull() Column { return Column{plan.IsNull{E: c.e}} }

// IsNotNull is true where c is not null.
func (c Column) IsNotNull() Column { return Column{plan.IsNull{E: c.e, Negated: true}} }

// Cast converts c to type t (Int32, Int64, Float64, String, Boolean,
// Timestamp). A string that does not parse becomes null, as in Spark.
func (c Column) Cast(t arrow.DataType) Column { return Column{plan.Cast{E: c.e, To: t}} }

// As names the column.
func (c Column) As(name string) Column { return Column{plan.Alias{E: plan.Unalias(c.e), Name: name}} }

// Like is c LIKE pattern, Spark's like: % matches any sequence, _ any one
// character, and a backslash escapes them (`\%` is a literal %); the whole string must
// match. Null where c is null; an invalid pattern (a backslash before another
// character, or at the end) is an analysis error.
func (c Column) Like(pattern string) Column {
	return Column{plan.Like{E: c.e, Pattern: pattern, Escape: '\\', Kind: plan.MatchLike}}
}

// ILike is Like ignoring case (Spark's ilike).
func (c Column) ILike(pattern string) Column {
	return Column{plan.Like{E: c.e, Pattern: pattern, Escape: '\\', Kind: plan.MatchILike}}
}

// RLike is true where the regular expression pattern matches somewhere in
// c (Spark's rlike). The syntax is Go's RE2, Spark's is Java's: RE2 has no
// backreferences, lookaround or possessive quantifiers; an invalid pattern
// is an analysis error.
func (c Column) RLike(pattern string) Column {
	return Column{plan.Like{E: c.e, Pattern: pattern, Kind: plan.MatchRLike}}
}

// When adds a branch to a column made by When: value where cond is true
// and no earlier branch was. On any other column, or after Otherwise, the
// column is invalid, as Spark's when() raises.
func (c Column) When(cond Column, value any) Column {
	return c.extendCase("When", plan.Case{Cond: cond.e, Then: toExpr(value)})
}

// Otherwise sets the value of the rows no branch of a When column takes
// (Spark's otherwise); without it they are null.
func (c Column) Otherwise(value any) Column { return c.extendCase("Otherwise", toExpr(value)) }

// extendCase sets the ELSE at the end of c's CASE chain to tail.
func (c Column) extendCase(method string, tail plan.Expr) Column {
	var set func(e plan.Expr) (plan.Expr, error)
	set = func(e plan.Expr) (plan.Expr, error) {
		k, ok := e.(plan.Case)
		if !ok {
			return nil, fmt.Errorf("%s can only be applied to a column made by When", method)
		}
		switch k.Else.(type) {
		case nil:
			k.Else = tail
			return k, nil
		case plan.Case:
			rest, err := set(k.Else)
			k.Else = rest
			return k, err
		}
		return nil, fmt.Errorf("%s cannot be applied once Otherwise has been", method)
	}
	if _, ok := c.e.(plan.Invalid); ok {
		return c
	}
	out, err := set(plan.Unalias(c.e))
	if err != nil {
		return Column{plan.Invalid{Text: c.e.String() + "." + method + "(…)", Err: err}}
	}
	return Column{out}
}

// And is the conjunction of its arguments.
func And(cs ...Column) Column {
	out := cs[0]
	for _, c := range cs[1:] {
		out = out.And(c)
	}
	return out
}

// Or is the disjunction of its arguments.
func Or(cs ...Column) Column {
	out := cs[0]
	for _, c := range cs[1:] {
		out = out.Or(c)
	}
	return out
}

// Not is NOT c.
func Not(c Column) Column { return c.Not() }

// Types for Cast, named as Spark names them.
var (
	Int32     arrow.DataType = arrow.PrimitiveTypes.Int32
	Int64     arrow.DataType = arrow.PrimitiveTypes.Int64
	Float64   arrow.DataType = arrow.PrimitiveTypes.Float64
	String    arrow.DataType = arrow.BinaryTypes.String
	Boolean   arrow.DataType = arrow.FixedWidthTypes.Boolean
	Timestamp arrow.DataType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
)
