package sql

import (
	"strings"

	"github.com/millrace/millrace/plan"
)

// Join is Left JOIN Right ON cond, or JOIN … USING (cols), in FROM. Joins
// are left-deep: a JOIN b JOIN c is (a JOIN b) JOIN c. How is inner, left,
// right or full outer, left semi or left anti. An inner join with neither
// ON nor USING is a cross join: CROSS JOIN, JOIN without a condition, or
// a comma (FROM a, b), which binds loosest (a, b JOIN c is a cross join
// of a with b JOIN c).
type Join struct {
	Left, Right From
	How         plan.JoinType
	// On is the condition of JOIN … ON (nil with USING); OnPos the byte
	// offset of its expression.
	On    plan.Expr
	OnPos int
	// Using are the columns of JOIN … USING (cols), UsingPos their byte
	// offsets.
	Using    []string
	UsingPos []int
	At       int // byte offset of the join's first keyword
}

// With is WITH name AS (query), … query: common table expressions, each
// visible to the CTEs after it and to the query; non-recursive.
type With struct {
	Start int
	CTEs  []CTE
	Query Query
}

// CTE is one name AS (query) of a WITH.
type CTE struct {
	Name  string
	At    int // byte offset of the name
	Query Query
}

func (j *Join) Pos() int { return j.Left.Pos() }
func (w *With) Pos() int { return w.Start }
func (*Join) from()      {}
func (*With) query()     {}

// with parses WITH name AS (query) [, …] query.
func (p *parser) with() (Query, error) {
	w := &With{Start: p.next().pos}
	if t := p.peek(); t.isWord("RECURSIVE") {
		return nil, p.errAt(t, "WITH RECURSIVE is not supported")
	}
	for {
		n := p.next()
		if n.kind != tokWord && n.kind != tokQuoted || n.kind == tokWord && queryKeywords[strings.ToUpper(n.text)] {
			return nil, p.errAt(n, "expected a name for the WITH query, found %s", n.describe())
		}
		if t := p.peek(); t.isOp("(") {
			return nil, p.errAt(t, "column lists in WITH (name(a, b) AS …) are not supported: alias the columns in the query")
		}
		p.acceptWord("AS")
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		q, err := p.query()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		for _, c := range w.CTEs {
			if strings.EqualFold(c.Name, n.text) {
				return nil, p.errAt(n, "WITH query name %s is defined twice", n.text)
			}
		}
		w.CTEs = append(w.CTEs, CTE{Name: n.text, At: n.pos, Query: q})
		if !p.acceptOp(",") {
			break
		}
	}
	if t := p.peek(); !t.isWord("SELECT") && !t.isOp("(") && !t.isWord("WITH") {
		return nil, p.errAt(t, "expected SELECT after the WITH queries, found %s", t.describe())
	}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	w.Query = q
	return w, nil
}

// fromItem is a FROM item followed by any number of joins.
func (p *parser) fromItem() (From, error) {
	f, err := p.fromPrimary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.isOp(",") {
			// FROM a, b JOIN c is a cross join of a with (b JOIN c):
			// the comma binds loosest, as in Spark.
			p.next()
			if err := p.enter(); err != nil {
				return nil, err
			}
			right, err := p.fromItem()
			p.depth--
			if err != nil {
				return nil, err
			}
			f = &Join{Left: f, Right: right, How: plan.InnerJoin, At: t.pos}
			continue
		}
		if t.kind != tokWord {
			return f, nil
		}
		j := &Join{Left: f, At: t.pos}
		switch strings.ToUpper(t.text) {
		case "JOIN":
			j.How = plan.InnerJoin
		case "INNER":
			p.next()
			j.How = plan.InnerJoin
		case "LEFT", "RIGHT", "FULL":
			p.next()
			j.How = map[string]plan.JoinType{"LEFT": plan.LeftOuterJoin, "RIGHT": plan.RightOuterJoin, "FULL": plan.FullOuterJoin}[strings.ToUpper(t.text)]
			switch u := p.peek(); {
			case u.isWord("OUTER"):
				p.next()
			case t.isWord("LEFT") && u.isWord("SEMI"):
				p.next()
				j.How = plan.LeftSemiJoin
			case t.isWord("LEFT") && u.isWord("ANTI"):
				p.next()
				j.How = plan.LeftAntiJoin
			}
		case "SEMI":
			p.next()
			j.How = plan.LeftSemiJoin
		case "ANTI":
			p.next()
			j.How = plan.LeftAntiJoin
		case "CROSS":
			p.next()
			j.How = plan.InnerJoin
		case "NATURAL":
			return nil, p.errAt(t, "NATURAL JOIN is not supported: name the columns with JOIN … USING (cols)")
		case "LATERAL":
			return nil, p.errAt(t, "LATERAL is not supported")
		default:
			return f, nil
		}
		if err := p.expectWord("JOIN"); err != nil {
			return nil, err
		}
		if u := p.peek(); u.isWord("LATERAL") {
			return nil, p.errAt(u, "LATERAL is not supported")
		}
		right, err := p.fromPrimary()
		if err != nil {
			return nil, err
		}
		j.Right = right
		switch u := p.peek(); {
		case u.isWord("ON"):
			p.next()
			j.OnPos = p.peek().pos
			if j.On, err = p.expr(); err != nil {
				return nil, err
			}
		case u.isWord("USING"):
			p.next()
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			for {
				c := p.next()
				if c.kind != tokWord && c.kind != tokQuoted {
					return nil, p.errAt(c, "expected a column name in USING, found %s", c.describe())
				}
				j.Using = append(j.Using, c.text)
				j.UsingPos = append(j.UsingPos, c.pos)
				if !p.acceptOp(",") {
					break
				}
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
		case j.How != plan.InnerJoin:
			return nil, p.errAt(u, "expected ON or USING after the joined view, found %s: a %s join needs a condition", u.describe(), j.How)
		}
		// An inner join without ON or USING is a cross join.
		f = j
	}
}
