package kernels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var arithTypes = []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64}

// oracleArith computes one row: value and validity, Spark non-ANSI.
func oracleArith(op ArithOp, x, y any) (any, bool) {
	xf, xIsF := x.(float64)
	yf, yIsF := y.(float64)
	if op == Div || xIsF || yIsF {
		if !xIsF {
			xf = float64(x.(int64))
		}
		if !yIsF {
			yf = float64(y.(int64))
		}
		switch op {
		case Add:
			return xf + yf, true
		case Sub:
			return xf - yf, true
		case Mul:
			return xf * yf, true
		case Div:
			if yf == 0 {
				return nil, false
			}
			return xf / yf, true
		default:
			if yf == 0 {
				return nil, false
			}
			return math.Mod(xf, yf), true
		}
	}
	xi, yi := x.(int64), y.(int64)
	switch op {
	case Add:
		return xi + yi, true
	case Sub:
		return xi - yi, true
	case Mul:
		return xi * yi, true
	default:
		if yi == 0 {
			return nil, false
		}
		if yi == -1 {
			return int64(0), true
		}
		return xi % yi, true
	}
}

func checkArithResult(t *testing.T, what string, got arrow.Array, want func(r int) (any, bool)) {
	t.Helper()
	for r := 0; r < got.Len(); r++ {
		w, ok := want(r)
		if !ok {
			if got.IsValid(r) {
				t.Fatalf("%s row %d: got %v, want null", what, r, oracleValue(got, r))
			}
			continue
		}
		if got.IsNull(r) {
			t.Fatalf("%s row %d: got null, want %v", what, r, w)
		}
		g := oracleValue(got, r)
		if gf, isF := g.(float64); isF {
			wf, _ := w.(float64)
			if !(gf == wf || (math.IsNaN(gf) && math.IsNaN(wf))) {
				t.Fatalf("%s row %d: got %v, want %v", what, r, gf, wf)
			}
			continue
		}
		if g != w {
			t.Fatalf("%s row %d: got %v (%T), want %v (%T)", what, r, g, g, w, w)
		}
	}
	if n := countNulls(got); n != got.NullN() {
		t.Fatalf("%s: NullN %d, counted %d", what, got.NullN(), n)
	}
}

func countNulls(a arrow.Array) int {
	n := 0
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			n++
		}
	}
	return n
}

func TestArith(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.withSel {
			return // Arith ignores selections
		}
		for _, at := range arithTypes {
			for _, bt := range arithTypes {
				a := genArray(mem, rng, at, c.n, c.nullProb, c.sliced)
				b := genArray(mem, rng, bt, c.n, c.nullProb/2, !c.sliced)
				for op := Add; op <= Mod; op++ {
					got, err := Arith(mem, op, a, b)
					if err != nil {
						t.Fatal(err)
					}
					what := at.String() + op.String() + bt.String()
					checkArithResult(t, what, got, func(r int) (any, bool) {
						if a.IsNull(r) || b.IsNull(r) {
							return nil, false
						}
						return oracleArith(op, oracleValue(a, r), oracleValue(b, r))
					})
					got.Release()
				}
				a.Release()
				b.Release()
			}
		}
	})
}

func TestArithScalar(t *testing.T) {
	lits := []any{int64(0), int64(3), int64(-1), 2.5, 0.0, int32(7)}
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.withSel {
			return
		}
		for _, at := range arithTypes {
			a := genArray(mem, rng, at, c.n, c.nullProb, c.sliced)
			for _, lit := range lits {
				for _, left := range []bool{false, true} {
					for op := Add; op <= Mod; op++ {
						got, err := ArithScalar(mem, op, a, lit, left)
						if err != nil {
							t.Fatal(err)
						}
						l := normLit(lit)
						checkArithResult(t, at.String()+op.String(), got, func(r int) (any, bool) {
							if a.IsNull(r) {
								return nil, false
							}
							if left {
								return oracleArith(op, l, oracleValue(a, r))
							}
							return oracleArith(op, oracleValue(a, r), l)
						})
						got.Release()
					}
				}
			}
			neg, err := Negate(mem, a)
			if err != nil {
				t.Fatal(err)
			}
			if !arrow.TypeEqual(neg.DataType(), at) {
				t.Fatalf("negate type %s", neg.DataType())
			}
			checkArithResult(t, "negate", neg, func(r int) (any, bool) {
				if a.IsNull(r) {
					return nil, false
				}
				switch v := oracleValue(a, r).(type) {
				case int64:
					if at.ID() == arrow.INT32 {
						return int64(-int32(v)), true
					}
					return -v, true
				default:
					return -v.(float64), true
				}
			})
			neg.Release()
			a.Release()
		}
	})
}

func TestArithErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	b.Append("x")
	s := b.NewArray()
	b.Release()
	defer s.Release()
	if _, err := Arith(mem, Add, s, s); err == nil {
		t.Error("string + string: want error")
	}
	if _, err := ArithScalar(mem, Add, s, int64(1), false); err == nil {
		t.Error("string + 1: want error")
	}
	if _, err := Negate(mem, s); err == nil {
		t.Error("-string: want error")
	}
}

// Overflowed finds exactly the rows whose int64 result wrapped, against
// math/big as the oracle, for arrays and scalars on either side.
func TestOverflowed(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []int64{0, 1, -1, 2, math.MaxInt64, math.MinInt64, math.MaxInt64 / 2, math.MinInt64 / 2, 3037000500, -3037000500}
	xb, yb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer xb.Release()
	defer yb.Release()
	for _, a := range vals {
		for _, b := range vals {
			xb.Append(a)
			yb.Append(b)
		}
	}
	x, y := xb.NewInt64Array(), yb.NewInt64Array()
	defer x.Release()
	defer y.Release()
	exact := func(op ArithOp, a, b int64) *big.Int {
		A, B := big.NewInt(a), big.NewInt(b)
		switch op {
		case Add:
			return A.Add(A, B)
		case Sub:
			return A.Sub(A, B)
		}
		return A.Mul(A, B)
	}
	fits := func(v *big.Int) bool { return v.IsInt64() }
	for _, op := range []ArithOp{Add, Sub, Mul} {
		res, err := Arith(mem, op, x, y)
		if err != nil {
			t.Fatal(err)
		}
		want := -1
		for i := 0; i < x.Len(); i++ {
			if !fits(exact(op, x.Value(i), y.Value(i))) {
				want = i
				break
			}
		}
		if got := Overflowed(op, res, x, y, nil, false); got != want {
			t.Errorf("%s: first overflow at %d, want %d", op, got, want)
		}
		res.Release()
		for _, lit := range vals {
			for _, litLeft := range []bool{false, true} {
				res, err := ArithScalar(mem, op, x, lit, litLeft)
				if err != nil {
					t.Fatal(err)
				}
				want := -1
				for i := 0; i < x.Len(); i++ {
					a, b := x.Value(i), lit
					if litLeft {
						a, b = b, a
					}
					if !fits(exact(op, a, b)) {
						want = i
						break
					}
				}
				if got := Overflowed(op, res, x, nil, lit, litLeft); got != want {
					t.Errorf("%s lit %d left=%v: first overflow at %d, want %d", op, lit, litLeft, got, want)
				}
				res.Release()
			}
		}
	}
}
