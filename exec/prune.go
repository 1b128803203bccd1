package exec

import (
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
)

// pruneSources tells sources that can skip columns which ones the query may
// read. The set is by name and conservative: every column referenced by any
// expression, key, watermark or join of the plan, and every column of the
// query's output. A name used in one branch keeps that name in every source.
func pruneSources(c *compiled, root plan.Node) {
	need := neededColumns(root)
	for _, s := range c.scans {
		p, ok := s.Source.(sources.ColumnPruner)
		if !ok {
			continue
		}
		var keep []string
		for _, f := range s.Source.Schema().Fields() {
			if need[f.Name] {
				keep = append(keep, f.Name)
			}
		}
		p.PruneColumns(keep)
	}
}

func neededColumns(root plan.Node) map[string]bool {
	need := map[string]bool{}
	for _, f := range root.Schema().Fields() {
		need[f.Name] = true
	}
	refs := func(es ...plan.Expr) {
		for _, e := range es {
			if e == nil {
				continue
			}
			plan.Walk(e, func(x plan.Expr) {
				if c, ok := x.(plan.ColumnRef); ok {
					need[c.Name] = true
				}
			})
		}
	}
	var walk func(plan.Node)
	walk = func(n plan.Node) {
		switch n := n.(type) {
		case *plan.Filter:
			refs(n.Cond)
		case *plan.Project:
			refs(n.Exprs...)
		case *plan.Watermark:
			need[n.Column] = true
		case *plan.Aggregate:
			refs(n.Keys...)
			refs(n.Aggs...)
		case *plan.Deduplicate:
			for _, k := range n.Keys {
				need[k] = true
			}
			need[n.EventTime] = true
		case *plan.Join:
			for _, k := range append(append([]string{}, n.LeftKeys...), n.RightKeys...) {
				need[k] = true
			}
			need[n.TimeLeft], need[n.TimeRight] = true, true
		case *plan.ParseJSON:
			need[n.Col] = true
		}
		for _, ch := range n.Children() {
			walk(ch)
		}
	}
	walk(root)
	return need
}
