package plan

// PruneColumns returns n computing only the columns that its output and its
// operators read, as Spark's ColumnPruning rule: a projection drops the
// expressions no one reads, and each input of a join is narrowed to the
// columns read above it and its keys, so that join state holds only those.
// The output schema is unchanged. It goes through filters, projections,
// watermarks, aggregations and joins, and stops (keeping the subtree as it
// is) at any other node. The SQL planner applies it to every query: SQL
// selects its columns late (a join's sides carry every column of their
// views until the select list), where a builder user projects early.
func PruneColumns(n Node) (Node, error) {
	need := map[string]bool{}
	for _, f := range n.Schema().Fields() {
		need[f.Name] = true
	}
	return prune(n, need)
}

func prune(n Node, need map[string]bool) (Node, error) {
	switch n := n.(type) {
	case *Project:
		var exprs []Expr
		for _, e := range n.Exprs {
			if need[OutputName(e)] {
				exprs = append(exprs, e)
			}
		}
		if len(exprs) == 0 {
			exprs = n.Exprs[:1] // a projection keeps a column
		}
		in, err := prune(n.Input, readsOf(nil, exprs...))
		if err != nil {
			return nil, err
		}
		return NewProject(in, exprs)
	case *Filter:
		in, err := prune(n.Input, readsOf(need, n.Cond))
		if err != nil {
			return nil, err
		}
		return NewFilter(in, n.Cond)
	case *Watermark:
		in, err := prune(n.Input, readsOf(need, ColumnRef{Name: n.Column}))
		if err != nil {
			return nil, err
		}
		return NewWatermark(in, n.Column, n.Delay)
	case *Aggregate:
		in, err := prune(n.Input, readsOf(nil, append(append([]Expr{}, n.Keys...), n.Aggs...)...))
		if err != nil {
			return nil, err
		}
		return NewAggregate(in, n.Keys, n.Aggs)
	case *Join:
		side := func(in Node, keys []string, time string) (Node, error) {
			want := map[string]bool{}
			for _, f := range in.Schema().Fields() {
				if need[f.Name] {
					want[f.Name] = true
				}
			}
			for _, k := range keys {
				want[k] = true
			}
			if time != "" {
				want[time] = true
			}
			out, err := prune(in, want)
			if err != nil {
				return nil, err
			}
			return narrow(out, want)
		}
		l, err := side(n.Left, n.LeftKeys, n.TimeLeft)
		if err != nil {
			return nil, err
		}
		r, err := side(n.Right, n.RightKeys, n.TimeRight)
		if err != nil {
			return nil, err
		}
		j := *n
		j.Left, j.Right = l, r
		if err := j.buildSchema(); err != nil {
			return nil, err
		}
		return &j, nil
	}
	return n, nil
}

// narrow projects n onto the columns of want, in n's order, when n has
// others.
func narrow(n Node, want map[string]bool) (Node, error) {
	var cols []Expr
	for _, f := range n.Schema().Fields() {
		if want[f.Name] {
			cols = append(cols, ColumnRef{Name: f.Name})
		}
	}
	if len(cols) == len(n.Schema().Fields()) || len(cols) == 0 {
		return n, nil
	}
	return NewProject(n, cols)
}

// readsOf returns base (copied) plus the columns es read.
func readsOf(base map[string]bool, es ...Expr) map[string]bool {
	out := make(map[string]bool, len(base))
	for k := range base {
		out[k] = true
	}
	for _, e := range es {
		if e == nil {
			continue
		}
		Walk(e, func(x Expr) {
			if c, ok := x.(ColumnRef); ok {
				out[c.Name] = true
			}
		})
	}
	return out
}
