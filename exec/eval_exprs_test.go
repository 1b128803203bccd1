package exec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/plan"
)

var exprStructType = arrow.StructOf(
	arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true},
)

// exprTestBatch is a batch of n rows, sliced, with nulls in every column:
// i32, i64, f, s, b, and st struct<x int64, y string> whose parent and
// children are null independently.
func exprTestBatch(mem memory.Allocator, rng *rand.Rand, n int) arrow.RecordBatch {
	fields := []arrow.Field{
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "st", Type: exprStructType, Nullable: true},
	}
	var cols []arrow.Array
	for _, f := range fields[:5] {
		cols = append(cols, testutil.GenColumn(mem, rng, f.Type, n, 9, 0.2, true))
	}
	sb := array.NewStructBuilder(mem, exprStructType)
	defer sb.Release()
	for i := 0; i < n+4; i++ {
		if rng.IntN(5) == 0 {
			sb.AppendNull()
			continue
		}
		sb.Append(true)
		if rng.IntN(5) == 0 {
			sb.FieldBuilder(0).AppendNull()
		} else {
			sb.FieldBuilder(0).(*array.Int64Builder).Append(int64(rng.IntN(9)))
		}
		if rng.IntN(5) == 0 {
			sb.FieldBuilder(1).AppendNull()
		} else {
			sb.FieldBuilder(1).(*array.StringBuilder).Append(fmt.Sprintf("y%d", rng.IntN(9)))
		}
	}
	whole := sb.NewArray()
	cols = append(cols, array.NewSlice(whole, 2, int64(n+2)))
	whole.Release()
	defer testutil.ReleaseAll(cols)
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
}

// rowOf returns the row's values by column name, as testutil.Value gives
// them (structs as []any).
func exprRow(rec arrow.RecordBatch, i int) map[string]any {
	m := map[string]any{}
	for c, f := range rec.Schema().Fields() {
		m[f.Name] = testutil.Value(rec.Column(c), i)
	}
	return m
}

// checkExpr evaluates e over random batches and compares every row with
// oracle, a naive row-at-a-time evaluation; for a boolean e it also checks
// pred over random selections (rows where the oracle is true).
func checkExpr(t *testing.T, e plan.Expr, oracle func(row map[string]any) any) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(13, uint64(len(e.String()))))
	for _, n := range []int{1, 7, 300} {
		rec := exprTestBatch(mem, rng, n)
		ev, err := compileExpr(e, rec.Schema())
		if err != nil {
			rec.Release()
			t.Fatalf("%s: %v", e, err)
		}
		got, err := ev.value(mem, rec)
		if err != nil {
			rec.Release()
			t.Fatalf("%s: %v", e, err)
		}
		if got.Len() != n {
			t.Fatalf("%s: %d rows, want %d", e, got.Len(), n)
		}
		var want []bool
		for i := 0; i < n; i++ {
			w := oracle(exprRow(rec, i))
			if g := testutil.Value(got, i); fmt.Sprintf("%T %v", g, g) != fmt.Sprintf("%T %v", w, w) {
				t.Fatalf("%s row %d %v: got %#v, want %#v", e, i, exprRow(rec, i), g, w)
			}
			want = append(want, w == true)
		}
		isBool := got.DataType().ID() == arrow.BOOL
		got.Release()
		if isBool {
			for _, use := range []bool{false, true} {
				sel := testutil.GenSel(rng, n, use)
				out, err := ev.pred(mem, rec, sel, nil)
				if err != nil {
					t.Fatalf("%s pred: %v", e, err)
				}
				wantSel := []int32{}
				for _, r := range testutil.LiveRows(sel, n) {
					if want[r] {
						wantSel = append(wantSel, r)
					}
				}
				if fmt.Sprint(out) != fmt.Sprint(wantSel) {
					t.Fatalf("%s pred over %v: got %v, want %v", e, sel, out, wantSel)
				}
			}
		}
		rec.Release()
	}
}

func field(row map[string]any, col string, i int) any {
	s, _ := row[col].([]any)
	if s == nil {
		return nil
	}
	return s[i]
}

func TestEvalGetField(t *testing.T) {
	st := plan.ColumnRef{Name: "st"}
	checkExpr(t, plan.GetField{E: st, Name: "x"}, func(r map[string]any) any { return field(r, "st", 0) })
	checkExpr(t, plan.GetField{E: st, Name: "y"}, func(r map[string]any) any { return field(r, "st", 1) })
	checkExpr(t, plan.Binary{Op: plan.OpGt, L: plan.GetField{E: st, Name: "x"}, R: plan.Literal{Value: int64(4)}},
		func(r map[string]any) any {
			x := field(r, "st", 0)
			if x == nil {
				return nil
			}
			return x.(int64) > 4
		})
	s := arrow.NewSchema([]arrow.Field{{Name: "st", Type: exprStructType}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, c := range []struct {
		e    plan.Expr
		want string
	}{
		{plan.GetField{E: st, Name: "z"}, "no field z in st; its fields are [x, y]"},
		{plan.GetField{E: plan.ColumnRef{Name: "i"}, Name: "z"}, "cannot access field z of i: it is"},
		{plan.GetField{E: plan.ColumnRef{Name: "nope"}, Name: "z"}, `column "nope" not found`},
	} {
		if _, err := compileExpr(c.e, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.e, err, c.want)
		}
	}
}

func TestEvalCase(t *testing.T) {
	col := func(n string) plan.Expr { return plan.ColumnRef{Name: n} }
	lit := func(v any) plan.Expr { return plan.Literal{Value: v} }
	gt := func(l, r plan.Expr) plan.Expr { return plan.Binary{Op: plan.OpGt, L: l, R: r} }
	add := func(l, r plan.Expr) plan.Expr { return plan.Binary{Op: plan.OpAdd, L: l, R: r} }
	// Three-valued conditions: null is not true, so the row falls through.
	i64gt := func(r map[string]any, v int64) bool { x, ok := r["i64"].(int64); return ok && x > v }
	cases := []struct {
		e      plan.Expr
		oracle func(map[string]any) any
	}{
		// Int and bigint branches widen to bigint; no ELSE gives null.
		{plan.Case{Cond: gt(col("i64"), lit(int64(0))), Then: col("i32"), Else: plan.Case{Cond: col("b"), Then: col("i64")}},
			func(r map[string]any) any {
				switch {
				case i64gt(r, 0):
					if r["i32"] == nil {
						return nil
					}
					return int64(r["i32"].(int32))
				case r["b"] == true:
					return r["i64"]
				}
				return nil
			}},
		// A double branch makes the result double; literals and computed
		// values mix; ELSE catches the rest.
		{plan.Case{Cond: col("b"), Then: col("f"), Else: plan.Case{Cond: gt(col("i32"), lit(int32(0))), Then: add(col("i32"), lit(int32(1))), Else: lit(int32(-7))}},
			func(r map[string]any) any {
				if r["b"] == true {
					return r["f"]
				}
				if x, ok := r["i32"].(int32); ok && x > 0 {
					return float64(x + 1)
				}
				return float64(-7)
			}},
		// Strings, a NULL branch, a NULL condition.
		{plan.Case{Cond: lit(nil), Then: lit("never"), Else: plan.Case{Cond: gt(col("i64"), lit(int64(100))), Then: lit(nil), Else: col("s")}},
			func(r map[string]any) any {
				if i64gt(r, 100) {
					return nil
				}
				return r["s"]
			}},
		// A boolean CASE, used as a predicate too.
		{plan.Case{Cond: plan.IsNull{E: col("b")}, Then: gt(col("f"), lit(1.0)), Else: col("b")},
			func(r map[string]any) any {
				if r["b"] == nil {
					if r["f"] == nil {
						return nil
					}
					f := r["f"].(float64)
					return math.IsNaN(f) || f > 1 // NaN is the largest double, as in Spark
				}
				return r["b"]
			}},
		// Struct fields in branches and conditions.
		{plan.Case{Cond: plan.IsNull{E: plan.GetField{E: col("st"), Name: "y"}, Negated: true}, Then: plan.GetField{E: col("st"), Name: "y"}, Else: col("s")},
			func(r map[string]any) any {
				if y := field(r, "st", 1); y != nil {
					return y
				}
				return r["s"]
			}},
	}
	for _, c := range cases {
		checkExpr(t, c.e, c.oracle)
	}
	s := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	for _, c := range []struct {
		e    plan.Expr
		want string
	}{
		// A number and a string meet at string (Spark's CASE coercion); a
		// boolean and a string do not.
		{plan.Case{Cond: gt(col("i"), lit(int64(0))), Then: gt(col("i"), lit(int64(1))), Else: col("s")}, "CASE branches have incompatible types: (i > 1) is bool, s is utf8"},
		{plan.Case{Cond: col("i"), Then: col("i")}, "WHEN needs a boolean condition, i is int64"},
	} {
		if _, err := compileExpr(c.e, s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.e, err, c.want)
		}
	}
}

// TestEvalCaseChecked checks that a THEN value is computed only for its
// rows: an overflow on a row another branch takes is no error.
func TestEvalCaseChecked(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 1 << 62, 2}, nil)
	arr := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: arr.DataType()}}, nil), []arrow.Array{arr}, 3)
	arr.Release()
	defer rec.Release()
	x := plan.ColumnRef{Name: "x"}
	e := plan.Case{Cond: plan.Binary{Op: plan.OpLt, L: x, R: plan.Literal{Value: int64(100)}},
		Then: plan.Binary{Op: plan.OpMul, L: x, R: plan.Literal{Value: int64(4)}}, Else: x}
	compileMu.Lock()
	compilingChecked = true
	ev, err := compileExpr(e, rec.Schema())
	compilingChecked = false
	compileMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	got, err := ev.value(mem, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if s := fmt.Sprint(got); s != "[4 4611686018427387904 8]" {
		t.Fatalf("got %s", s)
	}
}

// TestEvalRemainderComparedWithZero checks `x % d = 0` and `<> 0`, which
// run as a divisibility test (kernels.SelectDivisible), and the forms
// beside them that keep the remainder path, against a naive evaluation.
func TestEvalRemainderComparedWithZero(t *testing.T) {
	col := func(n string) plan.Expr { return plan.ColumnRef{Name: n} }
	lit := func(v any) plan.Expr { return plan.Literal{Value: v} }
	bin := func(op plan.BinaryOp, l, r plan.Expr) plan.Expr { return plan.Binary{Op: op, L: l, R: r} }
	asInt := func(v any) (int64, bool) {
		switch x := v.(type) {
		case int64:
			return x, true
		case int32:
			return int64(x), true
		}
		return 0, false
	}
	for _, c := range []struct {
		c    string
		d, r int64
		op   plan.BinaryOp
		flip bool
	}{
		{"i64", 3, 0, plan.OpEq, false},
		{"i64", -4, 0, plan.OpNe, false},
		{"i32", 2, 0, plan.OpEq, true},
		{"i32", 5, 0, plan.OpNe, true},
		{"i64", 0, 0, plan.OpEq, false}, // a zero divisor: NULL
		{"i64", 3, 1, plan.OpEq, false}, // not against zero
	} {
		mod := bin(plan.OpMod, col(c.c), lit(c.d))
		e := bin(c.op, mod, lit(c.r))
		if c.flip {
			e = bin(c.op, lit(c.r), mod)
		}
		checkExpr(t, e, func(row map[string]any) any {
			x, ok := asInt(row[c.c])
			if !ok || c.d == 0 {
				return nil
			}
			return (x%c.d == c.r) == (c.op == plan.OpEq)
		})
	}
}
