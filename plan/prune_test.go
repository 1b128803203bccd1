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
