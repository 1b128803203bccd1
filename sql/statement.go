package sql

import (
	"strings"

	"github.com/millrace/millrace/plan"
)

// Query is a parsed query: a *Select, a *Union of queries, or a *With
// (common table expressions before a query).
type Query interface {
	// Pos is the byte offset of the query's first token in the text.
	Pos() int
	query()
}

// Select is SELECT [DISTINCT] items FROM from [WHERE e] [GROUP BY e, …]
// [HAVING e]. Expressions are plan expressions, unresolved: their columns
// are resolved when the query is planned over the views it reads.
type Select struct {
	Start    int // byte offset of SELECT
	Distinct bool
	Items    []Item
	From     From
	Where    plan.Expr // nil without WHERE
	// WherePos is the byte offset of WHERE's expression.
	WherePos int
	GroupBy  []Item    // never Star
	Having   plan.Expr // nil without HAVING
	// HavingPos is the byte offset of HAVING's expression.
	HavingPos int
	// Refs are the column references of the SELECT's expressions (its
	// select list, join conditions, WHERE, GROUP BY, HAVING; not those of
	// its subqueries), in the order of the text, so that the planner can
	// point at a name it cannot resolve.
	Refs []Ref
}

// Ref is a column reference as written: its dotted name parts (b.price is
// [b price]) and the byte offset of its first part.
type Ref struct {
	Parts []string
	Pos   int
}

// RefPos returns the offset of the first reference at or after from whose
// parts start with parts (case-insensitively), or from when there is none.
func (s *Select) RefPos(from int, parts ...string) int {
	for _, r := range s.Refs {
		if r.Pos < from || len(r.Parts) < len(parts) {
			continue
		}
		match := true
		for i, p := range parts {
			if !strings.EqualFold(r.Parts[i], p) {
				match = false
				break
			}
		}
		if match {
			return r.Pos
		}
	}
	return from
}

// Item is an expression of a select list or GROUP BY, or a * of the
// select list (t.* when Qualifier is t).
type Item struct {
	Star      bool
	Qualifier string    // t of t.*; "" for *
	Expr      plan.Expr // nil for Star; may be a plan.Alias
	Pos       int       // byte offset of the item
}

// Union is q1 UNION ALL q2 UNION ALL … (Spark's UNION without ALL, which
// removes duplicate rows, is refused).
type Union struct {
	Start  int
	Inputs []Query
}

// From is what a SELECT reads: a *Table, a *Subquery or a *Join.
type From interface {
	Pos() int
	from()
}

// Table is a view name in FROM, with its optional alias.
type Table struct {
	Name, Alias string
	At          int // byte offset of the name
}

// Subquery is (query) [AS] alias in FROM.
type Subquery struct {
	Query Query
	Alias string
	At    int // byte offset of '('
}

func (s *Select) Pos() int   { return s.Start }
func (u *Union) Pos() int    { return u.Start }
func (t *Table) Pos() int    { return t.At }
func (s *Subquery) Pos() int { return s.At }
func (*Select) query()       {}
func (*Union) query()        {}
func (*Table) from()         {}
func (*Subquery) from()      {}

// ErrorAt makes an *Error at byte offset pos of text, for the errors found
// when a parsed query is planned (an unknown view, say).
func ErrorAt(text string, pos int, msg string) *Error { return errorAt(text, pos, msg) }

// Suggest returns ` (did you mean "x"?)` for the candidate nearest to name
// by edit distance, when one is near enough, else "".
func Suggest(name string, candidates []string) string { return suggest(name, candidates) }

// ParseQuery parses a Spark SQL query: [WITH name AS (query), …] SELECT
// [DISTINCT] items FROM from [WHERE e] [GROUP BY e, …] [HAVING e], any
// number of them joined by UNION ALL, and an optional final ';'. A from is
// a view name or a (subquery), with an optional alias, joined to others
// by JOIN … ON cond or JOIN … USING (cols) (sql/join.go). Errors are
// *Error; constructs Millrace does not support (NATURAL joins, OFFSET,
// UNION without ALL …) are refused at their position.
func ParseQuery(text string) (Query, error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{text: text, toks: toks}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	p.acceptOp(";")
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpectedInQuery(t)
	}
	return q, nil
}

// unexpectedInQuery names the clauses Spark has and Millrace does not yet.
func (p *parser) unexpectedInQuery(t token) error {
	switch strings.ToUpper(t.text) {
	case "SORT", "CLUSTER", "DISTRIBUTE":
		if t.kind == tokWord {
			return p.errAt(t, "%s BY is not supported: a stream cannot be sorted or repartitioned in SQL", strings.ToUpper(t.text))
		}
	case "OFFSET":
		if t.kind == tokWord {
			return p.errAt(t, "OFFSET is not supported on streams")
		}
	case "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "SEMI", "ANTI", "NATURAL", "LATERAL":
		if t.kind == tokWord {
			return p.errAt(t, "unexpected %s: a join follows the FROM item it joins", strings.ToUpper(t.text))
		}
	case "INTERSECT", "EXCEPT", "MINUS":
		if t.kind == tokWord {
			return p.errAt(t, "%s is not supported", strings.ToUpper(t.text))
		}
	case "WINDOW", "QUALIFY":
		if t.kind == tokWord {
			return p.errAt(t, "%s clauses are not supported", strings.ToUpper(t.text))
		}
	}
	return p.unexpected(t)
}

// query is select [UNION ALL select]…
func (p *parser) query() (Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	start := p.peek().pos
	if p.peek().isWord("WITH") {
		return p.with()
	}
	first, err := p.queryTerm()
	if err != nil {
		return nil, err
	}
	if !p.peek().isWord("UNION") {
		return p.orderLimit(first)
	}
	u := &Union{Start: start, Inputs: []Query{first}}
	for p.peek().isWord("UNION") {
		t := p.next()
		if !p.acceptWord("ALL") {
			if p.peek().isWord("DISTINCT") {
				t = p.peek()
			}
			return nil, p.errAt(t, "UNION without ALL (which removes duplicates) is not supported yet; use UNION ALL, then DISTINCT")
		}
		q, err := p.queryTerm()
		if err != nil {
			return nil, err
		}
		u.Inputs = append(u.Inputs, q)
	}
	return p.orderLimit(u)
}

// queryTerm is a SELECT or a parenthesized query.
func (p *parser) queryTerm() (Query, error) {
	t := p.peek()
	switch {
	case t.isOp("("):
		p.next()
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return q, nil
	case t.isWord("SELECT"):
		return p.selectStmt()
	case t.isWord("WITH"):
		return nil, p.errAt(t, "WITH must start a query: put the query in parentheses")
	case t.isWord("FROM"):
		return nil, p.errAt(t, "FROM-first queries are not supported; write SELECT … FROM")
	case t.kind == tokEOF:
		return nil, p.errAt(t, "unexpected end of input, expected SELECT")
	}
	return nil, p.errAt(t, "expected SELECT, found %s", t.describe())
}

func (p *parser) selectStmt() (*Select, error) {
	s := &Select{Start: p.next().pos}
	// The references of this SELECT, not of its subqueries (which collect
	// their own).
	outer := p.refs
	p.refs = nil
	defer func() { s.Refs, p.refs = p.refs, outer }()
	if p.acceptWord("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptWord("ALL")
	}
	for {
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, it)
		if !p.acceptOp(",") {
			break
		}
	}
	if t := p.peek(); !t.isWord("FROM") {
		if t.kind == tokEOF {
			return nil, p.errAt(t, "expected FROM: a query reads a view")
		}
		return nil, p.errAt(t, "expected ',' or FROM, found %s", t.describe())
	}
	p.next()
	from, err := p.fromItem()
	if err != nil {
		return nil, err
	}
	s.From = from
	if p.acceptWord("WHERE") {
		s.WherePos = p.peek().pos
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.isWord("GROUP") {
		p.next()
		if err := p.expectWord("BY"); err != nil {
			return nil, err
		}
		for {
			pos := p.peek().pos
			if u := p.peek(); u.isWord("GROUPING") || u.isWord("ROLLUP") || u.isWord("CUBE") {
				return nil, p.errAt(u, "%s is not supported", strings.ToUpper(u.text))
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			s.GroupBy = append(s.GroupBy, Item{Expr: e, Pos: pos})
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptWord("HAVING") {
		s.HavingPos = p.peek().pos
		if s.Having, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *parser) selectItem() (Item, error) {
	t := p.peek()
	if t.isOp("*") {
		p.next()
		return Item{Star: true, Pos: t.pos}, nil
	}
	if (t.kind == tokWord || t.kind == tokQuoted) && p.peekAt(1).isOp(".") && p.peekAt(2).isOp("*") {
		p.i += 3
		return Item{Star: true, Qualifier: t.text, Pos: t.pos}, nil
	}
	if t.kind == tokEOF || t.isWord("FROM") {
		return Item{}, p.errAt(t, "expected an expression, found %s", t.describe())
	}
	e, err := p.namedExpr()
	if err != nil {
		return Item{}, err
	}
	return Item{Expr: e, Pos: t.pos}, nil
}

// queryKeywords end a FROM item: they cannot be a table alias without AS.
var queryKeywords = map[string]bool{
	"WHERE": true, "GROUP": true, "HAVING": true, "UNION": true, "ORDER": true, "LIMIT": true,
	"JOIN": true, "INNER": true, "LEFT": true, "RIGHT": true, "FULL": true, "CROSS": true,
	"SEMI": true, "ANTI": true, "NATURAL": true, "LATERAL": true, "ON": true, "USING": true,
	"INTERSECT": true, "EXCEPT": true, "MINUS": true, "WINDOW": true, "SORT": true,
	"CLUSTER": true, "DISTRIBUTE": true, "OFFSET": true, "QUALIFY": true, "SELECT": true, "FROM": true,
	"WATERMARK": true,
}

// fromPrimary is a view name or (subquery), with its optional alias.
func (p *parser) fromPrimary() (From, error) {
	t := p.peek()
	var f From
	st, isStream, err := p.streamTable() // STREAM name, STREAM(name): watermark.go
	if err != nil {
		return nil, err
	}
	switch {
	case isStream:
		f = st
	case t.isOp("("):
		p.next()
		if u := p.peek(); !u.isWord("SELECT") && !u.isOp("(") && !u.isWord("WITH") {
			return nil, p.errAt(u, "expected a subquery after '(', found %s", u.describe())
		}
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		f = &Subquery{Query: q, At: t.pos}
	case t.kind == tokQuoted || t.kind == tokWord && !queryKeywords[strings.ToUpper(t.text)]:
		p.next()
		if d := p.peek(); d.isOp(".") {
			return nil, p.errAt(d, "qualified view names (database.view) are not supported")
		}
		if d := p.peek(); d.isOp("(") {
			return nil, p.errAt(t, "table-valued functions are not supported")
		}
		f = &Table{Name: t.text, At: t.pos}
	case t.kind == tokEOF:
		return nil, p.errAt(t, "unexpected end of input, expected a view name")
	default:
		return nil, p.errAt(t, "expected a view name or (subquery), found %s", t.describe())
	}
	wm, err := p.watermarkClause() // WATERMARK … DELAY OF …: watermark.go
	if err != nil {
		return nil, err
	}
	// [AS] alias
	as := p.acceptWord("AS")
	a := p.peek()
	alias := ""
	switch {
	case a.kind == tokQuoted || a.kind == tokWord && (as || !queryKeywords[strings.ToUpper(a.text)]):
		p.next()
		alias = a.text
	case as:
		return nil, p.errAt(a, "expected an alias after AS, found %s", a.describe())
	}
	switch f := f.(type) {
	case *Table:
		f.Alias = alias
	case *Subquery:
		f.Alias = alias
	}
	if wm != nil {
		wm.Input = f
		return wm, nil
	}
	return f, nil
}
