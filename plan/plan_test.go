package plan

import (
	"fmt"
	"github.com/millrace/millrace/internal/testutil"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources/memory"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "ts", Type: columnar.Timestamp, Nullable: true},
}, nil)

func col(n string) Expr { return ColumnRef{Name: n} }

func TestTypeOf(t *testing.T) {
	for _, c := range []struct {
		e    Expr
		want arrow.Type // arrow.NULL: an analysis error is expected
	}{
		{Binary{OpAdd, col("i32"), col("i64")}, arrow.INT64},
		{Binary{OpMul, col("i64"), col("f")}, arrow.FLOAT64},
		{Binary{OpLt, col("i32"), Literal{int64(3)}}, arrow.BOOL},
		{Binary{OpAnd, col("b"), Binary{OpEq, col("s"), Literal{"x"}}}, arrow.BOOL},
		{Neg{col("i32")}, arrow.INT64},
		{Cast{col("i64"), arrow.PrimitiveTypes.Float64}, arrow.FLOAT64},
		{IsNull{E: col("s")}, arrow.BOOL},
		{Window{Time: col("ts"), Size: time.Minute, Slide: 10 * time.Second}, arrow.STRUCT},
		{Session{Time: col("ts"), Gap: time.Minute}, arrow.STRUCT},
		{CurrentTimestamp{}, arrow.TIMESTAMP},
		{Alias{E: col("f"), Name: "g"}, arrow.FLOAT64},
		{Agg{Func: AggAvg, Arg: col("i64")}, arrow.FLOAT64},
		{Agg{Func: AggCountAll}, arrow.INT64},
		// Spark's implicit casts and timestamp arithmetic
		{Binary{OpGt, col("ts"), Literal{"2024-01-01 10:00:00"}}, arrow.BOOL},
		{Binary{OpEq, col("s"), col("i32")}, arrow.BOOL},
		{Binary{OpLe, col("f"), col("s")}, arrow.BOOL},
		{Binary{OpEq, col("b"), Literal{"true"}}, arrow.BOOL},
		{Binary{OpAdd, col("ts"), Literal{time.Hour}}, arrow.TIMESTAMP},
		{Binary{OpSub, col("ts"), Literal{time.Second}}, arrow.TIMESTAMP},
		{Binary{OpAdd, Literal{time.Minute}, col("ts")}, arrow.TIMESTAMP},
		// errors
		{Binary{OpSub, Literal{time.Minute}, col("ts")}, arrow.NULL},
		{Binary{OpAdd, col("i64"), Literal{time.Minute}}, arrow.NULL},
		{Binary{OpGt, Literal{time.Hour}, Literal{time.Minute}}, arrow.NULL},
		{Binary{OpGt, col("ts"), col("i64")}, arrow.NULL},
		{col("missing"), arrow.NULL},
		{Binary{OpAdd, col("s"), col("i64")}, arrow.NULL},
		{Not{col("i64")}, arrow.NULL},
		{Neg{col("s")}, arrow.NULL},
		{Window{Time: col("i64"), Size: time.Minute, Slide: time.Minute}, arrow.NULL},
		{Window{Time: col("ts"), Size: time.Minute, Slide: 2 * time.Minute}, arrow.NULL},
		{Session{Time: col("ts")}, arrow.NULL},
		{Agg{Func: AggSum, Arg: col("s")}, arrow.NULL},
	} {
		got, err := TypeOf(c.e, testSchema)
		if c.want == arrow.NULL {
			if err == nil {
				t.Errorf("%s: type %s, want an analysis error", c.e, got)
			}
			continue
		}
		if err != nil || got.ID() != c.want {
			t.Errorf("%s: %v, %v; want %s", c.e, got, err, c.want)
		}
	}
}

func TestNodesAnalyzeAndExplain(t *testing.T) {
	scan := &Scan{Source: testutil.Must(memory.New(testSchema, memory.Options{}))}
	if _, err := NewFilter(scan, col("i64")); err == nil {
		t.Fatal("filter on a number: no error")
	}
	if _, err := NewWatermark(scan, "s", time.Second); err == nil {
		t.Fatal("watermark on a string: no error")
	}
	wm, err := NewWatermark(scan, "ts", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := WatermarkDelay(wm.Schema().Field(5)); !ok || d != 10*time.Second {
		t.Fatalf("watermark delay %s, %v", d, ok)
	}
	f, err := NewFilter(wm, Binary{OpGt, col("i64"), Literal{int64(0)}})
	if err != nil {
		t.Fatal(err)
	}
	window := Window{Time: col("ts"), Size: time.Minute, Slide: time.Minute}
	if _, err := NewAggregate(f, []Expr{col("s"), Alias{E: col("i64"), Name: "s"}}, nil); err == nil {
		t.Fatal("duplicate output column: no error")
	}
	if _, err := NewAggregate(f, []Expr{Agg{Func: AggCountAll}}, nil); err == nil {
		t.Fatal("aggregate as a key: no error")
	}
	a, err := NewAggregate(f, []Expr{window, col("s")}, []Expr{Alias{E: Agg{Func: AggSum, Arg: col("i64")}, Name: "total"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fld := range a.Schema().Fields() {
		names = append(names, fld.Name)
	}
	if strings.Join(names, ",") != "window,s,total" {
		t.Fatalf("aggregate columns %v", names)
	}
	if len(Scans(a)) != 1 {
		t.Fatalf("scans %v", Scans(a))
	}
	ex := Explain(a)
	for _, want := range []string{"Aggregate", "+- Filter", "+- Watermark ts", "+- Scan[0]"} {
		if !strings.Contains(ex, want) {
			t.Fatalf("explain lacks %q:\n%s", want, ex)
		}
	}
	if strings.Index(ex, "Filter") > strings.Index(ex, "Scan") {
		t.Fatalf("explain out of order:\n%s", ex)
	}
}

func TestParseColumnName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a", "[a]"}, {"window.start", "[window start]"}, {"`a.b`", "[a.b]"}, {"`a.b`.c", "[a.b c]"},
		{"`a``b`", "[a`b]"}, {"``", "[]"}, {"a.", "error"}, {".a", "error"}, {"`a", "error"}, {"`a`b", "error"}, {"a`b`", "error"},
	} {
		parts, err := ParseColumnName(c.in)
		got := fmt.Sprint(parts)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("ParseColumnName(%q) = %s (%v), want %s", c.in, got, err, c.want)
		}
	}
}

// TestJoinTimeRange checks that a join's time range takes intervals as
// SQL writes them (time.Duration literals, on either side of a +) as
// well as int64 microseconds.
func TestJoinTimeRange(t *testing.T) {
	ts := columnar.Timestamp
	left := schemaNode{arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "lt", Type: ts}}, nil)}
	right := schemaNode{arrow.NewSchema([]arrow.Field{{Name: "rk", Type: arrow.PrimitiveTypes.Int64}, {Name: "rt", Type: ts}}, nil)}
	col := func(n string) Expr { return ColumnRef{Name: n} }
	and := func(a, b Expr) Expr { return Binary{Op: OpAnd, L: a, R: b} }
	keys := Binary{Op: OpEq, L: col("k"), R: col("rk")}
	for _, c := range []struct {
		name         string
		cond         Expr
		lower, upper int64
	}{
		{"between with an interval", and(keys, and(Binary{Op: OpGe, L: col("rt"), R: col("lt")},
			Binary{Op: OpLe, L: col("rt"), R: Binary{Op: OpAdd, L: col("lt"), R: Literal{Value: time.Hour}}})), 0, time.Hour.Microseconds()},
		{"interval + column, reversed comparison", and(keys, Binary{Op: OpGe, L: Binary{Op: OpAdd, L: Literal{Value: 10 * time.Minute}, R: col("lt")}, R: col("rt")}),
			NoLower, (10 * time.Minute).Microseconds()},
		{"column - interval, microseconds", and(keys, Binary{Op: OpGt, L: col("rt"), R: Binary{Op: OpSub, L: col("lt"), R: Literal{Value: int64(5_000_000)}}}),
			-5_000_000 + 1, NoUpper},
	} {
		j, err := NewJoin(left, right, c.cond, InnerJoin)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if j.Lower != c.lower || j.Upper != c.upper || j.TimeLeft != "lt" || j.TimeRight != "rt" {
			t.Errorf("%s: range [%d, %d] on %s, %s; want [%d, %d]", c.name, j.Lower, j.Upper, j.TimeLeft, j.TimeRight, c.lower, c.upper)
		}
	}
}

// schemaNode is a leaf of a given schema.
type schemaNode struct{ s *arrow.Schema }

func (n schemaNode) Schema() *arrow.Schema { return n.s }
func (schemaNode) Children() []Node        { return nil }
func (schemaNode) Describe() string        { return "schema" }
