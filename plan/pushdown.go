package plan

import "fmt"

// NotNullKeys returns n with the rows removed in which any of the columns
// cols is null, the filter placed as deep in n as it can go: below filters
// and projections (a projected column is replaced by the expression that
// computes it), into every input of a union, and below a watermark unless
// the filter reads the watermark's column. It stops at sources and at
// stateful or decoding nodes.
//
// It is Spark's optimizer inferring IsNotNull on join keys
// (InferFiltersFromConstraints) and pushing the filter down
// (PushDownPredicates, which crosses EventTimeWatermark): rows that can
// never produce output are gone before the watermark observes their event
// time, so they do not move it.
func NotNullKeys(n Node, cols []string) (Node, error) {
	conds := make([]Expr, len(cols))
	for i, c := range cols {
		conds[i] = ColumnRef{Name: c}
	}
	return pushNotNull(n, conds)
}

// pushNotNull pushes "every expression of conds IS NOT NULL" into n; the
// expressions are in terms of n's output columns.
func pushNotNull(n Node, conds []Expr) (Node, error) {
	if len(conds) == 0 {
		return n, nil
	}
	switch n := n.(type) {
	case *Filter:
		in, err := pushNotNull(n.Input, conds)
		if err != nil {
			return nil, err
		}
		return NewFilter(in, n.Cond)
	case *Watermark:
		var down, stay []Expr
		for _, c := range conds {
			if references(c, n.Column) {
				stay = append(stay, c)
			} else {
				down = append(down, c)
			}
		}
		in, err := pushNotNull(n.Input, down)
		if err != nil {
			return nil, err
		}
		w, err := NewWatermark(in, n.Column, n.Delay)
		if err != nil {
			return nil, err
		}
		return notNullFilter(w, stay)
	case *Project:
		var down, stay []Expr
		for _, c := range conds {
			if s, ok := substitute(c, n); ok {
				down = append(down, s)
			} else {
				stay = append(stay, c)
			}
		}
		in, err := pushNotNull(n.Input, down)
		if err != nil {
			return nil, err
		}
		p, err := NewProject(in, n.Exprs)
		if err != nil {
			return nil, err
		}
		return notNullFilter(p, stay)
	case *Union:
		ins := make([]Node, len(n.Inputs))
		for i, in := range n.Inputs {
			var err error
			if ins[i], err = pushNotNull(in, conds); err != nil {
				return nil, err
			}
		}
		return NewUnion(ins)
	}
	return notNullFilter(n, conds)
}

// notNullFilter filters n to the rows where every expression of conds is
// not null.
func notNullFilter(n Node, conds []Expr) (Node, error) {
	if len(conds) == 0 {
		return n, nil
	}
	var cond Expr
	for _, c := range conds {
		e := Expr(IsNull{E: c, Negated: true})
		if cond == nil {
			cond = e
		} else {
			cond = Binary{Op: OpAnd, L: cond, R: e}
		}
	}
	f, err := NewFilter(n, cond)
	if err != nil {
		return nil, fmt.Errorf("inferred filter: %w", err)
	}
	return f, nil
}

// substitute rewrites e, written over p's output, over p's input: each
// column reference becomes the expression p computes it with. It fails
// for expressions that are not plain row functions (windows, sessions,
// current_timestamp(), aggregates), which stay above p.
func substitute(e Expr, p *Project) (Expr, bool) {
	byName := map[string]Expr{}
	for _, x := range p.Exprs {
		byName[OutputName(x)] = Unalias(x)
	}
	ok := true
	var rewrite func(Expr) Expr
	rewrite = func(e Expr) Expr {
		switch e := e.(type) {
		case ColumnRef:
			src, found := byName[e.Name]
			if !found || !plainRowFunction(src) {
				ok = false
				return e
			}
			return src
		case Binary, Not, Neg, IsNull, Cast, GetField, Like, Case, Call:
			return MapChildren(e, rewrite)
		case Literal:
			return e
		}
		ok = false
		return e
	}
	out := rewrite(e)
	return out, ok
}

// plainRowFunction reports whether e is computed from its row alone by the
// expressions substitute knows how to rewrite.
func plainRowFunction(e Expr) bool {
	plain := true
	Walk(e, func(x Expr) {
		switch x.(type) {
		case ColumnRef, Literal, Binary, Not, Neg, IsNull, Cast, GetField, Case, Like, Call:
		default:
			plain = false
		}
	})
	return plain
}

// references reports whether e reads column col.
func references(e Expr, col string) bool {
	found := false
	Walk(e, func(x Expr) {
		if c, ok := x.(ColumnRef); ok && c.Name == col {
			found = true
		}
	})
	return found
}
