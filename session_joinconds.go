package millrace

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// The rewrites of a join's conditions that Spark's analyzer and optimizer
// make and plan.Join does not: WHERE conjuncts as a cross join's
// condition, conditions on a side whose unmatched rows are output,
// equalities of keys of different types or of expressions. Each gives a
// side a hidden column (withHidden) that the join's equality reads.

// guardKey applies conditions g, which read only side s of a join whose
// unmatched rows of s are output, as Spark does: a row of s failing them
// matches nothing, and is output unmatched. s gets a copy of one of its
// equi-join keys that is null where g is not true (CASE WHEN g THEN key
// END), and the equality of keep uses it instead; a null key matches
// nothing. The copy is not a column SQL sees. It returns false when keep
// has no equality of two columns.
func guardKey(s, other *Stream, keep []plan.Expr, g []plan.Expr) (*Stream, bool) {
	for i, c := range keep {
		l, r, ok := columnEquality(c)
		if !ok {
			continue
		}
		key := l
		if s.Schema().FieldIndices(key.Name) == nil {
			key = r
		}
		if s.Schema().FieldIndices(key.Name) == nil {
			continue
		}
		s, name := withHidden(s, other, "__on_"+key.Name, plan.Case{Cond: andAll(g), Then: key})
		if key == l {
			l = plan.ColumnRef{Name: name}
		} else {
			r = plan.ColumnRef{Name: name}
		}
		keep[i] = plan.Binary{Op: plan.OpEq, L: l, R: r}
		return s, true
	}
	return s, false
}

// whereConj is a conjunct of a WHERE clause; used when a cross join took
// it as its condition.
type whereConj struct {
	e    plan.Expr
	used bool
}

// crossConditions returns the WHERE conjuncts that resolve over the join
// of left and right (rel) and read one side (with oneSide) or, with
// bothSides, both, marking them used.
func (pl *sqlPlanner) crossConditions(rel *relation, left, right *Stream, oneSide, bothSides bool) (conds []plan.Expr, pos []int) {
	for _, w := range pl.where {
		if w.used {
			continue
		}
		res := &resolver{pl: pl, rel: rel, sel: pl.sel}
		e, err := res.expr(w.e, pl.sel.WherePos)
		if err != nil || hasAgg(e) {
			continue // for WHERE to report, or a name of another view
		}
		inL, inR := reads(e, left), reads(e, right)
		if (bothSides && inL && inR) || (oneSide && inL != inR) {
			w.used = true
			conds = append(conds, e)
			pos = append(pos, pl.sel.WherePos)
		}
	}
	return conds, pos
}

// unusedWhere returns q without the WHERE conjuncts a cross join took.
func (pl *sqlPlanner) unusedWhere(q *sql.Select) (*sql.Select, error) {
	var rest []plan.Expr
	taken := false
	for _, w := range pl.where {
		if w.used {
			taken = true
			continue
		}
		rest = append(rest, w.e)
	}
	if !taken {
		return q, nil
	}
	out := *q
	out.Where = nil
	if len(rest) > 0 {
		out.Where = andAll(rest)
	}
	return &out, nil
}

// columnEquality reports whether c is an equality of two columns, l = r.
func columnEquality(c plan.Expr) (l, r plan.ColumnRef, ok bool) {
	b, ok := c.(plan.Binary)
	if !ok || b.Op != plan.OpEq {
		return l, r, false
	}
	l, okL := b.L.(plan.ColumnRef)
	r, okR := b.R.(plan.ColumnRef)
	return l, r, okL && okR
}

// coerceKeys casts the sides of the equalities of keep whose columns have
// different types to their common type, as Spark's type coercion does
// (an INT key joins a BIGINT one; a string key is cast to the number it
// is compared with): the side to cast gets a hidden cast copy of its
// column, which the equality uses.
func coerceKeys(ls, rs *Stream, keep []plan.Expr) (*Stream, *Stream) {
	for i, c := range keep {
		l, r, ok := columnEquality(c)
		if !ok {
			continue
		}
		lt, errL := plan.TypeOf(l, ls.Schema())
		rt, errR := plan.TypeOf(r, rs.Schema())
		if errL != nil || errR != nil { // written the other way round
			l, r = r, l
			if lt, errL = plan.TypeOf(l, ls.Schema()); errL != nil {
				continue
			}
			if rt, errR = plan.TypeOf(r, rs.Schema()); errR != nil {
				continue
			}
		}
		if arrow.TypeEqual(lt, rt) {
			continue
		}
		to, ok := plan.CommonType(lt, rt)
		if !ok {
			if to = plan.ComparisonCast(lt, rt); to == nil {
				to = plan.ComparisonCast(rt, lt)
			}
		}
		if to == nil {
			continue // Join names the mismatch
		}
		if !arrow.TypeEqual(lt, to) {
			var n string
			ls, n = withHidden(ls, rs, "__key_"+l.Name, plan.Cast{E: l, To: to})
			l = plan.ColumnRef{Name: n}
		}
		if !arrow.TypeEqual(rt, to) {
			var n string
			rs, n = withHidden(rs, ls, "__key_"+r.Name, plan.Cast{E: r, To: to})
			r = plan.ColumnRef{Name: n}
		}
		keep[i] = plan.Binary{Op: plan.OpEq, L: l, R: r}
	}
	return ls, rs
}

// withHidden adds to s a column computing e, named base unless s or
// other has a column of that name (then base#2, base#3 …), and returns
// its name. SQL does not see it: no relation column reads it.
func withHidden(s, other *Stream, base string, e plan.Expr) (*Stream, string) {
	name := base
	for n := 2; s.Schema().FieldIndices(name) != nil || other.Schema().FieldIndices(name) != nil; n++ {
		name = fmt.Sprintf("%s#%d", base, n)
	}
	var cols []Column
	for _, f := range s.Schema().Fields() {
		cols = append(cols, Column{plan.ColumnRef{Name: f.Name}})
	}
	cols = append(cols, Column{plan.Alias{E: e, Name: name}})
	return s.Select(cols...), name
}

// computedKeys turns the equalities of keep between an expression of one
// side and one of the other (ON lower(a.name) = b.name, a.k + 1 = b.k)
// into equalities of columns, which Join takes as keys: a side gets a
// hidden column computing its expression.
func computedKeys(ls, rs *Stream, keep []plan.Expr) (*Stream, *Stream) {
	add := func(s, other *Stream, e plan.Expr) (*Stream, plan.Expr) {
		if _, ok := e.(plan.ColumnRef); ok {
			return s, e
		}
		s, name := withHidden(s, other, "__key", e)
		return s, plan.ColumnRef{Name: name}
	}
	for i, c := range keep {
		b, ok := c.(plan.Binary)
		if !ok || b.Op != plan.OpEq {
			continue
		}
		l, r := b.L, b.R
		if reads(l, rs) || reads(r, ls) {
			l, r = r, l
		}
		if reads(l, rs) || reads(r, ls) || !reads(l, ls) || !reads(r, rs) {
			continue // not one side's expression against the other's
		}
		ls, l = add(ls, rs, l)
		rs, r = add(rs, ls, r)
		keep[i] = plan.Binary{Op: plan.OpEq, L: l, R: r}
	}
	return ls, rs
}
