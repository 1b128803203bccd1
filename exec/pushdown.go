package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
)

// pushFilters hands each source that can skip input (sources.FilterPusher)
// or drop rows as it decodes them (sources.RowFilterPusher) the parts of
// the filter that reads its rows: a Filter whose input is the scan itself,
// when that filter is the scan's only reader (a stream read in two places
// keeps every row for the other). To skip input, only a column compared
// with a literal of its own kind is pushed: an int32 or int64 column with
// an integer, a string column with a string; to drop rows, each column's
// conjuncts (rowFilters). The filter still runs over every row the source
// produces, so a source that skips nothing gives the same result; and
// nothing between the scan and the filter (a watermark) could have seen
// the rows skipped.
func pushFilters(c *compiled, root plan.Node) {
	readers := map[*plan.Scan][]plan.Node{}
	var walk func(n plan.Node)
	walk = func(n plan.Node) {
		for _, ch := range n.Children() {
			if s, ok := ch.(*plan.Scan); ok {
				readers[s] = append(readers[s], n)
			}
			walk(ch)
		}
	}
	walk(root)
	scansOf := map[sources.Source]int{}
	for _, s := range c.scans {
		scansOf[s.Source]++
	}
	for _, s := range c.scans {
		p, ok := s.Source.(sources.FilterPusher)
		if !ok || scansOf[s.Source] != 1 || len(readers[s]) != 1 {
			continue
		}
		f, ok := readers[s][0].(*plan.Filter)
		if !ok {
			continue
		}
		if conds := pushable(f.Cond, s.Source.Schema(), nil); len(conds) > 0 {
			p.PushFilters(conds)
		}
		if rp, ok := s.Source.(sources.RowFilterPusher); ok {
			if fs := rowFilters(f.Cond, s.Source.Schema()); len(fs) > 0 {
				rp.PushRowFilters(fs)
			}
		}
	}
}

// pushedOps names the comparisons sources.Comparison carries (<> is not
// one: it rules out a row group only when every value is the literal);
// flippedOps the same with the literal on the left.
var (
	pushedOps  = map[plan.BinaryOp]string{plan.OpEq: "=", plan.OpLt: "<", plan.OpLe: "<=", plan.OpGt: ">", plan.OpGe: ">="}
	flippedOps = map[plan.BinaryOp]string{plan.OpEq: "=", plan.OpLt: ">", plan.OpLe: ">=", plan.OpGt: "<", plan.OpGe: "<="}
)

// pushable appends to out the conjuncts of e that compare a column of
// schema with a literal of the column's kind, the column on the left.
func pushable(e plan.Expr, schema *arrow.Schema, out []sources.Comparison) []sources.Comparison {
	b, ok := e.(plan.Binary)
	if !ok {
		return out
	}
	if b.Op == plan.OpAnd {
		return pushable(b.R, schema, pushable(b.L, schema, out))
	}
	col, lcol := b.L.(plan.ColumnRef)
	lit, rlit := b.R.(plan.Literal)
	op, known := pushedOps[b.Op]
	if !lcol || !rlit {
		col, lcol = b.R.(plan.ColumnRef)
		lit, rlit = b.L.(plan.Literal)
		op, known = flippedOps[b.Op]
	}
	if !lcol || !rlit || !known {
		return out
	}
	idx := schema.FieldIndices(col.Name)
	if len(idx) != 1 {
		return out
	}
	var v any
	switch schema.Field(idx[0]).Type.ID() {
	case arrow.INT32, arrow.INT64:
		switch x := lit.Value.(type) {
		case int:
			v = int64(x)
		case int32:
			v = int64(x)
		case int64:
			v = x
		}
	case arrow.STRING:
		if x, ok := lit.Value.(string); ok {
			v = x
		}
	}
	if v == nil {
		return out
	}
	return append(out, sources.Comparison{Col: col.Name, Op: op, Value: v})
}
