package kernels

//go:generate go run gen_cmp.go

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// CmpOp is a comparison operator.
type CmpOp int

// The comparison operators.
const (
	Eq CmpOp = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

// String returns the SQL spelling of o ("=", "!=", "<", "<=", ">", ">=").
func (o CmpOp) String() string {
	switch o {
	case Eq:
		return "="
	case Ne:
		return "!="
	case Lt:
		return "<"
	case Le:
		return "<="
	case Gt:
		return ">"
	case Ge:
		return ">="
	}
	return fmt.Sprintf("CmpOp(%d)", int(o))
}

// Negate returns the operator of NOT (a o b): NOT (a<b) is a>=b. Under
// three-valued logic null rows stay unselected by both.
func (o CmpOp) Negate() CmpOp {
	switch o {
	case Eq:
		return Ne
	case Ne:
		return Eq
	case Lt:
		return Ge
	case Le:
		return Gt
	case Gt:
		return Le
	case Ge:
		return Lt
	}
	return o
}

// Flip returns the operator with swapped operands: a<b is b>a.
func (o CmpOp) Flip() CmpOp {
	switch o {
	case Lt:
		return Gt
	case Le:
		return Ge
	case Gt:
		return Lt
	case Ge:
		return Le
	}
	return o
}

func (o CmpOp) valid() bool { return o >= Eq && o <= Ge }

// holds reports whether "x o y" is true for the three-way comparison c of x
// and y (-1, 0, 1).
func (o CmpOp) holds(c int) bool {
	switch o {
	case Eq:
		return c == 0
	case Ne:
		return c != 0
	case Lt:
		return c < 0
	case Le:
		return c <= 0
	case Gt:
		return c > 0
	default:
		return c >= 0
	}
}

// CompareScalar returns the rows of sel (every row when sel is nil) where
// `col op lit` is true; null rows are never selected. The result is written
// to out[:0] (out may be sel itself).
//
// Column types: int32, int64, float64, timestamp (lit in the column's unit),
// string, binary, bool, date32 (lit an arrow.Date32). lit is an int, int32, int64, float64, string, []byte
// or bool. A numeric lit is converted to the column's type; an integer
// column compared with a float literal compares as float64 (Spark's
// promotion), and an int32 column compared with an int64 literal outside the
// int32 range compares exactly.
func CompareScalar(op CmpOp, col arrow.Array, lit any, sel []int32, out []int32) ([]int32, error) {
	if !op.valid() {
		return growInt32(out, 0), fmt.Errorf("kernels: compare: invalid operator %d", int(op))
	}
	n := col.Len()
	out = growInt32(out, liveCount(sel, n))
	res, err := compareScalar(op, col, lit, sel, out)
	if err != nil {
		return growInt32(out, 0), fmt.Errorf("kernels: compare %s %s %T: %w", col.DataType(), op, lit, err)
	}
	if bm, off := validity(col); bm != nil {
		res = filterValid(res, bm, off)
	}
	return res, nil
}

func compareScalar(op CmpOp, col arrow.Array, lit any, sel, out []int32) ([]int32, error) {
	switch c := col.(type) {
	case *array.Int64, *array.Timestamp:
		vals, _ := int64View(c)
		if f, isFloat := lit.(float64); isFloat {
			return cmpKey(op, vals, fkey(f), sel, out), nil
		}
		v, ok := litInt64(lit)
		if !ok {
			return nil, errLiteral
		}
		return cmpScalar(op, vals, v, sel, out), nil
	case *array.Int32:
		vals := c.Int32Values()
		if f, isFloat := lit.(float64); isFloat {
			return cmpKey(op, vals, fkey(f), sel, out), nil
		}
		v, ok := litInt64(lit)
		if !ok {
			return nil, errLiteral
		}
		if v > math.MaxInt32 || v < math.MinInt32 {
			// Every int32 compares like the bound it cannot reach.
			c := 1
			if v > math.MaxInt32 {
				c = -1
			}
			if op.holds(c) {
				return selectAll(sel, col.Len(), out), nil
			}
			return out[:0], nil
		}
		return cmpScalar(op, vals, int32(v), sel, out), nil
	case *array.Float64:
		f, ok := litFloat64(lit)
		if !ok {
			return nil, errLiteral
		}
		return cmpKey(op, c.Float64Values(), fkey(f), sel, out), nil
	case *array.String, *array.Binary:
		var s string
		switch l := lit.(type) {
		case string:
			s = l
		case []byte:
			s = string(l)
		default:
			return nil, errLiteral
		}
		vb, _ := varBinaryView(c)
		return cmpStr(op, vb.offs, vb.data, s, sel, out), nil
	case *array.Boolean:
		l, ok := lit.(bool)
		if !ok {
			return nil, errLiteral
		}
		return compareBoolScalar(op, c, l, sel, out), nil
	case *array.Date32:
		l, ok := lit.(arrow.Date32)
		if !ok {
			return nil, errLiteral
		}
		return cmpScalar(op, dateView(c), int32(l), sel, out), nil
	}
	return nil, errType
}

// dateView is the days of a date array as int32.
func dateView(c *array.Date32) []int32 {
	v := c.Date32Values()
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(v))), len(v))
}

var (
	errLiteral = fmt.Errorf("unsupported literal for this column type")
	errType    = fmt.Errorf("unsupported column type")
)

func litInt64(lit any) (int64, bool) {
	switch l := lit.(type) {
	case int64:
		return l, true
	case int32:
		return int64(l), true
	case int:
		return int64(l), true
	case arrow.Timestamp:
		return int64(l), true
	}
	return 0, false
}

func litFloat64(lit any) (float64, bool) {
	switch l := lit.(type) {
	case float64:
		return l, true
	case float32:
		return float64(l), true
	}
	if v, ok := litInt64(lit); ok {
		return float64(v), true
	}
	return 0, false
}

// compareBoolScalar selects rows whose bool value b satisfies `b op lit`
// with false < true; it reduces to selecting true rows, false rows, all rows
// or none.
func compareBoolScalar(op CmpOp, c *array.Boolean, lit bool, sel, out []int32) []int32 {
	l := b2i(lit)
	f := op.holds(0 - l) // does false satisfy it?
	t := op.holds(1 - l) // does true?
	switch {
	case f && t:
		return selectAll(sel, c.Len(), out)
	case t:
		return selectBit(c, sel, out, 1)
	case f:
		return selectBit(c, sel, out, 0)
	}
	return out[:0]
}

// CompareColumns returns the rows of sel where `a op b` is true; rows where
// either side is null are never selected. a and b have the same length and
// the same type, except that int32, int64 and float64 mix (promoted to int64
// or float64) and a timestamp compares with an int64 by raw value. Dates
// compare with dates only (plan casts the other side as Spark does).
func CompareColumns(op CmpOp, a, b arrow.Array, sel []int32, out []int32) ([]int32, error) {
	if !op.valid() {
		return growInt32(out, 0), fmt.Errorf("kernels: compare: invalid operator %d", int(op))
	}
	if a.Len() != b.Len() {
		return growInt32(out, 0), fmt.Errorf("kernels: compare %s %s %s: lengths %d and %d differ", a.DataType(), op, b.DataType(), a.Len(), b.Len())
	}
	out = growInt32(out, liveCount(sel, a.Len()))
	res, err := compareColumns(op, a, b, sel, out)
	if err != nil {
		return growInt32(out, 0), fmt.Errorf("kernels: compare %s %s %s: %w", a.DataType(), op, b.DataType(), err)
	}
	if bm, off := validity(a); bm != nil {
		res = filterValid(res, bm, off)
	}
	if bm, off := validity(b); bm != nil {
		res = filterValid(res, bm, off)
	}
	return res, nil
}

func compareColumns(op CmpOp, a, b arrow.Array, sel, out []int32) ([]int32, error) {
	ak, bk := numKind(a), numKind(b)
	switch {
	case ak == kindInt32 && bk == kindInt32:
		return cmpCols(op, a.(*array.Int32).Int32Values(), b.(*array.Int32).Int32Values(), sel, out), nil
	case ak == kindFloat64 && bk == kindFloat64:
		return cmpColsKey(op, a.(*array.Float64).Float64Values(), b.(*array.Float64).Float64Values(), sel, out), nil
	case ak == kindFloat64 || bk == kindFloat64:
		if ak == kindNone || bk == kindNone {
			return nil, errType
		}
		return cmpColsKey(op, toFloat64s(a), toFloat64s(b), sel, out), nil
	case ak != kindNone && bk != kindNone:
		return cmpCols(op, toInt64s(a), toInt64s(b), sel, out), nil
	}
	switch ac := a.(type) {
	case *array.Date32:
		bc, ok := b.(*array.Date32)
		if !ok {
			return nil, errType
		}
		return cmpCols(op, dateView(ac), dateView(bc), sel, out), nil
	case *array.String, *array.Binary:
		if !arrow.TypeEqual(a.DataType(), b.DataType()) {
			return nil, errType
		}
		av, _ := varBinaryView(ac)
		bv, _ := varBinaryView(b)
		return cmpStrCols(op, av.offs, av.data, bv.offs, bv.data, sel, out), nil
	case *array.Boolean:
		bc, ok := b.(*array.Boolean)
		if !ok {
			return nil, errType
		}
		return compareBoolColumns(op, ac, bc, sel, out), nil
	}
	return nil, errType
}

type numericKind int

const (
	kindNone numericKind = iota
	kindInt32
	kindInt64 // int64 or timestamp
	kindFloat64
)

func numKind(a arrow.Array) numericKind {
	switch a.(type) {
	case *array.Int32:
		return kindInt32
	case *array.Int64, *array.Timestamp:
		return kindInt64
	case *array.Float64:
		return kindFloat64
	}
	return kindNone
}

// toInt64s returns the values of an int32, int64 or timestamp array as
// int64, widening into a new slice when needed (mixed-type comparisons only).
func toInt64s(a arrow.Array) []int64 {
	if v, ok := int64View(a); ok {
		return v
	}
	src := a.(*array.Int32).Int32Values()
	dst := make([]int64, len(src))
	for i, v := range src {
		dst[i] = int64(v)
	}
	return dst
}

// toFloat64s returns the values of a numeric array as float64.
func toFloat64s(a arrow.Array) []float64 {
	if c, ok := a.(*array.Float64); ok {
		return c.Float64Values()
	}
	if c, ok := a.(*array.Int32); ok {
		return convertSlice[int32, float64](c.Int32Values())
	}
	v, _ := int64View(a)
	return convertSlice[int64, float64](v)
}

func convertSlice[S, D int32 | int64 | float64](src []S) []D {
	dst := make([]D, len(src))
	for i, v := range src {
		dst[i] = D(v)
	}
	return dst
}

// compareBoolColumns compares two boolean columns with false < true.
func compareBoolColumns(op CmpOp, a, b *array.Boolean, sel, out []int32) []int32 {
	abm, aoff := boolBits(a)
	bbm, boff := boolBits(b)
	// table[x<<1|y] is the result for x op y.
	var table [4]int
	for x := 0; x < 2; x++ {
		for y := 0; y < 2; y++ {
			table[x<<1|y] = b2i(op.holds(x - y))
		}
	}
	k := 0
	if sel == nil {
		out = out[:a.Len()]
		for i := range out {
			out[k] = int32(i)
			k += table[bitAt(abm, aoff+i)<<1|bitAt(bbm, boff+i)]
		}
		return out[:k]
	}
	out = out[:len(sel)]
	for _, r := range sel {
		out[k] = r
		k += table[bitAt(abm, aoff+int(r))<<1|bitAt(bbm, boff+int(r))]
	}
	return out[:k]
}
