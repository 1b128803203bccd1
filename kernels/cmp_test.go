package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var allOps = []CmpOp{Eq, Ne, Lt, Le, Gt, Ge}

// oracleValue reads row r of col as int64, float64, string or bool.
func oracleValue(col arrow.Array, r int) any {
	switch c := col.(type) {
	case *array.Int32:
		return int64(c.Value(r))
	case *array.Int64:
		return c.Value(r)
	case *array.Timestamp:
		return int64(c.Value(r))
	case *array.Float64:
		return c.Value(r)
	case *array.String:
		return c.Value(r)
	case *array.Binary:
		return string(c.Value(r))
	case *array.Boolean:
		return c.Value(r)
	}
	panic("oracleValue")
}

// oracleCmp compares two oracle values with Spark's promotion rules.
func oracleCmp(a, b any) int {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmp3(x, y)
		case float64:
			return sparkFloatCmp(float64(x), y)
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return sparkFloatCmp(x, float64(y))
		case float64:
			return sparkFloatCmp(x, y)
		}
	case string:
		return cmp3(x, b.(string))
	case bool:
		return b2i(x) - b2i(b.(bool))
	}
	panic("oracleCmp")
}

func oracleCompareScalar(op CmpOp, col arrow.Array, lit any, sel []int32) []int32 {
	want := []int32{}
	for _, r := range live(sel, col.Len()) {
		if col.IsNull(int(r)) {
			continue
		}
		if op.holds(oracleCmp(oracleValue(col, int(r)), lit)) {
			want = append(want, r)
		}
	}
	return want
}

func litsFor(rng *rand.Rand, col arrow.Array) []any {
	var lits []any
	if col.Len() > 0 && col.IsValid(0) {
		v := oracleValue(col, rng.IntN(col.Len()))
		if col.IsValid(0) {
			lits = append(lits, v)
		}
	}
	switch col.(type) {
	case *array.Int32:
		lits = append(lits, int64(3), int64(math.MaxInt32)+5, int64(math.MinInt32)-5, 2.5, math.NaN(), int32(-1))
	case *array.Int64, *array.Timestamp:
		lits = append(lits, int64(0), int64(-7), 1.5, math.NaN(), math.Inf(-1))
	case *array.Float64:
		lits = append(lits, 0.0, math.NaN(), math.Inf(1), int64(2), -1.5)
	case *array.String, *array.Binary:
		lits = append(lits, "a", "", "abc", "zz")
	case *array.Boolean:
		lits = append(lits, true, false)
	}
	return lits
}

func normLit(lit any) any {
	switch l := lit.(type) {
	case int32:
		return int64(l)
	}
	return lit
}

var cmpTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
	arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Boolean, tsType,
}

func TestCompareScalar(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		var out []int32
		for _, dt := range cmpTypes {
			col := genArray(mem, rng, dt, c.n, c.nullProb, c.sliced)
			sel := randSel(rng, c.n, c.withSel)
			for _, lit := range litsFor(rng, col) {
				for _, op := range allOps {
					var err error
					out, err = CompareScalar(op, col, lit, sel, out)
					if err != nil {
						t.Fatal(err)
					}
					want := oracleCompareScalar(op, col, normLit(lit), sel)
					sameInt32s(t, dt.String()+" "+op.String(), out, want)
				}
			}
			// In-place refinement: out aliases sel.
			if lits := litsFor(rng, col); sel != nil {
				lit := lits[len(lits)-1]
				want := oracleCompareScalar(Le, col, normLit(lit), sel)
				buf := append([]int32{}, sel...)
				got, err := CompareScalar(Le, col, lit, buf, buf)
				if err != nil {
					t.Fatal(err)
				}
				sameInt32s(t, "in place "+dt.String(), got, want)
			}
			col.Release()
		}
	})
}

func TestCompareColumns(t *testing.T) {
	pairs := [][2]arrow.DataType{
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32},
		{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64},
		{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64},
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64},
		{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64},
		{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int32},
		{tsType, tsType},
		{arrow.BinaryTypes.String, arrow.BinaryTypes.String},
		{arrow.BinaryTypes.Binary, arrow.BinaryTypes.Binary},
		{arrow.FixedWidthTypes.Boolean, arrow.FixedWidthTypes.Boolean},
	}
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		var out []int32
		for _, p := range pairs {
			a := genArray(mem, rng, p[0], c.n, c.nullProb, c.sliced)
			b := genArray(mem, rng, p[1], c.n, c.nullProb, !c.sliced)
			sel := randSel(rng, c.n, c.withSel)
			for _, op := range allOps {
				var err error
				out, err = CompareColumns(op, a, b, sel, out)
				if err != nil {
					t.Fatal(err)
				}
				want := []int32{}
				for _, r := range live(sel, c.n) {
					if a.IsNull(int(r)) || b.IsNull(int(r)) {
						continue
					}
					if op.holds(oracleCmp(oracleValue(a, int(r)), oracleValue(b, int(r)))) {
						want = append(want, r)
					}
				}
				sameInt32s(t, p[0].String()+op.String()+p[1].String(), out, want)
			}
			a.Release()
			b.Release()
		}
	})
}

func TestCmpOpAlgebra(t *testing.T) {
	for _, op := range allOps {
		for c := -1; c <= 1; c++ {
			if op.Negate().holds(c) == op.holds(c) {
				t.Errorf("%s.Negate() = %s is not the complement", op, op.Negate())
			}
			if op.Flip().holds(-c) != op.holds(c) {
				t.Errorf("%s.Flip() = %s does not swap operands", op, op.Flip())
			}
		}
	}
	if Ne.String() != "!=" || Ge.String() != ">=" {
		t.Errorf("String: %s %s", Ne, Ge)
	}
}

func TestCompareErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	col := genArray(mem, rng, arrow.PrimitiveTypes.Int64, 10, 0, false)
	defer col.Release()
	if _, err := CompareScalar(Eq, col, "x", nil, nil); err == nil {
		t.Error("int64 = string: want error")
	}
	s := genArray(mem, rng, arrow.BinaryTypes.String, 10, 0, false)
	defer s.Release()
	if _, err := CompareColumns(Eq, col, s, nil, nil); err == nil {
		t.Error("int64 = string column: want error")
	}
	if _, err := CompareScalar(CmpOp(42), col, int64(1), nil, nil); err == nil {
		t.Error("bad op: want error")
	}
}
