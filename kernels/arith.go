package kernels

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ArithOp is a binary arithmetic operator.
type ArithOp int

// The arithmetic operators.
const (
	Add ArithOp = iota
	Sub
	Mul
	Div // always yields float64 (Spark's `/`)
	Mod // int64 for integer operands, float64 otherwise (sign of the dividend)
)

// String returns the operator's symbol.
func (o ArithOp) String() string {
	switch o {
	case Add:
		return "+"
	case Sub:
		return "-"
	case Mul:
		return "*"
	case Div:
		return "/"
	case Mod:
		return "%"
	}
	return fmt.Sprintf("ArithOp(%d)", int(o))
}

// num is the set of column value types arithmetic reads.
type num interface{ ~int32 | ~int64 | ~float64 }

// numView is a typed view of a numeric array's values.
type numView struct {
	kind numericKind
	i32  []int32
	i64  []int64
	f64  []float64
}

func viewOf(a arrow.Array) numView {
	switch c := a.(type) {
	case *array.Int32:
		return numView{kind: kindInt32, i32: c.Int32Values()}
	case *array.Int64:
		return numView{kind: kindInt64, i64: c.Int64Values()}
	case *array.Float64:
		return numView{kind: kindFloat64, f64: c.Float64Values()}
	}
	return numView{}
}

// Arith computes a op b elementwise over all rows. Operands are int32,
// int64 or float64; int32 is promoted to int64, and any float64 operand
// makes the result float64. Div always yields float64; Mod of integers
// yields int64. A zero divisor (Div, Mod) yields null, as in Spark without
// ANSI mode, and a null operand yields null. Integer overflow wraps.
func Arith(mem memory.Allocator, op ArithOp, a, b arrow.Array) (arrow.Array, error) {
	if a.Len() != b.Len() {
		return nil, fmt.Errorf("kernels: %s %s %s: lengths %d and %d differ", a.DataType(), op, b.DataType(), a.Len(), b.Len())
	}
	x, y := viewOf(a), viewOf(b)
	if x.kind == kindNone || y.kind == kindNone || op < Add || op > Mod {
		return nil, fmt.Errorf("kernels: %s %s %s: %w", a.DataType(), op, b.DataType(), errType)
	}
	n := a.Len()
	isFloat := op == Div || x.kind == kindFloat64 || y.kind == kindFloat64
	vals := newBuffer(mem, n*8)
	var zeros int
	if isFloat {
		zeros = arithViews(op, x, y, arrow.Float64Traits.CastFromBytes(vals.Bytes())[:n])
	} else {
		zeros = arithViews(op, x, y, arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n])
	}
	valid := andValidity(mem, n, a, b)
	if zeros > 0 {
		valid = ensureValidity(mem, valid, n)
		clearZeroDivisors(valid.Bytes(), y, vals.Bytes())
	}
	return finishNumeric(isFloat, n, valid, vals), nil
}

// ArithScalar computes a op lit (or lit op a when litLeft) elementwise.
// lit is an int, int32, int64, float32 or float64; the typing rules are
// those of Arith.
func ArithScalar(mem memory.Allocator, op ArithOp, a arrow.Array, lit any, litLeft bool) (arrow.Array, error) {
	x := viewOf(a)
	if x.kind == kindNone || op < Add || op > Mod {
		return nil, fmt.Errorf("kernels: %s %s %T: %w", a.DataType(), op, lit, errType)
	}
	var litF float64
	var litI int64
	litIsFloat := false
	switch l := lit.(type) {
	case float64:
		litF, litIsFloat = l, true
	case float32:
		litF, litIsFloat = float64(l), true
	default:
		v, ok := litInt64(lit)
		if !ok {
			return nil, fmt.Errorf("kernels: %s %s %T: %w", a.DataType(), op, lit, errLiteral)
		}
		litI, litF = v, float64(v)
	}
	n := a.Len()
	isFloat := op == Div || x.kind == kindFloat64 || litIsFloat
	vals := newBuffer(mem, n*8)
	var zeros int
	if isFloat {
		zeros = arithScalarView(op, x, litF, litLeft, arrow.Float64Traits.CastFromBytes(vals.Bytes())[:n])
	} else {
		zeros = arithScalarView(op, x, litI, litLeft, arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n])
	}
	valid := andValidity(mem, n, a)
	if zeros > 0 {
		valid = ensureValidity(mem, valid, n)
		if litLeft {
			clearZeroDivisors(valid.Bytes(), x, vals.Bytes())
		} else { // the literal divisor is zero: every row is null
			bitutil.SetBitsTo(valid.Bytes(), 0, int64(n), false)
			clear(vals.Bytes())
		}
	}
	return finishNumeric(isFloat, n, valid, vals), nil
}

// Negate returns -a for an int32, int64 or float64 array (same type).
func Negate(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	n := a.Len()
	var vals *memory.Buffer
	switch c := a.(type) {
	case *array.Int32:
		vals = newBuffer(mem, n*4)
		negLoop(c.Int32Values(), arrow.Int32Traits.CastFromBytes(vals.Bytes())[:n])
	case *array.Int64:
		vals = newBuffer(mem, n*8)
		negLoop(c.Int64Values(), arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n])
	case *array.Float64:
		vals = newBuffer(mem, n*8)
		negLoop(c.Float64Values(), arrow.Float64Traits.CastFromBytes(vals.Bytes())[:n])
	default:
		return nil, fmt.Errorf("kernels: -%s: %w", a.DataType(), errType)
	}
	valid := andValidity(mem, n, a)
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	return makeArray(a.DataType(), n, []*memory.Buffer{valid, vals}, nulls), nil
}

func negLoop[T num](src, dst []T) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = -v
	}
}

// finishNumeric wraps computed values and validity into an int64 or
// float64 array.
func finishNumeric(isFloat bool, n int, valid, vals *memory.Buffer) arrow.Array {
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	dt := arrow.DataType(arrow.PrimitiveTypes.Int64)
	if isFloat {
		dt = arrow.PrimitiveTypes.Float64
	}
	return makeArray(dt, n, []*memory.Buffer{valid, vals}, nulls)
}

// andValidity returns a new validity bitmap (bit offset 0) that is the AND
// of the inputs' validity, or nil when no input has nulls.
func andValidity(mem memory.Allocator, n int, arrs ...arrow.Array) *memory.Buffer {
	var out *memory.Buffer
	for _, a := range arrs {
		bm, off := validity(a)
		if bm == nil {
			continue
		}
		if out == nil {
			out = newBuffer(mem, bitmapBytes(n))
			bitutil.CopyBitmap(bm, off, n, out.Bytes(), 0)
			continue
		}
		bitutil.BitmapAnd(out.Bytes(), bm, 0, int64(off), out.Bytes(), 0, int64(n))
	}
	return out
}

// ensureValidity returns valid, or an all-valid bitmap when it is nil.
func ensureValidity(mem memory.Allocator, valid *memory.Buffer, n int) *memory.Buffer {
	if valid != nil {
		return valid
	}
	valid = newBuffer(mem, bitmapBytes(n))
	bitutil.SetBitsTo(valid.Bytes(), 0, int64(n), true)
	return valid
}

// clearZeroDivisors marks null, and zeroes the 8-byte result of, every row
// whose divisor in d is zero.
func clearZeroDivisors(valid []byte, d numView, vals []byte) {
	out := arrow.Int64Traits.CastFromBytes(vals)
	switch d.kind {
	case kindInt32:
		clearZeros(valid, d.i32, out)
	case kindInt64:
		clearZeros(valid, d.i64, out)
	case kindFloat64:
		clearZeros(valid, d.f64, out)
	}
}

func clearZeros[T num](valid []byte, d []T, out []int64) {
	for i, v := range d {
		if v == 0 {
			bitutil.ClearBit(valid, i)
			out[i] = 0
		}
	}
}

// arithViews dispatches on the operand types; it returns the number of zero
// divisors seen by Div or Mod.
func arithViews[C int64 | float64](op ArithOp, x, y numView, out []C) int {
	switch x.kind {
	case kindInt32:
		return arithA(op, x.i32, y, out)
	case kindInt64:
		return arithA(op, x.i64, y, out)
	default:
		return arithA(op, x.f64, y, out)
	}
}

func arithA[A num, C int64 | float64](op ArithOp, a []A, y numView, out []C) int {
	switch y.kind {
	case kindInt32:
		return arithAB(op, a, y.i32, out)
	case kindInt64:
		return arithAB(op, a, y.i64, out)
	default:
		return arithAB(op, a, y.f64, out)
	}
}

// arithAB is the elementwise loop, specialised per operand and result type.
func arithAB[A, B num, C int64 | float64](op ArithOp, a []A, b []B, out []C) (zeros int) {
	b = b[:len(a)]
	out = out[:len(a)]
	switch op {
	case Add:
		for i := range a {
			out[i] = C(a[i]) + C(b[i])
		}
	case Sub:
		for i := range a {
			out[i] = C(a[i]) - C(b[i])
		}
	case Mul:
		for i := range a {
			out[i] = C(a[i]) * C(b[i])
		}
	case Div: // C is float64 (Arith guarantees it)
		for i := range a {
			d := C(b[i])
			zeros += b2i(d == 0)
			out[i] = C(a[i]) / d
		}
	case Mod:
		switch o := any(out).(type) {
		case []int64:
			for i := range a {
				d := int64(b[i])
				z := b2i(d == 0)
				zeros += z
				d |= int64(z) // a zero divisor becomes 1; the row is nulled later
				o[i] = int64(a[i]) % d
			}
		case []float64:
			for i := range a {
				d := float64(b[i])
				zeros += b2i(d == 0)
				o[i] = math.Mod(float64(a[i]), d)
			}
		}
	}
	return zeros
}

func arithScalarView[C int64 | float64](op ArithOp, x numView, lit C, litLeft bool, out []C) int {
	switch x.kind {
	case kindInt32:
		return arithScalar(op, x.i32, lit, litLeft, out)
	case kindInt64:
		return arithScalar(op, x.i64, lit, litLeft, out)
	default:
		return arithScalar(op, x.f64, lit, litLeft, out)
	}
}

// arithScalar is arithAB with one operand a literal. With a zero literal
// divisor it returns len(a) zeros and leaves out unspecified.
func arithScalar[A num, C int64 | float64](op ArithOp, a []A, lit C, litLeft bool, out []C) (zeros int) {
	out = out[:len(a)]
	switch {
	case op == Add:
		for i, v := range a {
			out[i] = C(v) + lit
		}
	case op == Mul:
		for i, v := range a {
			out[i] = C(v) * lit
		}
	case op == Sub && litLeft:
		for i, v := range a {
			out[i] = lit - C(v)
		}
	case op == Sub:
		for i, v := range a {
			out[i] = C(v) - lit
		}
	case op == Div && litLeft:
		for i, v := range a {
			d := C(v)
			zeros += b2i(d == 0)
			out[i] = lit / d
		}
	case op == Div:
		if lit == 0 {
			return len(a)
		}
		for i, v := range a {
			out[i] = C(v) / lit
		}
	case op == Mod:
		switch o := any(out).(type) {
		case []int64:
			o = o[:len(a)] // the type switch forgets out's length: restate it for the loops' bounds checks
			l := int64(lit)
			if litLeft {
				for i, v := range a {
					d := int64(v)
					z := b2i(d == 0)
					zeros += z
					d |= int64(z)
					o[i] = l % d
				}
			} else {
				if l == 0 {
					return len(a)
				}
				for i, v := range a {
					o[i] = int64(v) % l
				}
			}
		case []float64:
			o = o[:len(a)]
			l := float64(lit)
			if litLeft {
				for i, v := range a {
					d := float64(v)
					zeros += b2i(d == 0)
					o[i] = math.Mod(l, d)
				}
			} else {
				if l == 0 {
					return len(a)
				}
				for i, v := range a {
					o[i] = math.Mod(float64(v), l)
				}
			}
		}
	}
	return zeros
}
