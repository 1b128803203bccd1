package millrace

import (
	"fmt"
	"sort"
	"strings"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// resolver resolves the column names of a SELECT's expressions over the
// relation its FROM reads, as Spark's analyzer does: a dotted name a.b.c
// is column b of the view (or alias) a, then field c, when a is a
// qualifier of the relation; else column a and fields b, c. Names are
// case-insensitive. A name that two views have is ambiguous unless
// qualified; a name not found is an error naming the nearest one.
// Errors are positioned at the name (sql.Select.RefPos).
type resolver struct {
	pl  *sqlPlanner
	rel *relation
	sel *sql.Select
	// aliases are the select list's aliases, which GROUP BY (kept as
	// names, for aggregate to match) and HAVING (replaced by their
	// expression) may use when no column has the name.
	aliases   map[string]plan.Expr
	keepAlias bool
	// keyNames are the names of GROUP BY's window() and session_window()
	// keys ("window", "session_window"), which the select list and HAVING
	// may use, with their fields (window.start), as in Spark: left for
	// the aggregation to resolve.
	keyNames map[string]bool
}

// expr resolves the names of e; from is the byte offset of the clause e
// is in, where the search for a name's position starts.
func (r *resolver) expr(e plan.Expr, from int) (plan.Expr, error) {
	return rewriteExpr(e, func(x plan.Expr) (plan.Expr, bool, error) {
		parts, ok := nameParts(x)
		if !ok {
			return nil, false, nil
		}
		out, err := r.name(parts, from)
		return out, true, err
	})
}

// item resolves a select-list expression, keeping the output name Spark
// gives it (b.price is "price") when its columns are renamed inside.
func (r *resolver) item(e plan.Expr, from int) (plan.Expr, error) {
	out, err := r.expr(e, from)
	if err != nil {
		return nil, err
	}
	if want := plan.OutputName(e); plan.OutputName(out) != want {
		out = plan.Alias{E: plan.Unalias(out), Name: want}
	}
	return out, nil
}

// star expands * (qual "") or qual.* into the relation's columns.
func (r *resolver) star(qual string, pos int) ([]plan.Expr, error) {
	var out []plan.Expr
	found := false
	for _, c := range r.rel.cols {
		if qual != "" && !strings.EqualFold(c.qual, qual) {
			continue
		}
		found = true
		if c.hidden && qual == "" {
			continue
		}
		e := c.expr
		if plan.OutputName(e) != c.name {
			e = plan.Alias{E: e, Name: c.name}
		}
		out = append(out, e)
	}
	if qual != "" && !found {
		return nil, sql.ErrorAt(r.pl.text, pos, fmt.Sprintf("%s.* names no view of the FROM clause%s", qual, sql.Suggest(qual, r.quals())))
	}
	return out, nil
}

// name resolves a dotted name.
func (r *resolver) name(parts []string, from int) (plan.Expr, error) {
	fields := func(e plan.Expr, rest []string) plan.Expr {
		for _, f := range rest {
			e = plan.GetField{E: e, Name: f}
		}
		return e
	}
	if len(parts) >= 2 {
		var hits []relCol
		for _, c := range r.rel.cols {
			if c.qual != "" && strings.EqualFold(c.qual, parts[0]) && strings.EqualFold(c.name, parts[1]) {
				hits = append(hits, c)
			}
		}
		switch {
		case len(hits) == 1:
			return fields(hits[0].expr, parts[2:]), nil
		case len(hits) > 1:
			return nil, r.errAt(from, parts[:2], fmt.Sprintf("column reference %s.%s is ambiguous: %s names more than one view of the FROM clause; give them different aliases", parts[0], parts[1], parts[0]))
		}
	}
	var hits []relCol
	for _, c := range r.rel.cols {
		if !c.hidden && strings.EqualFold(c.name, parts[0]) {
			hits = append(hits, c)
		}
	}
	switch {
	case len(hits) == 1:
		return fields(hits[0].expr, parts[1:]), nil
	case len(hits) > 1:
		return nil, r.errAt(from, parts[:1], fmt.Sprintf("column reference %q is ambiguous: it could be %s; qualify it", parts[0], qualifiedNames(hits, " or ")))
	}
	if r.keyNames[strings.ToLower(parts[0])] {
		return fields(plan.ColumnRef{Name: parts[0]}, parts[1:]), nil
	}
	if a, ok := r.aliases[strings.ToLower(parts[0])]; ok && len(parts) == 1 {
		if r.keepAlias {
			return plan.ColumnRef{Name: parts[0]}, nil
		}
		return plan.Unalias(a), nil
	}
	if len(parts) >= 2 && r.isQual(parts[0]) {
		var names []string
		for _, c := range r.rel.cols {
			if strings.EqualFold(c.qual, parts[0]) {
				names = append(names, c.name)
			}
		}
		return nil, r.errAt(from, parts[:2], fmt.Sprintf("column %q not found in %s%s", parts[1], parts[0], sql.Suggest(parts[1], names)))
	}
	if len(parts) >= 2 {
		for _, c := range r.rel.cols {
			if c.view != "" && strings.EqualFold(c.view, parts[0]) {
				return nil, r.errAt(from, parts[:2], fmt.Sprintf("column %q not found: view %s has the alias %s in FROM, which hides its name; write %s.%s", parts[0], c.view, c.qual, c.qual, parts[1]))
			}
		}
	}
	var cands []string
	for _, c := range r.rel.cols {
		if !c.hidden {
			cands = append(cands, c.name)
		}
	}
	msg := fmt.Sprintf("column %q not found%s", parts[0], sql.Suggest(parts[0], cands))
	if len(parts) >= 2 && len(r.quals()) > 0 {
		msg = fmt.Sprintf("column %q not found, nor a view %q of the FROM clause to qualify %q%s", parts[0], parts[0], parts[1], sql.Suggest(parts[0], append(cands, r.quals()...)))
	}
	return nil, r.errAt(from, parts[:1], msg)
}

func (r *resolver) errAt(from int, parts []string, msg string) error {
	pos := from
	if r.sel != nil {
		pos = r.sel.RefPos(from, parts...)
	}
	return sql.ErrorAt(r.pl.text, pos, msg)
}

func (r *resolver) isQual(q string) bool {
	for _, c := range r.rel.cols {
		if c.qual != "" && strings.EqualFold(c.qual, q) {
			return true
		}
	}
	return false
}

func (r *resolver) quals() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range r.rel.cols {
		if c.qual != "" && !seen[c.qual] {
			seen[c.qual] = true
			out = append(out, c.qual)
		}
	}
	sort.Strings(out)
	return out
}

// nameParts returns the parts of a name as parsed: a ColumnRef, or field
// accesses over one (a.b.c).
func nameParts(e plan.Expr) ([]string, bool) {
	switch x := e.(type) {
	case plan.ColumnRef:
		return []string{x.Name}, true
	case plan.GetField:
		p, ok := nameParts(x.E)
		if !ok {
			return nil, false
		}
		return append(p, x.Name), true
	}
	return nil, false
}

// rewriteExpr rebuilds e top-down: fn replaces a sub-expression
// (handled) or lets rewriteExpr descend into its children.
func rewriteExpr(e plan.Expr, fn func(plan.Expr) (plan.Expr, bool, error)) (plan.Expr, error) {
	if e == nil {
		return nil, nil
	}
	if out, ok, err := fn(e); ok || err != nil {
		return out, err
	}
	var err error
	out := plan.MapChildren(e, func(x plan.Expr) plan.Expr {
		if err != nil {
			return x
		}
		var y plan.Expr
		y, err = rewriteExpr(x, fn)
		return y
	})
	return out, err
}

// resolve returns q with the names of its expressions resolved over rel
// (its * items are expanded later, by star).
func (pl *sqlPlanner) resolve(q *sql.Select, rel *relation) (*sql.Select, error) {
	out := *q
	res := &resolver{pl: pl, rel: rel, sel: q, aliases: map[string]plan.Expr{}, keyNames: map[string]bool{}}
	for _, g := range q.GroupBy {
		switch plan.Unalias(g.Expr).(type) {
		case plan.Window:
			res.keyNames["window"] = true
		case plan.Session:
			res.keyNames["session_window"] = true
		}
	}
	out.Items = make([]sql.Item, len(q.Items))
	for i, it := range q.Items {
		out.Items[i] = it
		if it.Star {
			continue
		}
		e, err := res.item(it.Expr, it.Pos)
		if err != nil {
			return nil, err
		}
		out.Items[i].Expr = e
		if a, ok := it.Expr.(plan.Alias); ok {
			res.aliases[strings.ToLower(a.Name)] = e
		}
	}
	var err error
	if q.Where != nil {
		noAlias := &resolver{pl: pl, rel: rel, sel: q}
		if out.Where, err = noAlias.expr(q.Where, q.Start); err != nil {
			return nil, err
		}
	}
	res.keepAlias = true
	out.GroupBy = make([]sql.Item, len(q.GroupBy))
	for i, g := range q.GroupBy {
		out.GroupBy[i] = g
		if out.GroupBy[i].Expr, err = res.expr(g.Expr, g.Pos); err != nil {
			return nil, err
		}
	}
	res.keepAlias = false
	if q.Having != nil {
		if out.Having, err = res.expr(q.Having, q.HavingPos); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// isIdentity reports whether cols select s's columns as they are.
func isIdentity(cols []Column, s *Stream) bool {
	if s.err != nil {
		return true // nothing to select from: s keeps its error
	}
	fields := s.Schema().Fields()
	if len(cols) != len(fields) {
		return false
	}
	for i, c := range cols {
		if r, ok := c.e.(plan.ColumnRef); !ok || r.Name != fields[i].Name {
			return false
		}
	}
	return true
}

// uniqueNames refuses a select list with two columns of one name where a
// * made them, pointing at the *: Spark keeps both (a join's two adId),
// but a Millrace stream's columns have unique names.
func (pl *sqlPlanner) uniqueNames(q *sql.Select, rel *relation, cols []Column) error {
	star := -1
	for _, it := range q.Items {
		if it.Star {
			star = it.Pos
			break
		}
	}
	if star < 0 {
		return nil // Select's own error names the duplicate
	}
	seen := map[string]bool{}
	for _, c := range cols {
		n := plan.OutputName(c.e)
		if !seen[n] {
			seen[n] = true
			continue
		}
		var same []relCol
		for _, rc := range rel.cols {
			if !rc.hidden && rc.name == n {
				same = append(same, rc)
			}
		}
		return sql.ErrorAt(pl.text, star, fmt.Sprintf("the select list has two columns named %q (%s), which a stream cannot have (Spark allows it): list the columns, renaming one (%s AS other)", n, qualifiedNames(same, " and "), qualifiedNames(same[len(same)-1:], "")))
	}
	return nil
}

// byPosition renames the columns of a UNION ALL input after those of the
// first input (ins[0]), as Spark's UNION matches columns by position and
// names them after its first input.
func byPosition(s *Stream, ins []*Stream) *Stream {
	if len(ins) == 0 || s.err != nil || ins[0].err != nil {
		return s
	}
	first, fields := ins[0].Schema().Fields(), s.Schema().Fields()
	if len(first) != len(fields) {
		return s // Union names the mismatch
	}
	cols := make([]Column, len(fields))
	same := true
	for i, f := range fields {
		cols[i] = Column{plan.ColumnRef{Name: f.Name}}
		if f.Name != first[i].Name {
			cols[i] = Column{plan.Alias{E: plan.ColumnRef{Name: f.Name}, Name: first[i].Name}}
			same = false
		}
	}
	if same {
		return s
	}
	return s.Select(cols...)
}

// itemError positions err, the error of selecting cols from in, at the
// first select item whose expression alone fails to select (owner[i] is
// the item of cols[i]), or at the item repeating an output name.
func (pl *sqlPlanner) itemError(q *sql.Select, in *Stream, cols []Column, owner []int, err error) error {
	seen := map[string]bool{}
	for i, c := range cols {
		it := q.Items[owner[i]]
		if !it.Star && in.Select(c).err != nil {
			return sql.ErrorAt(pl.text, it.Pos, err.Error())
		}
		n := plan.OutputName(c.e)
		if seen[n] {
			return sql.ErrorAt(pl.text, it.Pos, err.Error())
		}
		seen[n] = true
	}
	return err
}

// sorted plans ORDER BY … LIMIT over a query's output columns (by name,
// or by position: ORDER BY 2) as OrderBy and Limit, which Start allows
// over an aggregation in Complete mode only, as Spark.
func (pl *sqlPlanner) sorted(q *sql.Sorted) (*Stream, error) {
	s, err := pl.query(q.Query)
	if err != nil || s.err != nil {
		return s, err
	}
	res := &resolver{pl: pl, rel: relationOf(s, "")}
	fields := s.Schema().Fields()
	var keys []SortKey
	for _, it := range q.OrderBy {
		e := it.Expr
		if l, ok := e.(plan.Literal); ok {
			n, ok := l.Value.(int32)
			if !ok || n < 1 || int(n) > len(fields) {
				return nil, sql.ErrorAt(pl.text, it.Pos, fmt.Sprintf("ORDER BY position %s is not in the select list (1 to %d)", l, len(fields)))
			}
			e = plan.ColumnRef{Name: fields[n-1].Name}
		} else if e, err = res.expr(e, it.Pos); err != nil {
			return nil, err
		}
		keys = append(keys, SortKey{E: e, Desc: it.Desc, NullsFirst: it.NullsFirst})
	}
	if len(keys) > 0 {
		s = s.OrderBy(keys...)
	}
	if q.Limit >= 0 {
		s = s.Limit(q.Limit)
	}
	if s.err != nil {
		return nil, sql.ErrorAt(pl.text, q.At, s.err.Error())
	}
	return s, nil
}
