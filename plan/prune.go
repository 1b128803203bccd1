package plan

// PruneColumns returns n computing only the columns that its output and its
// operators read, as Spark's ColumnPruning rule: a projection drops the
// expressions no one reads, and each input of a join is narrowed to the
// columns read above it and its keys, so that join state holds only those.
// The output schema is unchanged. It goes through filters, projections,
// watermarks, aggregations and joins, and keeps any other node (and what
// is below it) as it is. The SQL planner applies it to every query: SQL
// selects its columns late (a join's sides carry every column of their
// views until the select list), where a builder user projects early.
//
// A plan is a DAG: a stream used twice (a WITH query read by both sides of
// a join) is one node with two parents, which the engine runs once and
// fans out. Pruning keeps it one node: a node's columns are the union of
// what all its parents need, and each node is rebuilt once; a node with
// nothing to drop is kept as it is.
func PruneColumns(root Node) (Node, error) {
	order := topoOrder(root)
	need := map[Node]map[string]bool{root: allColumns(root)}
	for _, n := range order {
		for child, cols := range childNeeds(n, need[n]) {
			if need[child] == nil {
				need[child] = map[string]bool{}
			}
			for c := range cols {
				need[child][c] = true
			}
		}
	}
	built := map[Node]Node{}
	for i := len(order) - 1; i >= 0; i-- { // children first
		n := order[i]
		b, err := rebuild(n, need[n], built)
		if err != nil {
			return nil, err
		}
		built[n] = b
	}
	return built[root], nil
}

// topoOrder lists the nodes of the DAG under root, each once, every parent
// before its children.
func topoOrder(root Node) []Node {
	seen := map[Node]bool{}
	var post []Node
	var visit func(Node)
	visit = func(n Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		for _, c := range n.Children() {
			visit(c)
		}
		post = append(post, n)
	}
	visit(root)
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

func allColumns(n Node) map[string]bool {
	out := map[string]bool{}
	for _, f := range n.Schema().Fields() {
		out[f.Name] = true
	}
	return out
}

// keptExprs are the expressions of p that need reads (at least one, as a
// projection keeps a column).
func keptExprs(p *Project, need map[string]bool) []Expr {
	var exprs []Expr
	for _, e := range p.Exprs {
		if need[OutputName(e)] {
			exprs = append(exprs, e)
		}
	}
	if len(exprs) == 0 {
		exprs = p.Exprs[:1]
	}
	return exprs
}

// sideWant is what a join needs of one side: the columns read above it
// and its keys and time column.
func sideWant(in Node, need map[string]bool, keys []string, time string) map[string]bool {
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
	return want
}

// childNeeds is what n, of which need is read, reads of each child.
func childNeeds(n Node, need map[string]bool) map[Node]map[string]bool {
	switch n := n.(type) {
	case *Project:
		return map[Node]map[string]bool{n.Input: readsOf(nil, keptExprs(n, need)...)}
	case *Filter:
		return map[Node]map[string]bool{n.Input: readsOf(need, n.Cond)}
	case *Watermark:
		return map[Node]map[string]bool{n.Input: readsOf(need, ColumnRef{Name: n.Column})}
	case *Aggregate:
		return map[Node]map[string]bool{n.Input: readsOf(nil, append(append([]Expr{}, n.Keys...), n.Aggs...)...)}
	case *Join:
		l := sideWant(n.Left, need, n.LeftKeys, n.TimeLeft)
		r := sideWant(n.Right, need, n.RightKeys, n.TimeRight)
		if n.Left == n.Right { // a self-join: one input, both sides' columns
			for c := range r {
				l[c] = true
			}
			return map[Node]map[string]bool{n.Left: l}
		}
		return map[Node]map[string]bool{n.Left: l, n.Right: r}
	}
	out := map[Node]map[string]bool{}
	for _, c := range n.Children() {
		out[c] = allColumns(c)
	}
	return out
}

// rebuild makes n over its rebuilt children (built), computing what need
// reads; n itself when nothing changes.
func rebuild(n Node, need map[string]bool, built map[Node]Node) (Node, error) {
	switch n := n.(type) {
	case *Project:
		exprs := keptExprs(n, need)
		in := built[n.Input]
		if in == n.Input && len(exprs) == len(n.Exprs) {
			return n, nil
		}
		return NewProject(in, exprs)
	case *Filter:
		if in := built[n.Input]; in != n.Input {
			return NewFilter(in, n.Cond)
		}
	case *Watermark:
		if in := built[n.Input]; in != n.Input {
			return NewWatermark(in, n.Column, n.Delay)
		}
	case *Aggregate:
		if in := built[n.Input]; in != n.Input {
			return NewAggregate(in, n.Keys, n.Aggs)
		}
	case *Join:
		l, err := narrow(built[n.Left], sideWant(n.Left, need, n.LeftKeys, n.TimeLeft))
		if err != nil {
			return nil, err
		}
		r, err := narrow(built[n.Right], sideWant(n.Right, need, n.RightKeys, n.TimeRight))
		if err != nil {
			return nil, err
		}
		if l == n.Left && r == n.Right {
			return n, nil
		}
		j := *n
		j.Left, j.Right = l, r
		if err := j.buildSchema(); err != nil {
			return nil, err
		}
		return &j, nil
	}
	return n, nil // other nodes keep their inputs, which childNeeds left whole
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
