package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// TestPruneColumns checks that pruning keeps a plan's output schema, drops
// projected expressions no one reads, and narrows each side of a join to
// the columns read above it plus its keys and time column.
func TestPruneColumns(t *testing.T) {
	i64, ts, str := arrow.PrimitiveTypes.Int64, columnar.Timestamp, arrow.BinaryTypes.String
	left := schemaNode{arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64}, {Name: "lt", Type: ts}, {Name: "big", Type: str}, {Name: "x", Type: i64}}, nil)}
	right := schemaNode{arrow.NewSchema([]arrow.Field{{Name: "rk", Type: i64}, {Name: "rt", Type: ts}, {Name: "huge", Type: str}, {Name: "y", Type: i64}}, nil)}
	must := func(n Node, err error) Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	wm := must(NewWatermark(left, "lt", time.Second))
	cond := Binary{Op: OpAnd, L: Binary{Op: OpEq, L: col("k"), R: col("rk")},
		R: Binary{Op: OpLe, L: col("rt"), R: Binary{Op: OpAdd, L: col("lt"), R: Literal{Value: time.Minute}}}}
	j := must(NewJoin(wm, right, cond, InnerJoin))
	f := must(NewFilter(j, Binary{Op: OpGt, L: col("y"), R: Literal{Value: int64(0)}}))
	p := must(NewProject(f, []Expr{col("x"), Alias{E: Binary{Op: OpAdd, L: col("x"), R: col("y")}, Name: "xy"}}))
	out := must(NewAggregate(p, []Expr{col("x")}, []Expr{Alias{E: Agg{Func: AggCountAll}, Name: "n"}}))

	pruned, err := PruneColumns(out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pruned.Schema().String(), out.Schema().String(); got != want {
		t.Fatalf("schema changed:\n%s\nwant\n%s", got, want)
	}
	ex := Explain(pruned)
	for _, want := range []string{"Project x\n", "Project k, lt, x\n", "Project rk, rt, y\n"} {
		if !strings.Contains(ex, want) {
			t.Errorf("pruned plan lacks %q:\n%s", want, ex)
		}
	}
	for _, gone := range []string{"xy", "big", "huge"} {
		if strings.Contains(ex, gone) {
			t.Errorf("pruned plan still computes %s:\n%s", gone, ex)
		}
	}
}

// TestPruneColumnsKeepsSharedNodes checks that a node read by two parents
// (a WITH query on both sides of a join, which the engine runs once and
// fans out) stays one node after pruning, computing what both read.
func TestPruneColumnsKeepsSharedNodes(t *testing.T) {
	i64, ts := arrow.PrimitiveTypes.Int64, columnar.Timestamp
	src := schemaNode{arrow.NewSchema([]arrow.Field{{Name: "k", Type: i64}, {Name: "t", Type: ts}, {Name: "v", Type: i64}, {Name: "unused", Type: i64}}, nil)}
	must := func(n Node, err error) Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	shared := must(NewProject(src, []Expr{col("k"), col("v"), col("unused")}))
	counts := must(NewAggregate(shared, []Expr{col("k")}, []Expr{Alias{E: Agg{Func: AggSum, Arg: col("v")}, Name: "s"}}))
	maxes := must(NewAggregate(must(NewProject(counts, []Expr{Alias{E: col("k"), Name: "k2"}, col("s")})), []Expr{col("k2")},
		[]Expr{Alias{E: Agg{Func: AggMax, Arg: col("s")}, Name: "m"}}))
	j := must(NewJoin(counts, maxes, Binary{Op: OpEq, L: col("k"), R: col("k2")}, InnerJoin))
	out := must(NewProject(j, []Expr{col("k"), col("m")}))

	pruned, err := PruneColumns(out)
	if err != nil {
		t.Fatal(err)
	}
	aggs := map[Node]bool{}
	var walk func(Node)
	walk = func(n Node) {
		if a, ok := n.(*Aggregate); ok && len(a.Keys) == 1 && OutputName(a.Keys[0]) == "k" {
			aggs[n] = true
		}
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(pruned)
	if len(aggs) != 1 {
		t.Fatalf("the shared aggregation became %d nodes:\n%s", len(aggs), Explain(pruned))
	}
	if ex := Explain(pruned); strings.Contains(ex, "unused") {
		t.Fatalf("the shared projection still computes unused:\n%s", ex)
	}
}
