package millrace

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sql"
)

// Session is a catalog of streams registered by name, which SQL queries
// read: Spark's SparkSession with its temporary views. It is safe for
// concurrent use.
type Session struct {
	mu    sync.Mutex
	views map[string]*Stream // by lower-case name
	names map[string]string  // lower-case name → name as registered
	ddl   ddlState           // declared tables and settings: session_ddl.go
	opts  []QueryOption      // applied to the queries INSERT INTO starts: session_options.go
}

// NewSession returns a Session with no views.
func NewSession() *Session {
	return &Session{views: map[string]*Stream{}, names: map[string]string{}}
}

// CreateTempView registers s under name for SQL queries, replacing a view
// of the same name (Spark's createOrReplaceTempView). Names are
// case-insensitive, as Spark's. The stream is used as it is: declare its
// watermark with WithWatermark before registering it. A static table is
// registered likewise, as ReadTable(t): SQL joins it with streams (a
// stream-static join).
func (se *Session) CreateTempView(name string, s *Stream) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.views[strings.ToLower(name)] = s
	se.names[strings.ToLower(name)] = name
}

// SQL plans a Spark SQL query over the session's views and returns it as a
// Stream, which the builder API continues (Filter, WriteStream …) as any
// other. The query is [WITH …] SELECT [DISTINCT] items FROM from [WHERE e]
// [GROUP BY e, …] [HAVING e], joined by UNION ALL, where from is a view, a
// (subquery) or joins of them; package sql has the grammar. It maps onto
// the builder: WHERE is Filter, the select list Select, GROUP BY
// GroupBy(...).Agg(...) (window(...) keys included), HAVING a Filter
// after the aggregation, DISTINCT a GroupBy over all the selected
// columns with no aggregate (Spark plans a streaming DISTINCT as an
// aggregation, not a dropDuplicates), a JOIN Stream.Join
// (session_join.go), a WITH query a stream planned once and read as a
// view, ORDER BY … LIMIT OrderBy(…).Limit(n) over the query's output
// columns (allowed by Start over an aggregation in Complete mode, as in
// Spark).
//
// Names resolve as Spark resolves them (session_resolve.go): b.price is
// column price of the view or alias b, else field price of column b;
// names are case-insensitive; a name two joined views have must be
// qualified. The output column of b.price is price; UNION ALL matches its
// inputs' columns by position and names them after the first input's.
// Unlike Spark, a stream cannot have two columns of one name: SELECT *
// over a join of views sharing a column name is refused (list the
// columns, renaming one).
//
// A syntax error, an unknown view or column (with the nearest name), an
// ambiguous column or an analysis error (a type error …) is returned here,
// before the query starts, as a *sql.Error with line, column and a caret
// wherever the text has a place for it. The rules of the output mode and
// of watermarks (an outer stream-stream join needs watermarks and a time
// range, Complete mode an aggregation …) are checked by Start, with
// Spark's messages, as for builder queries.
func (se *Session) SQL(ctx context.Context, text string) (*Stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, err := sql.ParseQuery(text)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	s, err := (&sqlPlanner{se: se, text: text}).query(q)
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	if s.err != nil {
		return nil, fmt.Errorf("sql: %w", s.err)
	}
	if s, err = pruned(s); err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	return s, nil
}

type sqlPlanner struct {
	se   *Session
	text string
	// tables are the streams of the declared tables the statement reads.
	tables map[string]*Stream
	// sel is the SELECT being planned, whose references position the
	// errors of names.
	sel *sql.Select
	// ctes are the WITH queries in scope, innermost last.
	ctes []map[string]*Stream
	// where are the conjuncts of the WHERE of the SELECT being planned.
	where []*whereConj
	// nullSide is set while planning a side of an outer join whose
	// unmatched rows come out null-extended: WHERE, applied after that
	// join, must not move into an inner join below it.
	nullSide bool
}

func (pl *sqlPlanner) view(t *sql.Table) (*Stream, error) {
	for i := len(pl.ctes) - 1; i >= 0; i-- {
		if s, ok := pl.ctes[i][strings.ToLower(t.Name)]; ok {
			return s, nil
		}
	}
	pl.se.mu.Lock()
	defer pl.se.mu.Unlock()
	if s, ok := pl.se.views[strings.ToLower(t.Name)]; ok {
		if s.err != nil {
			return s, nil
		}
		return s, nil
	}
	if s, ok, err := pl.tableLocked(t); ok { // a declared table: session_tables.go
		return s, err
	}
	names := pl.se.namesLocked()
	for _, m := range pl.ctes {
		for n := range m {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return nil, sql.ErrorAt(pl.text, t.At, fmt.Sprintf("view %q not found%s", t.Name, sql.Suggest(t.Name, names)))
}

func (pl *sqlPlanner) query(q sql.Query) (*Stream, error) {
	switch q := q.(type) {
	case *sql.Union:
		var ins []*Stream
		for _, in := range q.Inputs {
			s, err := pl.query(in)
			if err != nil {
				return nil, err
			}
			ins = append(ins, byPosition(s, ins))
		}
		return ins[0].Union(ins[1:]...), nil
	case *sql.Select:
		return pl.selectStmt(q)
	case *sql.Sorted:
		return pl.sorted(q)
	case *sql.With:
		// Each WITH query is planned once, in order; a later one and the
		// query read it as a view (a stream read twice is one source).
		scope := map[string]*Stream{}
		pl.ctes = append(pl.ctes, scope)
		defer func() { pl.ctes = pl.ctes[:len(pl.ctes)-1] }()
		for _, c := range q.CTEs {
			s, err := pl.query(c.Query)
			if err != nil {
				return nil, err
			}
			if s.err != nil {
				return nil, sql.ErrorAt(pl.text, c.At, fmt.Sprintf("WITH %s: %v", c.Name, s.err))
			}
			scope[strings.ToLower(c.Name)] = s
		}
		return pl.query(q.Query)
	}
	return nil, fmt.Errorf("query %T not supported", q)
}

func (pl *sqlPlanner) selectStmt(q *sql.Select) (*Stream, error) {
	outer, outerWhere, outerNull := pl.sel, pl.where, pl.nullSide
	defer func() { pl.sel, pl.where, pl.nullSide = outer, outerWhere, outerNull }()
	pl.sel, pl.where, pl.nullSide = q, nil, false
	if q.Where != nil {
		// WHERE's conjuncts, which a cross join in FROM may take as its
		// condition (session_join.go).
		for _, c := range conjuncts(q.Where) {
			pl.where = append(pl.where, &whereConj{e: c})
		}
	}
	rel, err := pl.from(q.From)
	if err != nil {
		return nil, err
	}
	pl.sel = q // planning FROM's subqueries moved it
	if q, err = pl.unusedWhere(q); err != nil {
		return nil, err
	}
	s := rel.s
	if s.err != nil {
		return s, nil
	}
	if q, err = pl.resolve(q, rel); err != nil {
		return nil, err
	}
	if q.Where != nil {
		if hasAgg(q.Where) {
			return nil, sql.ErrorAt(pl.text, q.WherePos, fmt.Sprintf("where %s: aggregate functions are not allowed in WHERE; use HAVING", q.Where))
		}
		s = s.Filter(Column{q.Where})
		if s.err != nil {
			return nil, sql.ErrorAt(pl.text, q.WherePos, s.err.Error())
		}
	}
	aggregating := len(q.GroupBy) > 0 || q.Having != nil
	for _, it := range q.Items {
		if !it.Star && hasAgg(it.Expr) {
			aggregating = true
		}
	}
	if aggregating {
		var err error
		if s, err = pl.aggregate(s, q); err != nil {
			return nil, err
		}
	} else {
		res := &resolver{pl: pl, rel: rel, sel: q}
		var cols []Column
		var owner []int // the item of each column
		for i, it := range q.Items {
			if it.Star {
				es, err := res.star(it.Qualifier, it.Pos)
				if err != nil {
					return nil, err
				}
				for _, e := range es {
					cols = append(cols, Column{e})
					owner = append(owner, i)
				}
				continue
			}
			cols = append(cols, Column{it.Expr})
			owner = append(owner, i)
		}
		if err := pl.uniqueNames(q, rel, cols); err != nil {
			return nil, err
		}
		if !isIdentity(cols, s) {
			in := s
			if s = s.Select(cols...); s.err != nil {
				return nil, pl.itemError(q, in, cols, owner, s.err)
			}
		}
	}
	if q.Distinct {
		s = distinct(s) // session_distinct.go
	}
	return s, nil
}

// aggregate plans GROUP BY, the select list and HAVING: the aggregate
// functions of the select list and of HAVING become the Agg of a
// GroupBy(keys).Agg(...), HAVING a Filter over its output, and the select
// list a Select over it, left out when it would select the aggregation's
// output as it is.
func (pl *sqlPlanner) aggregate(s *Stream, q *sql.Select) (*Stream, error) {
	if s.err != nil {
		return s, nil
	}
	in := s.Schema()
	r := &aggRewriter{}
	for _, g := range q.GroupBy {
		k := plan.Unalias(g.Expr)
		// Spark's GROUP BY 2 (a position in the select list) and GROUP BY
		// alias (of a select item, when no input column has that name).
		switch x := k.(type) {
		case plan.Literal:
			n, ok := x.Value.(int32)
			if !ok {
				break
			}
			if n < 1 || int(n) > len(q.Items) {
				return nil, sql.ErrorAt(pl.text, g.Pos, fmt.Sprintf("GROUP BY position %d is not in the select list (1 to %d)", n, len(q.Items)))
			}
			it := q.Items[n-1]
			if it.Star {
				return nil, sql.ErrorAt(pl.text, g.Pos, fmt.Sprintf("GROUP BY position %d is a *", n))
			}
			k = plan.Unalias(it.Expr)
		case plan.ColumnRef:
			if in.FieldIndices(x.Name) != nil {
				break
			}
			for _, it := range q.Items {
				if a, ok := it.Expr.(plan.Alias); ok && strings.EqualFold(a.Name, x.Name) {
					k = a.E
					break
				}
			}
		}
		if hasAgg(k) {
			return nil, sql.ErrorAt(pl.text, g.Pos, fmt.Sprintf("aggregate functions cannot be GROUP BY keys: %s", k))
		}
		r.keys = append(r.keys, k)
		r.keyNames = append(r.keyNames, plan.OutputName(k))
	}
	var proj []plan.Expr
	for _, it := range q.Items {
		if it.Star {
			return nil, sql.ErrorAt(pl.text, it.Pos, "SELECT * is not allowed with GROUP BY or aggregate functions")
		}
		name := plan.OutputName(it.Expr)
		e := plan.Unalias(it.Expr)
		var out plan.Expr
		if a, ok := e.(plan.Agg); ok {
			out = plan.ColumnRef{Name: r.addAgg(a, name)}
		} else {
			out = r.rewrite(e)
		}
		if r.err != nil {
			return nil, r.err
		}
		if c, ok := out.(plan.ColumnRef); !ok || c.Name != name {
			out = plan.Alias{E: out, Name: name}
		}
		proj = append(proj, out)
	}
	var having plan.Expr
	if q.Having != nil {
		having = r.rewrite(q.Having)
		if r.err != nil {
			return nil, fmt.Errorf("having: %w", r.err)
		}
	}
	if len(r.aggs) == 0 {
		// GROUP BY without aggregate functions: Spark groups, yielding the
		// distinct keys. plan's Aggregate needs one; count and drop it.
		r.addAgg(plan.Agg{Func: plan.AggCountAll}, "")
	}
	keys := make([]Column, len(r.keys))
	for i, k := range r.keys {
		keys[i] = Column{k}
	}
	aggs := make([]Column, len(r.aggs))
	for i, a := range r.aggs {
		aggs[i] = Column{plan.Alias{E: a, Name: r.aggNames[i]}}
	}
	s = s.GroupBy(keys...).Agg(aggs...)
	if s.err != nil {
		return s, nil
	}
	if having != nil {
		s = s.Filter(Column{having})
	}
	if s.err != nil {
		return s, nil
	}
	fields := s.Schema().Fields()
	identity := len(proj) == len(fields)
	for i := 0; identity && i < len(proj); i++ {
		identity = reflect.DeepEqual(proj[i], plan.ColumnRef{Name: fields[i].Name})
	}
	if identity {
		return s, nil
	}
	cols := make([]Column, len(proj))
	for i, e := range proj {
		cols[i] = Column{e}
	}
	return s.Select(cols...), nil
}

func hasAgg(e plan.Expr) bool {
	found := false
	plan.Walk(e, func(x plan.Expr) {
		if _, ok := x.(plan.Agg); ok {
			found = true
		}
	})
	return found
}

// aggRewriter rewrites expressions over the input of an aggregation into
// expressions over its output: a sub-expression equal to a key becomes a
// reference to the key's column, an aggregate function a reference to the
// column that computes it.
type aggRewriter struct {
	keys     []plan.Expr
	keyNames []string
	aggs     []plan.Agg
	aggNames []string
	err      error
}

// addAgg returns the output column of aggregate a, adding it under name
// (or a hidden name when name is "") unless it is there already.
func (r *aggRewriter) addAgg(a plan.Agg, name string) string {
	for i, b := range r.aggs {
		if reflect.DeepEqual(a, b) && (name == "" || name == r.aggNames[i]) {
			return r.aggNames[i]
		}
	}
	if name == "" {
		name = fmt.Sprintf("__agg%d", len(r.aggs))
	}
	r.aggs = append(r.aggs, a)
	r.aggNames = append(r.aggNames, name)
	return name
}

func (r *aggRewriter) rewrite(e plan.Expr) plan.Expr {
	for i, k := range r.keys {
		if reflect.DeepEqual(e, k) {
			return plan.ColumnRef{Name: r.keyNames[i]}
		}
	}
	switch x := e.(type) {
	case plan.Agg:
		if x.Arg != nil && hasAgg(x.Arg) {
			r.fail(fmt.Errorf("%s: aggregate functions cannot be nested", x))
		}
		return plan.ColumnRef{Name: r.addAgg(x, "")}
	case plan.ColumnRef:
		// window and session_window name the window() or
		// session_window() key, as in Spark.
		for i, k := range r.keys {
			switch k.(type) {
			case plan.Window, plan.Session:
				if strings.EqualFold(x.Name, r.keyNames[i]) {
					return plan.ColumnRef{Name: r.keyNames[i]}
				}
			}
		}
		r.fail(fmt.Errorf("column %q is neither in GROUP BY nor inside an aggregate function", x.Name))
		return e
	case plan.Literal, plan.CurrentTimestamp, plan.Window, plan.Session:
	default:
		return plan.MapChildren(e, r.rewrite)
	}
	// Literals, current_timestamp(), and window()s that are not keys:
	// kept only when they read no column.
	reads := false
	plan.Walk(e, func(y plan.Expr) {
		switch y.(type) {
		case plan.ColumnRef, plan.Agg:
			reads = true
		}
	})
	if reads {
		r.fail(fmt.Errorf("%s is neither a GROUP BY key nor computed from keys and aggregate functions", e))
	}
	return e
}

func (r *aggRewriter) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}
