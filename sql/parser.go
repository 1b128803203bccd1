package sql

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// maxDepth bounds the nesting of an expression, so that hostile input
// cannot exhaust the stack.
const maxDepth = 200

// ParseExpr parses one Spark SQL expression, optionally followed by an
// alias (`price * 0.908 AS euros`, or without AS), into a plan
// expression. Errors are *Error.
func ParseExpr(text string) (plan.Expr, error) {
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{text: text, toks: toks}
	e, err := p.namedExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t)
	}
	return e, nil
}

type parser struct {
	text  string
	toks  []token
	i     int
	depth int
	// refs collects the column references parsed, for Select.Refs.
	refs []Ref
}

// fail is the error a parse step returns; its message is already placed.
func (p *parser) errAt(t token, format string, args ...any) error {
	return errorAt(p.text, t.pos, fmt.Sprintf(format, args...))
}

func (p *parser) unexpected(t token) error { return p.errAt(t, "unexpected %s", t.describe()) }

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) acceptWord(w string) bool {
	if p.peek().isWord(w) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.peek().isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		t := p.peek()
		return p.errAt(t, "expected '%s', found %s", op, t.describe())
	}
	return nil
}

func (p *parser) expectWord(w string) error {
	if !p.acceptWord(w) {
		t := p.peek()
		return p.errAt(t, "expected %s, found %s", w, t.describe())
	}
	return nil
}

// reserved are words that cannot be an alias without AS or backquotes,
// because they continue or end an expression.
var reserved = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IS": true, "IN": true, "BETWEEN": true,
	"LIKE": true, "RLIKE": true, "ILIKE": true, "REGEXP": true, "AS": true,
	"FROM": true, "WHERE": true, "GROUP": true, "ORDER": true, "HAVING": true,
	"WHEN": true, "THEN": true, "ELSE": true, "END": true, "DIV": true,
}

// namedExpr is expression [[AS] alias].
func (p *parser) namedExpr() (plan.Expr, error) {
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	as := false
	if t.isWord("AS") {
		as = true
		p.next()
		t = p.peek()
	}
	switch {
	case t.kind == tokQuoted || t.kind == tokWord && (as || !reserved[strings.ToUpper(t.text)]):
		p.next()
		return plan.Alias{E: plan.Unalias(e), Name: t.text}, nil
	case as && t.isOp("("):
		return nil, p.errAt(t, "multiple aliases AS (a, b) are not supported")
	case as:
		return nil, p.errAt(t, "expected an alias after AS, found %s", t.describe())
	}
	return e, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errAt(p.peek(), "expression nested too deeply (more than %d levels)", maxDepth)
	}
	return nil
}

func (p *parser) expr() (plan.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	return p.or()
}

func (p *parser) or() (plan.Expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.acceptWord("OR") {
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = plan.Binary{Op: plan.OpOr, L: l, R: r}
	}
	return l, nil
}

func (p *parser) and() (plan.Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.acceptWord("AND") {
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = plan.Binary{Op: plan.OpAnd, L: l, R: r}
	}
	return l, nil
}

func (p *parser) not() (plan.Expr, error) {
	if p.peek().isWord("NOT") || p.peek().isOp("!") {
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		e, err := p.not()
		if err != nil {
			return nil, err
		}
		return plan.Not{E: e}, nil
	}
	return p.predicate()
}

// predicate is a value expression followed by any number of IS [NOT]
// NULL, [NOT] BETWEEN, [NOT] IN and [NOT] LIKE predicates.
func (p *parser) predicate() (plan.Expr, error) {
	e, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		negated := false
		if t.isWord("NOT") || t.isOp("!") {
			nt := p.peekAt(1)
			if !nt.isWord("BETWEEN") && !nt.isWord("IN") && !nt.isWord("LIKE") && !nt.isWord("RLIKE") && !nt.isWord("ILIKE") && !nt.isWord("REGEXP") {
				return e, nil
			}
			p.next()
			negated = true
			t = p.peek()
		}
		wrap := func(x plan.Expr) plan.Expr {
			if negated {
				return plan.Not{E: x}
			}
			return x
		}
		switch {
		case t.isWord("IS"):
			p.next()
			not := p.acceptWord("NOT")
			switch u := p.peek(); {
			case u.isWord("NULL"):
				p.next()
				e = plan.IsNull{E: e, Negated: not}
			case u.isWord("TRUE") || u.isWord("FALSE") || u.isWord("UNKNOWN") || u.isWord("DISTINCT"):
				return nil, p.errAt(u, "IS [NOT] %s is not supported yet", strings.ToUpper(u.text))
			default:
				return nil, p.errAt(u, "expected NULL after IS, found %s", u.describe())
			}
		case t.isWord("BETWEEN"):
			p.next()
			lo, err := p.binary(0)
			if err != nil {
				return nil, err
			}
			if err := p.expectWord("AND"); err != nil {
				return nil, err
			}
			hi, err := p.binary(0)
			if err != nil {
				return nil, err
			}
			e = wrap(plan.Binary{Op: plan.OpAnd,
				L: plan.Binary{Op: plan.OpGe, L: e, R: lo},
				R: plan.Binary{Op: plan.OpLe, L: e, R: hi}})
		case t.isWord("IN"):
			p.next()
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if u := p.peek(); u.isWord("SELECT") || u.isWord("WITH") {
				return nil, p.errAt(u, "IN (subquery) is not supported yet")
			}
			var in plan.Expr
			for {
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				eq := plan.Binary{Op: plan.OpEq, L: e, R: v}
				if in == nil {
					in = eq
				} else {
					in = plan.Binary{Op: plan.OpOr, L: in, R: eq}
				}
				if !p.acceptOp(",") {
					break
				}
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			e = wrap(in)
		case t.isWord("LIKE") || t.isWord("RLIKE") || t.isWord("ILIKE") || t.isWord("REGEXP"):
			p.next()
			l, err := p.like(e, t)
			if err != nil {
				return nil, err
			}
			e = wrap(l)
		default:
			return e, nil
		}
	}
}

// binOp is a binary operator of the value-expression levels.
type binOp struct {
	prec int
	op   plan.BinaryOp
	ok   bool // false: Spark has it, plan does not
}

// binOps holds the operators by Spark's precedence (higher binds tighter).
var binOps = map[string]binOp{
	"=": {1, plan.OpEq, true}, "==": {1, plan.OpEq, true}, "<>": {1, plan.OpNe, true}, "!=": {1, plan.OpNe, true},
	"<": {1, plan.OpLt, true}, "<=": {1, plan.OpLe, true}, ">": {1, plan.OpGt, true}, ">=": {1, plan.OpGe, true},
	"<=>": {1, 0, false},
	"|":   {2, 0, false}, "^": {3, 0, false}, "&": {4, 0, false},
	"+": {5, plan.OpAdd, true}, "-": {5, plan.OpSub, true}, "||": {5, 0, false},
	"*": {6, plan.OpMul, true}, "/": {6, plan.OpDiv, true}, "%": {6, plan.OpMod, true}, "DIV": {6, 0, false},
}

func (p *parser) binOpOf(t token) (binOp, bool) {
	if t.kind == tokOp {
		b, ok := binOps[t.text]
		return b, ok
	}
	if t.isWord("DIV") {
		return binOps["DIV"], true
	}
	return binOp{}, false
}

// binary parses left-associative binary operators of precedence above
// minPrec (precedence climbing).
func (p *parser) binary(minPrec int) (plan.Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		b, ok := p.binOpOf(t)
		if !ok || b.prec <= minPrec {
			return l, nil
		}
		if !b.ok {
			return nil, p.errAt(t, "operator %s is not supported yet", strings.ToUpper(t.text))
		}
		p.next()
		r, err := p.binary(b.prec)
		if err != nil {
			return nil, err
		}
		l = plan.Binary{Op: b.op, L: l, R: r}
	}
}

func (p *parser) unary() (plan.Expr, error) {
	t := p.peek()
	switch {
	case t.isOp("-"), t.isOp("+"):
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		var e plan.Expr
		var err error
		if p.peek().kind == tokNumber {
			e, err = p.postfix() // so that 9223372036854775808 may be negated
		} else {
			e, err = p.unary()
		}
		if err != nil {
			return nil, err
		}
		if l, ok := e.(plan.Literal); ok && t.text == "+" {
			if _, big := l.Value.(uint64); big {
				return nil, p.errAt(p.toks[p.i-1], "integer literal %s is out of range for BIGINT", p.toks[p.i-1].text)
			}
		}
		if t.text == "+" {
			return e, nil
		}
		// Fold -literal, so that -2147483648 is an INT as in Spark.
		if l, ok := e.(plan.Literal); ok {
			switch v := l.Value.(type) {
			case int32:
				return plan.Literal{Value: -v}, nil
			case int64:
				if v == math.MinInt32*-1 {
					return plan.Literal{Value: int32(math.MinInt32)}, nil
				}
				return plan.Literal{Value: -v}, nil
			case float64:
				return plan.Literal{Value: -v}, nil
			case uint64: // 9223372036854775808, only valid negated
				return plan.Literal{Value: int64(math.MinInt64)}, nil
			}
		}
		return plan.Neg{E: e}, nil
	case t.isOp("~"):
		return nil, p.errAt(t, "operator ~ is not supported yet")
	}
	e, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if l, ok := e.(plan.Literal); ok {
		if _, big := l.Value.(uint64); big {
			return nil, p.errAt(t, "integer literal %s is out of range for BIGINT", t.text)
		}
	}
	return e, nil
}

// postfix is a primary followed by any number of ::type casts, field
// accesses and subscripts.
func (p *parser) postfix() (plan.Expr, error) {
	first := p.peek()
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	// ref is the reference primary recorded for a name, which the field
	// accesses after it extend (b.price).
	ref := -1
	if _, ok := e.(plan.ColumnRef); ok && len(p.refs) > 0 && p.refs[len(p.refs)-1].Pos == first.pos {
		ref = len(p.refs) - 1
	}
	for {
		t := p.peek()
		switch {
		case t.isOp("::"):
			p.next()
			to, err := p.dataType()
			if err != nil {
				return nil, err
			}
			e = plan.Cast{E: e, To: to}
		case t.isOp("."):
			p.next()
			n := p.next()
			if n.kind != tokWord && n.kind != tokQuoted {
				return nil, p.errAt(n, "expected a field name after '.', found %s", n.describe())
			}
			e = plan.GetField{E: e, Name: n.text}
			if ref >= 0 {
				p.refs[ref].Parts = append(p.refs[ref].Parts, n.text)
			}
		case t.isOp("["):
			return nil, p.errAt(t, "subscripts ([]) are not supported yet")
		default:
			return e, nil
		}
	}
}

func (p *parser) primary() (plan.Expr, error) {
	t := p.peek()
	switch t.kind {
	case tokNumber:
		p.next()
		return p.number(t)
	case tokString:
		p.next()
		s := t.text
		for p.peek().kind == tokString { // adjacent literals concatenate
			s += p.next().text
		}
		return plan.Literal{Value: s}, nil
	case tokQuoted:
		return p.columnRef()
	case tokOp:
		if t.isOp("(") {
			p.next()
			if u := p.peek(); u.isWord("SELECT") || u.isWord("WITH") {
				return nil, p.errAt(u, "scalar subqueries are not supported")
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if p.peek().isOp(",") {
				return nil, p.errAt(p.peek(), "row values (a, b) are not supported")
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return e, nil
		}
		if t.isOp("*") {
			return nil, p.errAt(t, "* is not an expression here")
		}
		return nil, p.unexpected(t)
	case tokEOF:
		return nil, p.errAt(t, "unexpected end of input, expected an expression")
	}
	// A word.
	u := strings.ToUpper(t.text)
	nt := p.peekAt(1)
	switch {
	case u == "NULL":
		p.next()
		return plan.Literal{Value: nil}, nil
	case u == "TRUE" || u == "FALSE":
		p.next()
		return plan.Literal{Value: u == "TRUE"}, nil
	case u == "CASE":
		return p.caseExpr()
	case u == "INTERVAL":
		d, err := p.duration()
		if err != nil {
			return nil, err
		}
		return plan.Literal{Value: d}, nil
	case (u == "TIMESTAMP" || u == "TIMESTAMP_LTZ" || u == "TIMESTAMP_NTZ" || u == "DATE" || u == "X") && nt.kind == tokString:
		return p.typedLiteral(u)
	case reserved[u] && !nt.isOp("("):
		return nil, p.unexpected(t)
	case nt.isOp("("):
		return p.call()
	case u == "CURRENT_TIMESTAMP":
		p.next()
		return plan.CurrentTimestamp{}, nil
	}
	return p.columnRef()
}

// columnRef is a column name. A dotted name (a.b) is a field access that
// postfix parses: plan.GetField over the column, as Spark resolves it.
func (p *parser) columnRef() (plan.Expr, error) {
	t := p.next()
	p.refs = append(p.refs, Ref{Parts: []string{t.text}, Pos: t.pos})
	return plan.ColumnRef{Name: t.text}, nil
}

func (p *parser) typedLiteral(kind string) (plan.Expr, error) {
	p.next()
	s := p.next()
	switch kind {
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		ts, ok := parseTimestamp(s.text)
		if !ok {
			return nil, p.errAt(s, "cannot parse %s as a TIMESTAMP", quote(s.text))
		}
		return plan.Literal{Value: ts}, nil
	case "DATE":
		d, ok := kernels.ParseSparkDate(s.text)
		if !ok {
			return nil, p.errAt(s, "cannot parse %s as a DATE", quote(s.text))
		}
		return plan.Literal{Value: arrow.Date32(d)}, nil
	}
	return nil, p.errAt(p.toks[p.i-2], "%s literals are not supported yet", kind)
}

// parseTimestamp reads the timestamp forms Spark accepts in a literal that
// plan can hold: a date, or a date and time with an optional fraction and
// zone; without a zone the time is UTC (Millrace's session time zone).
func parseTimestamp(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{
		time.RFC3339Nano,
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999",
		"2006-01-02 15:04",
		"2006-01-02T15:04",
		"2006-01-02",
	} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// number makes the literal of a number token with Spark's typing: an
// integer is an INT when it fits, else a BIGINT; L makes a BIGINT; a
// decimal (1.5), an exponent (1e3) or D makes a DOUBLE (Spark types 1.5 a
// DECIMAL, which plan does not have).
func (p *parser) number(t token) (plan.Expr, error) {
	s := t.text
	up := strings.ToUpper(s)
	switch {
	case strings.HasSuffix(up, "BD") || strings.HasSuffix(up, "F") || strings.HasSuffix(up, "S") || strings.HasSuffix(up, "Y"):
		return nil, p.errAt(t, "literal %s: its type (%s) is not supported yet", s, map[byte]string{'D': "DECIMAL", 'F': "FLOAT", 'S': "SMALLINT", 'Y': "TINYINT"}[up[len(up)-1]])
	case strings.HasSuffix(up, "L"):
		v, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
		if err != nil {
			return nil, p.errAt(t, "literal %s: not a BIGINT", s)
		}
		return plan.Literal{Value: v}, nil
	case strings.HasSuffix(up, "D") || strings.ContainsAny(s, ".eE"):
		v, err := strconv.ParseFloat(strings.TrimRight(s, "dD"), 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, p.errAt(t, "literal %s: out of range for DOUBLE", s)
		}
		return plan.Literal{Value: v}, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	switch {
	case err != nil || v > 1<<63:
		return nil, p.errAt(t, "integer literal %s is out of range for BIGINT", s)
	case v == 1<<63 && p.i >= 2 && p.toks[p.i-2].isOp("-") && !p.peek().isOp("::"):
		return plan.Literal{Value: v}, nil // valid only under unary minus, which folds it
	case v == 1<<63:
		return nil, p.errAt(t, "integer literal %s is out of range for BIGINT", s)
	case v <= math.MaxInt32:
		return plan.Literal{Value: int32(v)}, nil
	}
	return plan.Literal{Value: int64(v)}, nil
}

// dataType parses a Spark type name into the Arrow type plan casts to.
func (p *parser) dataType() (arrow.DataType, error) {
	t := p.next()
	if t.kind != tokWord {
		return nil, p.errAt(t, "expected a type name, found %s", t.describe())
	}
	name := strings.ToUpper(t.text)
	// Parameters, as in DECIMAL(10, 2) or VARCHAR(10).
	if p.peek().isOp("(") {
		for !p.peek().isOp(")") && p.peek().kind != tokEOF {
			p.next()
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	switch name {
	case "INT", "INTEGER":
		return arrow.PrimitiveTypes.Int32, nil
	case "BIGINT", "LONG":
		return arrow.PrimitiveTypes.Int64, nil
	case "DOUBLE":
		return arrow.PrimitiveTypes.Float64, nil
	case "STRING":
		return arrow.BinaryTypes.String, nil
	case "BOOLEAN":
		return arrow.FixedWidthTypes.Boolean, nil
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		return columnar.Timestamp, nil
	case "DATE":
		return arrow.FixedWidthTypes.Date32, nil
	case "BINARY":
		return arrow.BinaryTypes.Binary, nil
	case "TINYINT", "BYTE", "SMALLINT", "SHORT", "FLOAT", "REAL", "DECIMAL", "DEC", "NUMERIC",
		"TIMESTAMP_NTZ", "VARCHAR", "CHAR", "INTERVAL", "ARRAY", "MAP", "STRUCT", "VOID":
		return nil, p.errAt(t, "type %s is not supported yet (supported: INT, BIGINT, DOUBLE, STRING, BOOLEAN, TIMESTAMP, DATE, BINARY)", name)
	}
	return nil, p.errAt(t, "unknown type %s%s", t.text, suggest(name, typeNames))
}

var typeNames = []string{"INT", "INTEGER", "BIGINT", "LONG", "DOUBLE", "STRING", "BOOLEAN", "TIMESTAMP",
	"TINYINT", "SMALLINT", "FLOAT", "DECIMAL", "DATE", "BINARY", "VARCHAR"}

// caseExpr is CASE [operand] WHEN … THEN … [WHEN …] [ELSE …] END. The
// simple form (with an operand) compares it for equality in each WHEN, as
// Spark builds it.
func (p *parser) caseExpr() (plan.Expr, error) {
	p.next()
	var operand plan.Expr
	if !p.peek().isWord("WHEN") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		operand = e
	}
	var whens []plan.Case
	for p.acceptWord("WHEN") {
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if operand != nil {
			cond = plan.Binary{Op: plan.OpEq, L: operand, R: cond}
		}
		if err := p.expectWord("THEN"); err != nil {
			return nil, err
		}
		then, err := p.expr()
		if err != nil {
			return nil, err
		}
		whens = append(whens, plan.Case{Cond: cond, Then: then})
	}
	if len(whens) == 0 {
		t := p.peek()
		return nil, p.errAt(t, "expected WHEN after CASE, found %s", t.describe())
	}
	var out plan.Expr
	if p.acceptWord("ELSE") {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = e
	}
	if err := p.expectWord("END"); err != nil {
		return nil, err
	}
	for i := len(whens) - 1; i >= 0; i-- {
		whens[i].Else = out
		out = whens[i]
	}
	return out, nil
}

// like parses the pattern (and LIKE's ESCAPE) after e LIKE/ILIKE/RLIKE/
// REGEXP, the keyword t. A string literal pattern (or NULL, which gives
// NULL) is plan.Like; a computed one is a call of the like, ilike or rlike
// function (likeCall).
func (p *parser) like(e plan.Expr, t token) (plan.Expr, error) {
	kind := plan.MatchRLike
	switch strings.ToUpper(t.text) {
	case "LIKE":
		kind = plan.MatchLike
	case "ILIKE":
		kind = plan.MatchILike
	}
	if u := p.peek(); u.isWord("ANY") || u.isWord("ALL") || u.isWord("SOME") {
		return nil, p.errAt(u, "%s %s (…) is not supported yet", strings.ToUpper(t.text), strings.ToUpper(u.text))
	}
	pt := p.peek()
	pat, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	lit, ok := pat.(plan.Literal)
	if !ok {
		return p.likeCall(e, pat, kind)
	}
	var out plan.Expr
	switch v := lit.Value.(type) {
	case nil:
		out = plan.Cast{E: lit, To: arrow.FixedWidthTypes.Boolean}
	case string:
		out = plan.Like{E: e, Pattern: v, Escape: '\\', Kind: kind}
	default:
		return nil, p.errAt(pt, "the pattern of %s must be a string, found %s", strings.ToUpper(t.text), lit)
	}
	if kind != plan.MatchRLike && p.peek().isWord("ESCAPE") {
		p.next()
		et := p.next()
		if et.kind != tokString || len([]rune(et.text)) != 1 {
			return nil, p.errAt(et, "ESCAPE takes a string of one character, found %s", et.describe())
		}
		if l, ok := out.(plan.Like); ok {
			l.Escape = []rune(et.text)[0]
			out = l
		}
	}
	if l, ok := out.(plan.Like); ok {
		if _, err := l.Regexp(); err != nil {
			return nil, p.errAt(pt, "%v", err)
		}
	}
	return out, nil
}
