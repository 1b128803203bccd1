package exec

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/plan"
)

// coerceBatch has a timestamp ts, an int i, a double f and a string s,
// with a null in the last row of each.
func coerceBatch(mem memory.Allocator) arrow.RecordBatch {
	base := time.Date(2024, 1, 1, 10, 0, 0, 0, time.UTC)
	tsb := array.NewTimestampBuilder(mem, columnar.Timestamp)
	ib := array.NewInt32Builder(mem)
	fb := array.NewFloat64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i, s := range []string{"1", "1.5", "x", "2024-01-01 10:00:03"} {
		tsb.Append(arrow.Timestamp(base.Add(time.Duration(i) * time.Second).UnixMicro()))
		ib.Append(int32(i))
		fb.Append(float64(i) + 0.5)
		sb.Append(s)
	}
	tsb.AppendNull()
	ib.AppendNull()
	fb.AppendNull()
	sb.AppendNull()
	cols := []arrow.Array{tsb.NewArray(), ib.NewArray(), fb.NewArray(), sb.NewArray()}
	for _, b := range []array.Builder{tsb, ib, fb, sb} {
		b.Release()
	}
	defer testutil.ReleaseAll(cols)
	schema := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: columnar.Timestamp, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, {Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(schema, cols, 5)
}

// TestImplicitCasts checks Spark's implicit casts (non-ANSI, as recorded
// from Spark 4.2): a string compared with a timestamp or a number is cast
// to its type, a string that does not parse gives NULL; a timestamp plus
// or minus an interval literal is a timestamp.
func TestImplicitCasts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	rec := coerceBatch(mem)
	defer rec.Release()
	col := func(n string) plan.Expr { return plan.ColumnRef{Name: n} }
	lit := func(v any) plan.Expr { return plan.Literal{Value: v} }
	bin := func(op plan.BinaryOp, l, r plan.Expr) plan.Expr { return plan.Binary{Op: op, L: l, R: r} }
	at := func(s string) time.Time {
		ts, _ := time.Parse("2006-01-02 15:04:05", s)
		return ts
	}
	cases := []struct {
		name string
		e    plan.Expr
		want []any
	}{
		{"timestamp > string literal", bin(plan.OpGt, col("ts"), lit("2024-01-01 10:00:01")), []any{false, false, true, true, nil}},
		{"string literal <= timestamp", bin(plan.OpLe, lit("2024-01-01 10:00:01"), col("ts")), []any{false, true, true, true, nil}},
		{"timestamp = date string", bin(plan.OpEq, col("ts"), lit("2024-01-01")), []any{false, false, false, false, nil}},
		{"timestamp = minutes string", bin(plan.OpEq, col("ts"), lit("2024-01-01 10:00")), []any{true, false, false, false, nil}},
		{"timestamp vs unparsable string is null", bin(plan.OpGt, col("ts"), lit("garbage")), []any{nil, nil, nil, nil, nil}},
		{"timestamp vs string column", bin(plan.OpEq, col("ts"), col("s")), []any{nil, nil, nil, true, nil}},
		{"int = string literal", bin(plan.OpEq, col("i"), lit("1")), []any{false, true, false, false, nil}},
		// non-ANSI Spark casts '1.5' to INT 1: 1 = '1.5' is true.
		{"int = fractional string truncates", bin(plan.OpEq, col("i"), lit("1.5")), []any{false, true, false, false, nil}},
		{"int vs string column", bin(plan.OpLt, col("i"), col("s")), []any{true, false, nil, nil, nil}},
		{"double vs string column", bin(plan.OpEq, col("f"), col("s")), []any{false, true, nil, nil, nil}},
		{"int vs double", bin(plan.OpGt, col("i"), lit(1.5)), []any{false, false, true, true, nil}},
		{"timestamp + interval", bin(plan.OpAdd, col("ts"), lit(10*time.Second)),
			[]any{at("2024-01-01 10:00:10"), at("2024-01-01 10:00:11"), at("2024-01-01 10:00:12"), at("2024-01-01 10:00:13"), nil}},
		{"interval + timestamp", bin(plan.OpAdd, lit(90*time.Minute), col("ts")),
			[]any{at("2024-01-01 11:30:00"), at("2024-01-01 11:30:01"), at("2024-01-01 11:30:02"), at("2024-01-01 11:30:03"), nil}},
		{"timestamp - interval", bin(plan.OpSub, col("ts"), lit(time.Hour)),
			[]any{at("2024-01-01 09:00:00"), at("2024-01-01 09:00:01"), at("2024-01-01 09:00:02"), at("2024-01-01 09:00:03"), nil}},
		{"timestamp literal + interval", bin(plan.OpAdd, lit(at("2024-01-01 10:00:00")), lit(time.Hour)),
			[]any{at("2024-01-01 11:00:00"), at("2024-01-01 11:00:00"), at("2024-01-01 11:00:00"), at("2024-01-01 11:00:00"), at("2024-01-01 11:00:00")}},
		{"null timestamp + interval", bin(plan.OpAdd, plan.Cast{E: lit(nil), To: columnar.Timestamp}, lit(time.Hour)), []any{nil, nil, nil, nil, nil}},
		{"shifted timestamp compared", bin(plan.OpGe, bin(plan.OpAdd, col("ts"), lit(2*time.Second)), lit("2024-01-01 10:00:04")),
			[]any{false, false, true, true, nil}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev, err := compileExpr(c.e, rec.Schema())
			if err != nil {
				t.Fatal(err)
			}
			got, err := ev.value(mem, rec)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			for i, w := range c.want {
				v := testutil.Value(got, i)
				if ts, ok := w.(time.Time); ok {
					w = ts.UnixMicro()
					if g, ok := v.(time.Time); ok {
						v = g.UnixMicro()
					}
				}
				if v != w {
					t.Fatalf("row %d: got %v (%T), want %v", i, v, v, w)
				}
			}
		})
	}
	for _, c := range []struct {
		name string
		e    plan.Expr
		want string
	}{
		{"interval alone", lit(time.Hour), "INTERVAL cannot be a column"},
		{"interval - timestamp", bin(plan.OpSub, lit(time.Hour), col("ts")), "an INTERVAL can only be added to or subtracted from a timestamp"},
		{"int + interval", bin(plan.OpAdd, col("i"), lit(time.Hour)), "an INTERVAL can only be added"},
		{"timestamp vs int", bin(plan.OpGt, col("ts"), col("i")), "cannot compare"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := plan.NewProject(schemaNode{rec.Schema()}, []plan.Expr{c.e})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// schemaNode is a plan leaf of a given schema.
type schemaNode struct{ s *arrow.Schema }

func (n schemaNode) Schema() *arrow.Schema { return n.s }
func (schemaNode) Children() []plan.Node   { return nil }
func (schemaNode) Describe() string        { return "schema" }
