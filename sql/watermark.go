package sql

import (
	"strings"
	"time"

	"github.com/millrace/millrace/plan"
)

// Watermarked is a FROM item with Spark's WATERMARK clause:
//
//	FROM name-or-(query) WATERMARK col DELAY OF INTERVAL 10 SECONDS [[AS] alias]
//	FROM name WATERMARK expr AS col DELAY OF INTERVAL '10' SECOND
//
// It declares the event-time watermark of the relation, as
// Stream.WithWatermark does. The clause comes before the relation's alias,
// as in Spark's grammar (from_item: relation [watermark_clause]
// [table_alias]). A computed expression needs a name (AS col), under which
// it is added to the relation's columns; Spark refuses it without one
// (REQUIRES_EXPLICIT_NAME_IN_WATERMARK_CLAUSE), and so does Millrace.
type Watermarked struct {
	// Input is the *Table or *Subquery, carrying the alias.
	Input From
	// Expr is a column reference, or a plan.Alias naming a computed
	// event-time column.
	Expr   plan.Expr
	ExprAt int
	Delay  time.Duration
	At     int // byte offset of WATERMARK
}

func (w *Watermarked) Pos() int { return w.Input.Pos() }
func (*Watermarked) from()      {}

// watermarkClause parses WATERMARK named_expression DELAY OF interval, if
// the next token starts one; it returns nil otherwise.
func (p *parser) watermarkClause() (*Watermarked, error) {
	t := p.peek()
	if !t.isWord("WATERMARK") {
		return nil, nil
	}
	p.next()
	w := &Watermarked{At: t.pos, ExprAt: p.peek().pos}
	if u := p.peek(); u.kind == tokEOF || u.isWord("DELAY") {
		return nil, p.errAt(u, "expected the event-time column after WATERMARK, found %s", u.describe())
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.acceptWord("AS") {
		a := p.next()
		if a.kind != tokWord && a.kind != tokQuoted {
			return nil, p.errAt(a, "expected a column name after AS, found %s", a.describe())
		}
		e = plan.Alias{E: e, Name: a.text}
	}
	switch e.(type) {
	case plan.ColumnRef, plan.Alias:
	default:
		return nil, errorAt(p.text, w.ExprAt, "the WATERMARK clause needs a name for a computed event time: WATERMARK "+e.String()+" AS name DELAY OF …")
	}
	w.Expr = e
	if err := p.expectWord("DELAY"); err != nil {
		return nil, err
	}
	if err := p.expectWord("OF"); err != nil {
		return nil, err
	}
	d, err := p.duration()
	if err != nil {
		return nil, err
	}
	w.Delay = d
	return w, nil
}

// streamTable parses Spark's STREAM name and STREAM(name) in FROM, which
// read a table as a stream: every read is one here, so they are the table.
// ok is false when the next tokens are not that form (a view named stream
// is still read as FROM stream).
func (p *parser) streamTable() (f From, ok bool, err error) {
	t := p.peek()
	if !t.isWord("STREAM") {
		return nil, false, nil
	}
	n := p.peekAt(1)
	switch {
	case n.isOp("("):
		p.next()
		p.next()
		name, at, err := p.name("table")
		if err != nil {
			return nil, true, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, true, err
		}
		return &Table{Name: name, At: at}, true, nil
	case n.kind == tokQuoted || n.kind == tokWord && !queryKeywords[strings.ToUpper(n.text)] && !n.isWord("WATERMARK") && !n.isWord("AS"):
		p.next()
		name, at, err := p.name("table")
		if err != nil {
			return nil, true, err
		}
		return &Table{Name: name, At: at}, true, nil
	}
	return nil, false, nil
}
