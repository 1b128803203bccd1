package millrace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// relation is what a FROM clause reads: a stream and the columns SQL
// sees in it, each with the qualifier it answers to (a view's name or
// alias). Joined streams have columns of the same name on both sides,
// which plan.Join does not allow, so a column may live in the stream
// under another (internal) name: expr reads it, name is how SQL names it.
type relation struct {
	s    *Stream
	cols []relCol // in the order SELECT * lists them
}

type relCol struct {
	qual string // the view name or alias; "" for a USING key
	// view is the view's name when an alias (qual) hides it
	view string
	name string    // the column as SQL names it
	expr plan.Expr // how to read it from the relation's stream
	// hidden columns answer to qualified names only and are not part of
	// SELECT *: the two sides' copies of a USING key.
	hidden bool
}

// relationOf is the relation of a stream read under qualifier qual.
func relationOf(s *Stream, qual string) *relation {
	r := &relation{s: s}
	if s.err != nil {
		return r
	}
	for _, f := range s.Schema().Fields() {
		r.cols = append(r.cols, relCol{qual: qual, name: f.Name, expr: plan.ColumnRef{Name: f.Name}})
	}
	return r
}

// tableRelation is the relation of view t read as s: qualified by t's
// alias, which hides its name, else by its name.
func tableRelation(s *Stream, t *sql.Table) *relation {
	if t.Alias == "" {
		return relationOf(s, t.Name)
	}
	r := relationOf(s, t.Alias)
	for i := range r.cols {
		r.cols[i].view = t.Name
	}
	return r
}

// from plans a FROM item.
func (pl *sqlPlanner) from(f sql.From) (*relation, error) {
	switch f := f.(type) {
	case *sql.Table:
		s, err := pl.view(f)
		if err != nil {
			return nil, err
		}
		return tableRelation(s, f), nil
	case *sql.Subquery:
		s, err := pl.query(f.Query)
		if err != nil {
			return nil, err
		}
		return relationOf(s, f.Alias), nil
	case *sql.Watermarked: // session_tables.go
		s, err := pl.watermarked(f)
		if err != nil {
			return nil, err
		}
		switch in := f.Input.(type) {
		case *sql.Table:
			return tableRelation(s, in), nil
		case *sql.Subquery:
			return relationOf(s, in.Alias), nil
		}
		return relationOf(s, ""), nil
	case *sql.Join:
		return pl.join(f)
	}
	return nil, fmt.Errorf("FROM %T is not supported", f)
}

// join plans left JOIN right: the ON condition (or USING's equalities)
// resolved over both sides, its conjuncts that read one side only
// filtering that side first where the join type allows it (Spark pushes
// them down likewise), the rest given to Stream.Join, whose analysis
// (equi-keys, a time range) and exec's rules (watermarks for outer joins,
// which side may be static) apply as to the builder's joins.
func (pl *sqlPlanner) join(j *sql.Join) (*relation, error) {
	outerNull := pl.nullSide
	pl.nullSide = outerNull || j.How == RightOuter || j.How == FullOuter
	left, err := pl.from(j.Left)
	pl.nullSide = outerNull
	if err != nil {
		return nil, err
	}
	pl.nullSide = outerNull || j.How == LeftOuter || j.How == FullOuter
	right, err := pl.from(j.Right)
	pl.nullSide = outerNull
	if err != nil {
		return nil, err
	}
	if left.s.err != nil {
		return left, nil
	}
	if right.s.err != nil {
		return right, nil
	}
	right = pl.disjoint(left, right)
	how := j.How
	lStatic, rStatic := plan.IsStatic(left.s.node), plan.IsStatic(right.s.node)
	if err := staticJoinAllowed(how, lStatic, rStatic); err != nil {
		return nil, sql.ErrorAt(pl.text, j.At, err.Error())
	}
	both := &relation{cols: append(append([]relCol{}, left.cols...), right.cols...)}
	var conds []plan.Expr
	var condPos []int
	var using []relCol // the joined view's columns of USING, in USING's order
	cross := j.On == nil && len(j.Using) == 0
	if how == Inner && !pl.nullSide {
		// An inner join takes WHERE conjuncts as conditions, as Spark's
		// optimizer does (a filter after an inner join is a condition
		// of it): those reading one side filter it before the join, so
		// that the join keeps only rows that can produce output in its
		// state (PushPredicateThroughJoin), and a cross join's keys are
		// the conjuncts comparing its sides. A join with ON or USING
		// leaves those to a filter after it (Spark's residual
		// condition; the engine joins on equalities and one time
		// range). Not below the null-extended side of an outer join,
		// where WHERE also removes the null-extended rows.
		conds, condPos = pl.crossConditions(both, left.s, right.s, true, cross)
	}
	if j.On != nil {
		res := &resolver{pl: pl, rel: both, sel: pl.sel}
		on, err := res.expr(j.On, j.OnPos)
		if err != nil {
			return nil, err
		}
		for _, c := range conjuncts(on) {
			conds = append(conds, c)
			condPos = append(condPos, j.OnPos)
		}
	}
	for i, name := range j.Using {
		lc, err := pl.usingCol(left, name, j.UsingPos[i], "left")
		if err != nil {
			return nil, err
		}
		rc, err := pl.usingCol(right, name, j.UsingPos[i], "right")
		if err != nil {
			return nil, err
		}
		conds = append(conds, plan.Binary{Op: plan.OpEq, L: lc.expr, R: rc.expr})
		condPos = append(condPos, j.UsingPos[i])
		using = append(using, lc, rc)
	}
	// Conjuncts of one side filter it before the join, where that keeps
	// the join's meaning: not on a side whose unmatched rows are output,
	// where they guard its key instead (guardKey).
	var keep []plan.Expr
	var lf, rf []plan.Expr
	var guards [2][]plan.Expr
	guardPos := -1
	for i, c := range conds {
		inL, inR := reads(c, left.s), reads(c, right.s)
		switch {
		case inL && inR:
			keep = append(keep, c)
		case inL && !emitsUnmatched(how, 0):
			lf = append(lf, c)
		case inR && !emitsUnmatched(how, 1):
			rf = append(rf, c)
		case !inL && !inR:
			return nil, sql.ErrorAt(pl.text, condPos[i], fmt.Sprintf("join condition %s reads neither side: move it to WHERE", c))
		default: // reads only a side whose unmatched rows are output
			side := 0
			if inR {
				side = 1
			}
			guards[side] = append(guards[side], c)
			guardPos = condPos[i]
		}
	}
	ls, rs := left.s, right.s
	if len(lf) > 0 {
		ls = ls.Filter(Column{andAll(lf)})
	}
	if len(rf) > 0 {
		rs = rs.Filter(Column{andAll(rf)})
	}
	if len(keep) == 0 && cross {
		// A cross join with nothing to join on: every row matches every
		// row of the other side, through a constant key.
		ls, rs = ls.WithColumn("__cross#l", Lit(true)), rs.WithColumn("__cross#r", Lit(true))
		keep = []plan.Expr{plan.Binary{Op: plan.OpEq, L: plan.ColumnRef{Name: "__cross#l"}, R: plan.ColumnRef{Name: "__cross#r"}}}
	}
	if len(keep) == 0 {
		return nil, sql.ErrorAt(pl.text, j.At, "the join needs an equality between a column of each side (ON a.k = b.k or USING (k))")
	}
	ls, rs = computedKeys(ls, rs, keep)
	ls, rs = coerceKeys(ls, rs, keep)
	for side, g := range guards {
		if len(g) == 0 {
			continue
		}
		var ok bool
		if side == 0 {
			ls, ok = guardKey(ls, rs, keep, g)
		} else {
			rs, ok = guardKey(rs, ls, keep, g)
		}
		if !ok {
			return nil, sql.ErrorAt(pl.text, guardPos, fmt.Sprintf("join condition %s reads only the side of a %s join whose unmatched rows are kept, and the join has no equality of two columns to guard with it: filter that side in a subquery, or use an inner join", andAll(g), how))
		}
	}
	var s *Stream
	if lStatic && !rStatic {
		// The builder wants the stream on the left: an inner join
		// commutes, and a right outer join is the other's left outer.
		swapped := map[JoinType]JoinType{Inner: Inner, RightOuter: LeftOuter}[how]
		s = rs.Join(ls, Column{andAll(keep)}, swapped)
	} else {
		s = ls.Join(rs, Column{andAll(keep)}, how)
	}
	if s.err != nil {
		pos := j.OnPos
		if j.On == nil {
			pos = j.At
		}
		return nil, sql.ErrorAt(pl.text, pos, strings.TrimPrefix(s.err.Error(), "join: "))
	}
	out := &relation{s: s}
	if how == LeftSemi || how == LeftAnti {
		out.cols = left.cols
		return out, nil
	}
	if len(using) == 0 {
		out.cols = both.cols
		return out, nil
	}
	// USING: each key once, first, as Spark lists them; the sides' copies
	// stay reachable by qualified name.
	isKey := map[string]bool{}
	for i := 0; i < len(using); i += 2 {
		lc, rc := using[i], using[i+1]
		k := relCol{name: lc.name, expr: lc.expr}
		switch how {
		case RightOuter:
			k.expr = rc.expr
		case FullOuter:
			k.expr = plan.Case{Cond: plan.IsNull{E: lc.expr, Negated: true}, Then: lc.expr, Else: rc.expr}
		}
		out.cols = append(out.cols, k)
		isKey[lc.qual+"\x00"+lc.name] = true
		isKey[rc.qual+"\x00"+rc.name] = true
	}
	for _, c := range both.cols {
		if isKey[c.qual+"\x00"+c.name] && !c.hidden {
			c.hidden = true
		}
		out.cols = append(out.cols, c)
	}
	return out, nil
}

// usingCol is the column name of USING on one side.
func (pl *sqlPlanner) usingCol(r *relation, name string, pos int, side string) (relCol, error) {
	var found []relCol
	for _, c := range r.cols {
		if !c.hidden && strings.EqualFold(c.name, name) {
			found = append(found, c)
		}
	}
	switch len(found) {
	case 1:
		if _, ok := found[0].expr.(plan.ColumnRef); !ok {
			return relCol{}, sql.ErrorAt(pl.text, pos, fmt.Sprintf("USING column %s of the %s side is itself a merged key: join with ON instead", name, side))
		}
		return found[0], nil
	case 0:
		return relCol{}, sql.ErrorAt(pl.text, pos, fmt.Sprintf("USING column %q is not a column of the %s side%s", name, side, sql.Suggest(name, visibleNames(r))))
	}
	return relCol{}, sql.ErrorAt(pl.text, pos, fmt.Sprintf("USING column %q is ambiguous on the %s side: it could be %s", name, side, qualifiedNames(found, " or ")))
}

// disjoint renames the columns of right's stream that left's stream also
// has, so that the joined stream's columns are unique; SQL still names
// them as before.
func (pl *sqlPlanner) disjoint(left, right *relation) *relation {
	taken := map[string]bool{}
	for _, f := range left.s.Schema().Fields() {
		taken[f.Name] = true
	}
	fields := right.s.Schema().Fields()
	clash := false
	for _, f := range fields {
		if taken[f.Name] {
			clash = true
		}
	}
	if !clash {
		return right
	}
	for _, f := range fields {
		taken[f.Name] = true
	}
	renamed := map[string]string{}
	cols := make([]Column, len(fields))
	for i, f := range fields {
		cols[i] = Column{plan.ColumnRef{Name: f.Name}}
		if !pl.leftHas(left, f.Name) {
			continue
		}
		// The new name reads as what it is in EXPLAIN: the column of the
		// right side's view.
		base := f.Name
		for _, c := range right.cols {
			if r, ok := c.expr.(plan.ColumnRef); ok && r.Name == f.Name && c.qual != "" {
				base = c.qual + "." + c.name
				break
			}
		}
		name := base
		for n := 2; taken[name]; n++ {
			name = fmt.Sprintf("%s#%d", base, n)
		}
		taken[name] = true
		renamed[f.Name] = name
		cols[i] = Column{plan.Alias{E: plan.ColumnRef{Name: f.Name}, Name: name}}
	}
	out := &relation{s: right.s.Select(cols...)}
	for _, c := range right.cols {
		c.expr = renameRefs(c.expr, renamed)
		out.cols = append(out.cols, c)
	}
	return out
}

func (pl *sqlPlanner) leftHas(left *relation, name string) bool {
	return left.s.Schema().FieldIndices(name) != nil
}

// renameRefs rewrites the column references of e by the map.
func renameRefs(e plan.Expr, to map[string]string) plan.Expr {
	out, _ := rewriteExpr(e, func(x plan.Expr) (plan.Expr, bool, error) {
		if c, ok := x.(plan.ColumnRef); ok {
			if n, ok := to[c.Name]; ok {
				return plan.ColumnRef{Name: n}, true, nil
			}
			return c, true, nil
		}
		return nil, false, nil
	})
	return out
}

// staticJoinAllowed applies Spark's rules for joins with a static side
// (UnsupportedOperationChecker), with its messages as Spark 4.2 gives
// them: the static side's unmatched rows are never final, so it cannot be
// a preserved side.
func staticJoinAllowed(how JoinType, lStatic, rStatic bool) error {
	switch {
	case lStatic && rStatic:
		return fmt.Errorf("a join of two static tables is not supported in a streaming query: join one with a stream")
	case !lStatic && rStatic && how == RightOuter:
		return fmt.Errorf("RightOuter join with a streaming DataFrame/Dataset on the left and a static DataFrame/DataSet on the right not supported")
	case !lStatic && rStatic && how == FullOuter:
		return fmt.Errorf("FullOuter joins with streaming DataFrames/Datasets on the left and a static DataFrame/Dataset on the right is not supported")
	case lStatic && !rStatic && how == FullOuter:
		return fmt.Errorf("FullOuter joins with streaming DataFrames/Datasets on the right and a static DataFrame/Dataset on the left is not supported")
	case !rStatic && how == LeftAnti:
		return fmt.Errorf("LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported")
	case lStatic && !rStatic && (how == LeftOuter || how == LeftSemi):
		return fmt.Errorf("%s join with a streaming DataFrame/Dataset on the right and a static DataFrame/Dataset on the left is not supported", sparkJoinName[how])
	}
	return nil
}

// sparkJoinName is a join type as Spark's messages name it.
var sparkJoinName = map[JoinType]string{Inner: "Inner", LeftOuter: "LeftOuter", RightOuter: "RightOuter", FullOuter: "FullOuter", LeftSemi: "LeftSemi", LeftAnti: "LeftAnti"}

func emitsUnmatched(how JoinType, side int) bool {
	return (&plan.Join{How: how}).EmitsUnmatched(side)
}

// reads reports whether e reads a column of s.
func reads(e plan.Expr, s *Stream) bool {
	found := false
	plan.Walk(e, func(x plan.Expr) {
		if c, ok := x.(plan.ColumnRef); ok && s.Schema().FieldIndices(c.Name) != nil {
			found = true
		}
	})
	return found
}

func conjuncts(e plan.Expr) []plan.Expr {
	if b, ok := e.(plan.Binary); ok && b.Op == plan.OpAnd {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []plan.Expr{e}
}

func andAll(es []plan.Expr) plan.Expr {
	out := es[0]
	for _, e := range es[1:] {
		out = plan.Binary{Op: plan.OpAnd, L: out, R: e}
	}
	return out
}

func visibleNames(r *relation) []string {
	var names []string
	for _, c := range r.cols {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	return names
}

func qualifiedNames(cs []relCol, sep string) string {
	var out []string
	for _, c := range cs {
		if c.qual == "" {
			out = append(out, c.name)
		} else {
			out = append(out, c.qual+"."+c.name)
		}
	}
	sort.Strings(out)
	return strings.Join(out, sep)
}
