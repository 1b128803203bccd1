package sql

import (
	"strconv"
	"strings"

	"github.com/millrace/millrace/plan"
)

// Sorted is query ORDER BY keys [LIMIT n]: Spark allows it on a stream
// only over an aggregation in Complete mode, which the engine checks when
// the query starts.
type Sorted struct {
	Query   Query
	OrderBy []OrderItem
	// Limit is LIMIT's row count, -1 without LIMIT (or with LIMIT ALL).
	Limit int64
	At    int // byte offset of ORDER or LIMIT
}

// OrderItem is a key of ORDER BY: an expression over the query's output
// columns, or a position in its select list (ORDER BY 2).
type OrderItem struct {
	Expr       plan.Expr
	Desc       bool
	NullsFirst bool
	Pos        int
}

func (s *Sorted) Pos() int { return s.Query.Pos() }
func (*Sorted) query()     {}

// orderLimit parses ORDER BY … and LIMIT … after query q, if any.
func (p *parser) orderLimit(q Query) (Query, error) {
	t := p.peek()
	if !t.isWord("ORDER") && !t.isWord("LIMIT") {
		return q, nil
	}
	s := &Sorted{Query: q, Limit: -1, At: t.pos}
	if p.acceptWord("ORDER") {
		if err := p.expectWord("BY"); err != nil {
			return nil, err
		}
		for {
			it := OrderItem{Pos: p.peek().pos}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			it.Expr = e
			if p.acceptWord("DESC") {
				it.Desc = true
			} else {
				p.acceptWord("ASC")
			}
			it.NullsFirst = !it.Desc // Spark's default
			if p.acceptWord("NULLS") {
				switch u := p.next(); {
				case u.isWord("FIRST"):
					it.NullsFirst = true
				case u.isWord("LAST"):
					it.NullsFirst = false
				default:
					return nil, p.errAt(u, "expected FIRST or LAST after NULLS, found %s", u.describe())
				}
			}
			s.OrderBy = append(s.OrderBy, it)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptWord("LIMIT") {
		n := p.next()
		switch {
		case n.isWord("ALL"):
		case n.kind == tokNumber && !strings.ContainsAny(n.text, ".eEdDlL"):
			v, err := strconv.ParseInt(n.text, 10, 64)
			if err != nil {
				return nil, p.errAt(n, "LIMIT %s is out of range", n.text)
			}
			s.Limit = v
		default:
			return nil, p.errAt(n, "LIMIT takes a number of rows, found %s", n.describe())
		}
	}
	if t := p.peek(); t.isWord("OFFSET") {
		return nil, p.errAt(t, "OFFSET is not supported on streams")
	}
	return s, nil
}
