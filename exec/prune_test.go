package exec

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
)

// TestNeededColumns: a column is needed when an expression, key, watermark
// or join of the plan uses it, or when it reaches the output.
func TestNeededColumns(t *testing.T) {
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64},
		{Name: "b", Type: arrow.BinaryTypes.String},
		{Name: "ts", Type: columnar.Timestamp},
		{Name: "unused", Type: arrow.BinaryTypes.String},
		{Name: "out", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	var n plan.Node = &plan.Scan{Source: schemaSource{sch}}
	must := func(m plan.Node, err error) plan.Node {
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	n = must(plan.NewFilter(n, plan.Binary{Op: plan.OpGt, L: plan.ColumnRef{Name: "a"}, R: plan.Literal{Value: 1}}))
	n = must(plan.NewWatermark(n, "ts", time.Second))
	n = must(plan.NewAggregate(n, []plan.Expr{plan.Window{Time: plan.ColumnRef{Name: "ts"}, Size: time.Minute, Slide: time.Minute}, plan.ColumnRef{Name: "b"}},
		[]plan.Expr{plan.Agg{Func: plan.AggSum, Arg: plan.ColumnRef{Name: "out"}}}))
	need := neededColumns(n)
	var got []string
	for _, f := range sch.Fields() {
		if need[f.Name] {
			got = append(got, f.Name)
		}
	}
	sort.Strings(got)
	if strings.Join(got, ",") != "a,b,out,ts" {
		t.Fatalf("needed %v, want a,b,out,ts (not unused)", got)
	}
	// without a projection every column reaches the output
	raw := plan.Node(&plan.Scan{Source: schemaSource{sch}})
	if need := neededColumns(raw); !need["unused"] {
		t.Fatal("a column that reaches the output was pruned")
	}
}
