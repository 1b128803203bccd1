package exec

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
)

// rowFilters returns, per column of schema that some conjuncts of cond
// read alone, the AND of those conjuncts compiled as a sources.RowFilter
// (evaluated over one column's values, by the source, as it decodes).
// Only pure conjuncts are pushed (pureRowExpr): a source may evaluate them
// on values no row holds (a dictionary's entries) and more than once.
// Called while compiling (compileMu held).
func rowFilters(cond plan.Expr, schema *arrow.Schema) []sources.RowFilter {
	byCol := map[string][]plan.Expr{}
	var order []string
	for _, c := range conjuncts(cond, nil) {
		col, ok := pureRowExpr(c)
		if !ok || len(schema.FieldIndices(col)) != 1 {
			continue
		}
		if byCol[col] == nil {
			order = append(order, col)
		}
		byCol[col] = append(byCol[col], c)
	}
	var out []sources.RowFilter
	for _, col := range order {
		e := byCol[col][0]
		for _, c := range byCol[col][1:] {
			e = plan.Binary{Op: plan.OpAnd, L: e, R: c}
		}
		one := arrow.NewSchema([]arrow.Field{schema.Field(schema.FieldIndices(col)[0])}, nil)
		if t, err := plan.TypeOf(e, one); err != nil || t.ID() != arrow.BOOL {
			continue
		}
		ev, err := compileExpr(e, one)
		if err != nil {
			continue
		}
		out = append(out, sources.RowFilter{Col: col,
			Keep: func(mem memory.Allocator, vals arrow.Array, out []int32) ([]int32, error) {
				rec := array.NewRecordBatch(one, []arrow.Array{vals}, int64(vals.Len()))
				defer rec.Release()
				return ev.pred(mem, rec, nil, out)
			}})
	}
	return out
}

// conjuncts appends the conjuncts of e (split at AND) to out.
func conjuncts(e plan.Expr, out []plan.Expr) []plan.Expr {
	if b, ok := plan.Unalias(e).(plan.Binary); ok && b.Op == plan.OpAnd {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, e)
}

// impureCalls are the functions whose value depends on when they are
// called: a conjunct calling one is not pushed.
var impureCalls = []string{"current_", "now", "unix_timestamp", "rand", "uuid", "monotonically"}

// pureRowExpr returns the one column e reads, when e reads exactly one and
// is made only of operators, literals and functions whose value depends on
// their arguments alone.
func pureRowExpr(e plan.Expr) (col string, ok bool) {
	ok = true
	plan.Walk(e, func(x plan.Expr) {
		switch x := x.(type) {
		case plan.ColumnRef:
			if col != "" && col != x.Name {
				ok = false
			}
			col = x.Name
		case plan.Literal, plan.Binary, plan.Not, plan.Neg, plan.IsNull, plan.Cast, plan.Alias,
			plan.GetField, plan.Like, plan.Case:
		case plan.Call:
			name := strings.ToLower(x.Name)
			for _, p := range impureCalls {
				if strings.HasPrefix(name, p) {
					ok = false
				}
			}
		default: // current_timestamp(), windows, aggregates, subqueries…
			ok = false
		}
	})
	return col, ok && col != ""
}
