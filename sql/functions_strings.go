package sql

import (
	"github.com/millrace/millrace/plan"
)

// stringForm parses the SQL-standard forms of three string functions,
// which Spark accepts beside their call forms:
//
//	TRIM([BOTH | LEADING | TRAILING] [chars] FROM s)  → trim/ltrim/rtrim(chars, s)
//	SUBSTRING(s FROM pos [FOR len]) (and SUBSTR)       → substring(s, pos[, len])
//	POSITION(sub IN s)                                 → locate(sub, s)
//
// p is just after the opening parenthesis. ok is false (and p where it
// was) when the call is not one of these forms, for the ordinary call
// parser to take it.
func (p *parser) stringForm(lname string) (e plan.Expr, ok bool, err error) {
	start := p.i
	defer func() {
		if !ok && err == nil {
			p.i = start
		}
	}()
	switch lname {
	case "trim":
		return p.trimForm()
	case "substring", "substr":
		s, err := p.binary(0)
		if err != nil || !p.acceptWord("FROM") {
			return nil, false, nil
		}
		args := []plan.Expr{s, nil}
		if args[1], err = p.binary(0); err != nil {
			return nil, true, err
		}
		if p.acceptWord("FOR") {
			l, err := p.binary(0)
			if err != nil {
				return nil, true, err
			}
			args = append(args, l)
		}
		return p.closeCall("substring", args)
	case "position":
		sub, err := p.binary(0)
		if err != nil || !p.acceptWord("IN") {
			return nil, false, nil
		}
		s, err := p.binary(0)
		if err != nil {
			return nil, true, err
		}
		return p.closeCall("locate", []plan.Expr{sub, s})
	}
	return nil, false, nil
}

func (p *parser) trimForm() (plan.Expr, bool, error) {
	fn := "trim"
	option := false
	switch {
	case p.acceptWord("BOTH"):
		option = true
	case p.acceptWord("LEADING"):
		fn, option = "ltrim", true
	case p.acceptWord("TRAILING"):
		fn, option = "rtrim", true
	}
	var chars plan.Expr
	if !p.peek().isWord("FROM") {
		c, err := p.binary(0)
		if err != nil {
			if option {
				return nil, true, err
			}
			return nil, false, nil
		}
		chars = c
	}
	if !p.acceptWord("FROM") {
		if option {
			return nil, true, p.errAt(p.peek(), "expected FROM, found %s", p.peek().describe())
		}
		return nil, false, nil
	}
	s, err := p.binary(0)
	if err != nil {
		return nil, true, err
	}
	if chars == nil {
		return p.closeCall(fn, []plan.Expr{s})
	}
	return p.closeCall(fn, []plan.Expr{chars, s})
}

func (p *parser) closeCall(name string, args []plan.Expr) (plan.Expr, bool, error) {
	if err := p.expectOp(")"); err != nil {
		return nil, true, err
	}
	return plan.Call{Name: name, Args: args}, true, nil
}

// likeCall is e LIKE pat (ILIKE, RLIKE) with a computed pattern: a call of
// the like, ilike or rlike function, which compiles each row's pattern
// (plan.Like holds a literal one). An ESCAPE may follow LIKE and ILIKE.
func (p *parser) likeCall(e, pat plan.Expr, kind plan.MatchKind) (plan.Expr, error) {
	name := map[plan.MatchKind]string{plan.MatchLike: "like", plan.MatchILike: "ilike", plan.MatchRLike: "rlike"}[kind]
	args := []plan.Expr{e, pat}
	if kind != plan.MatchRLike && p.peek().isWord("ESCAPE") {
		p.next()
		et := p.next()
		if et.kind != tokString || len([]rune(et.text)) != 1 {
			return nil, p.errAt(et, "ESCAPE takes a string of one character, found %s", et.describe())
		}
		args = append(args, plan.Literal{Value: et.text})
	}
	return plan.Call{Name: name, Args: args}, nil
}
