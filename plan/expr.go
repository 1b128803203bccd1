package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Expr is a node of an expression tree. Implementations are the types of
// this file; they are values, compared structurally and printed with String.
type Expr interface {
	String() string
	isExpr()
}

// ColumnRef names a column of the input.
type ColumnRef struct{ Name string }

// GetField is field Name of the struct value E: window.start. Spark's
// GetStructField; its output name is the field name. Over a ColumnRef it
// is how `a.b` is written in SQL and in Col("a.b"): Spark resolves a dotted
// name as a column a and its field b, never as a column named "a.b", which
// must be backquoted (Col("`a.b`")). A SQL front end that has table
// qualifiers resolves GetField{ColumnRef{t}, c} as column c of table t first,
// as Spark does.
type GetField struct {
	E    Expr
	Name string
}

// Case is CASE WHEN Cond THEN Then ELSE Else END: Then where Cond is true,
// else Else (NULL when Else is nil). A CASE of several branches is a chain,
// each Else the next Case, so that expressions stay comparable values:
// CASE WHEN a THEN x WHEN b THEN y END is Case{a, x, Case{b, y, nil}}.
// Spark's simple CASE e WHEN v THEN … is built as WHEN e = v. The result
// type is the common type of the branches (Spark's: numbers widen to the
// widest, NULL takes the other's type); other mixes are refused.
type Case struct {
	Cond, Then Expr
	Else       Expr
}

// Branches flattens the chain: the WHEN branches in order and the final
// ELSE (nil for none).
func (c Case) Branches() (whens []Case, els Expr) {
	var e Expr = c
	for {
		k, ok := e.(Case)
		if !ok {
			return whens, e
		}
		whens = append(whens, Case{Cond: k.Cond, Then: k.Then})
		if k.Else == nil {
			return whens, nil
		}
		e = k.Else
	}
}

// MatchKind is the pattern language of a Like.
type MatchKind int

// Pattern languages.
const (
	MatchLike  MatchKind = iota // SQL LIKE: % any sequence, _ one character
	MatchILike                  // LIKE, ignoring case
	MatchRLike                  // a regular expression found anywhere (RE2 syntax)
)

var matchNames = [...]string{"LIKE", "ILIKE", "RLIKE"}

func (k MatchKind) String() string { return matchNames[k] }

// Like matches the string E against a constant Pattern: E LIKE Pattern
// ESCAPE Escape, E ILIKE Pattern, or E RLIKE Pattern. It is null where E
// is null. Escape is LIKE's escape character, `\` by default (Spark's).
type Like struct {
	E       Expr
	Pattern string
	Escape  rune
	Kind    MatchKind
}

// Literal is a constant: nil, bool, int32, int64, float64, string,
// time.Time (a timestamp) or time.Duration (an interval, IntervalType).
type Literal struct{ Value any }

// BinaryOp is an operator of two operands.
type BinaryOp int

// Binary operators. Comparisons yield booleans, arithmetic yields numbers.
const (
	OpAdd BinaryOp = iota
	OpSub
	OpMul
	OpDiv
	OpMod
	OpEq
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpAnd
	OpOr
)

var binaryOpNames = [...]string{"+", "-", "*", "/", "%", "=", "!=", "<", "<=", ">", ">=", "AND", "OR"}

func (o BinaryOp) String() string { return binaryOpNames[o] }

// IsComparison reports whether o compares its operands.
func (o BinaryOp) IsComparison() bool { return o >= OpEq && o <= OpGe }

// IsArithmetic reports whether o computes a number.
func (o BinaryOp) IsArithmetic() bool { return o <= OpMod }

// Binary applies Op to L and R.
type Binary struct {
	Op   BinaryOp
	L, R Expr
}

// Not negates a boolean expression (three-valued: NOT NULL is NULL).
type Not struct{ E Expr }

// Neg negates a number.
type Neg struct{ E Expr }

// IsNull tests an expression for null; Negated makes it IS NOT NULL.
type IsNull struct {
	E       Expr
	Negated bool
}

// Cast converts E to type To.
type Cast struct {
	E  Expr
	To arrow.DataType
}

// Alias names the result of E.
type Alias struct {
	E    Expr
	Name string
}

// Window assigns event-time windows: tumbling when Slide == Size, sliding
// otherwise. Its value is a struct<start, end> of timestamps named "window".
type Window struct {
	Time   Expr
	Size   time.Duration
	Slide  time.Duration
	Offset time.Duration
}

// Session assigns session windows: rows of a key whose event times are
// less than Gap apart belong to one session [first, last + Gap). Its value
// is a struct<start, end> of timestamps named "session_window".
type Session struct {
	Time Expr
	Gap  time.Duration
}

// CurrentTimestamp is the processing time of the batch (Spark's
// current_timestamp()): one value for every row of a micro-batch, taken
// when the batch was planned and recorded in the offsets log, so a
// re-run batch sees the same value.
type CurrentTimestamp struct{}

func (CurrentTimestamp) String() string { return "current_timestamp()" }

// Invalid stands for an expression that could not be built, such as SQL
// expression text that does not parse: Text is what was given, Err why it
// failed. Analysis reports Err wherever the expression is used, so that
// the error surfaces where other analysis errors do.
type Invalid struct {
	Text string
	Err  error
}

func (i Invalid) String() string { return "expr(" + strconv.Quote(i.Text) + ")" }

// AggFunc is an aggregate function.
type AggFunc int

// Aggregate functions.
const (
	AggCount AggFunc = iota
	AggCountAll
	AggSum
	AggMin
	AggMax
	AggAvg
	AggCountDistinct
	// AggApproxCountDistinct is Spark's approx_count_distinct: a
	// HyperLogLog++ estimate with relative standard deviation RSD.
	AggApproxCountDistinct
	// AggFirst and AggLast are Spark's first/last: the value of the first
	// (last) row of the group in arrival order, or of the first (last)
	// non-null one with IgnoreNulls.
	AggFirst
	AggLast
	// AggCollectList and AggCollectSet are Spark's collect_list and
	// collect_set: the group's non-null values (distinct ones for the set)
	// as a list, in arrival order.
	AggCollectList
	AggCollectSet
)

// DefaultRSD is approx_count_distinct's relative standard deviation when
// none is given (Spark's default).
const DefaultRSD = 0.05

var aggNames = [...]string{"count", "count", "sum", "min", "max", "avg", "count_distinct",
	"approx_count_distinct", "first", "last", "collect_list", "collect_set"}

func (f AggFunc) String() string { return aggNames[f] }

// Agg is an aggregate function call. Arg is nil for count(*).
type Agg struct {
	Func AggFunc
	Arg  Expr
	// RSD is approx_count_distinct's relative standard deviation; 0 means
	// DefaultRSD.
	RSD float64
	// IgnoreNulls makes first/last skip nulls (Spark's first(x, true) or
	// first(x) IGNORE NULLS).
	IgnoreNulls bool
	// Spelling is the function name as written when Spark names the output
	// column after it rather than after Func: "first_value", "last_value".
	Spelling string
	// Distinct is approx_count_distinct, collect_list or collect_set
	// (DISTINCT x): the same result but for collect_list, which becomes
	// collect_set; Spark names the output after it.
	Distinct bool
}

// Precision is the number of HyperLogLog++ index bits approx_count_distinct
// uses for a relative standard deviation (Spark's formula; 2^p registers).
func Precision(rsd float64) int {
	if rsd == 0 {
		rsd = DefaultRSD
	}
	p := math.Ceil(2 * math.Log(1.106/rsd) / math.Log(2))
	if math.IsNaN(p) || p < 0 {
		return 0
	}
	if p > 64 {
		return 64
	}
	return int(p)
}

// MaxPrecision bounds approx_count_distinct's precision: 2^19 registers
// take 420 KB of state per group. Spark 4.2 still runs rsd 0.002 (p 19)
// and fails at run time from rsd 0.001 (p 21); Millrace refuses p > 19
// when the query is planned.
const MaxPrecision = 19

// ValidRSD checks approx_count_distinct's relative standard deviation as
// Spark does (at least 4 index bits: rsd below 0.391), and against
// MaxPrecision.
func ValidRSD(rsd float64) error {
	if math.IsNaN(rsd) || rsd <= 0 || Precision(rsd) < 4 {
		return fmt.Errorf("approx_count_distinct: relative standard deviation %v is out of range: HLL++ requires at least 4 bits for addressing; use a lower error, at most 39%% (0.39)", rsd)
	}
	if Precision(rsd) > MaxPrecision {
		return fmt.Errorf("approx_count_distinct: relative standard deviation %v needs %d index bits (%d KB of state per group); use at least 0.0016 (%d bits)", rsd, Precision(rsd), (1<<Precision(rsd))*6/8/1024, MaxPrecision)
	}
	return nil
}

// SparkName is the output column name Spark gives the aggregate:
// approx_count_distinct(x) whatever its rsd, first(x) with or without
// ignoreNulls, first_value(x) when so spelled.
func (a Agg) SparkName() string {
	switch a.Func {
	case AggApproxCountDistinct, AggFirst, AggLast, AggCollectList, AggCollectSet:
		name := a.Func.String()
		if a.Spelling != "" {
			name = a.Spelling
		}
		if a.Distinct {
			name += "(DISTINCT "
		} else {
			name += "("
		}
		return name + a.Arg.String() + ")"
	}
	return a.String()
}

func (ColumnRef) isExpr()        {}
func (Literal) isExpr()          {}
func (Binary) isExpr()           {}
func (Not) isExpr()              {}
func (Neg) isExpr()              {}
func (IsNull) isExpr()           {}
func (Cast) isExpr()             {}
func (Alias) isExpr()            {}
func (Window) isExpr()           {}
func (Agg) isExpr()              {}
func (Session) isExpr()          {}
func (CurrentTimestamp) isExpr() {}
func (Invalid) isExpr()          {}
func (GetField) isExpr()         {}
func (Case) isExpr()             {}
func (Like) isExpr()             {}

func (c ColumnRef) String() string { return c.Name }

func (c Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	whens, els := c.Branches()
	for _, w := range whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if els != nil {
		b.WriteString(" ELSE " + els.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (l Like) String() string {
	s := "(" + l.E.String() + " " + l.Kind.String() + " " + Literal{Value: l.Pattern}.String()
	if l.Kind != MatchRLike && l.Escape != '\\' {
		s += " ESCAPE " + Literal{Value: string(l.Escape)}.String()
	}
	return s + ")"
}

func (g GetField) String() string { return g.E.String() + "." + QuoteName(g.Name) }

// QuoteName backquotes a name that would not read back as one name part
// (it holds a dot, a backquote or a space, or is empty).
func QuoteName(n string) string {
	if n != "" && !strings.ContainsAny(n, ".` ()") {
		return n
	}
	return "`" + strings.ReplaceAll(n, "`", "``") + "`"
}

// ParseColumnName splits a column name as Spark's col() does: on dots,
// except inside backquotes, where a doubled backquote stands for one:
// "window.start" is [window start], "`a.b`.c" is [a.b c].
func ParseColumnName(name string) ([]string, error) {
	var parts []string
	var cur strings.Builder
	inQuote, quoted := false, false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case inQuote && c == '`' && i+1 < len(name) && name[i+1] == '`':
			cur.WriteByte('`')
			i++
		case inQuote && c == '`':
			inQuote = false
		case inQuote:
			cur.WriteByte(c)
		case c == '`':
			if cur.Len() > 0 {
				return nil, fmt.Errorf("column name %q: a backquote may only start a name part", name)
			}
			inQuote, quoted = true, true
		case c == '.':
			if cur.Len() == 0 && !quoted {
				return nil, fmt.Errorf("column name %q: empty name part", name)
			}
			parts = append(parts, cur.String())
			cur.Reset()
			quoted = false
		default:
			if quoted {
				return nil, fmt.Errorf("column name %q: text after a closing backquote", name)
			}
			cur.WriteByte(c)
		}
	}
	if inQuote {
		return nil, fmt.Errorf("column name %q: unclosed backquote", name)
	}
	if cur.Len() == 0 && !quoted {
		return nil, fmt.Errorf("column name %q: empty name part", name)
	}
	return append(parts, cur.String()), nil
}

func (l Literal) String() string {
	switch v := l.Value.(type) {
	case nil:
		return "NULL"
	case string:
		return fmt.Sprintf("'%s'", strings.ReplaceAll(v, "'", "''"))
	case time.Time:
		return "TIMESTAMP '" + v.UTC().Format(time.RFC3339Nano) + "'"
	case arrow.Date32:
		return "DATE '" + v.FormattedString() + "'"
	case time.Duration:
		return "INTERVAL '" + v.String() + "'"
	default:
		return fmt.Sprint(v)
	}
}

func (b Binary) String() string {
	return "(" + b.L.String() + " " + b.Op.String() + " " + b.R.String() + ")"
}
func (n Not) String() string { return "(NOT " + n.E.String() + ")" }
func (n Neg) String() string { return "(- " + n.E.String() + ")" }

func (n IsNull) String() string {
	if n.Negated {
		return "(" + n.E.String() + " IS NOT NULL)"
	}
	return "(" + n.E.String() + " IS NULL)"
}

func (c Cast) String() string  { return "CAST(" + c.E.String() + " AS " + c.To.String() + ")" }
func (a Alias) String() string { return a.E.String() + " AS " + a.Name }

func (w Window) String() string {
	if w.Slide == w.Size {
		return fmt.Sprintf("window(%s, %s)", w.Time, w.Size)
	}
	return fmt.Sprintf("window(%s, %s, %s)", w.Time, w.Size, w.Slide)
}

func (s Session) String() string { return fmt.Sprintf("session_window(%s, %s)", s.Time, s.Gap) }

func (a Agg) String() string {
	switch {
	case a.Func == AggCountAll:
		return "count(*)"
	case a.Func == AggCountDistinct:
		return "count(DISTINCT " + a.Arg.String() + ")"
	case a.Func == AggApproxCountDistinct:
		// the rsd is part of the text (plan fingerprints compare it: it
		// sets the size of the state); SparkName is the output name
		rsd := a.RSD
		if rsd == 0 {
			rsd = DefaultRSD
		}
		return fmt.Sprintf("approx_count_distinct(%s, %v)", a.Arg, rsd)
	case (a.Func == AggFirst || a.Func == AggLast) && a.IgnoreNulls:
		return a.Func.String() + "(" + a.Arg.String() + ") IGNORE NULLS"
	case a.Distinct:
		return a.Func.String() + "(DISTINCT " + a.Arg.String() + ")"
	default:
		return a.Func.String() + "(" + a.Arg.String() + ")"
	}
}

// OutputName is the column name an expression gets in a projection: the
// alias, the column name, or the expression text as Spark does.
func OutputName(e Expr) string {
	switch e := e.(type) {
	case Alias:
		return e.Name
	case ColumnRef:
		return e.Name
	case GetField:
		return e.Name
	case Window:
		return "window"
	case Session:
		return "session_window"
	case Agg:
		return e.SparkName()
	default:
		return e.String()
	}
}

// Unalias strips an Alias.
func Unalias(e Expr) Expr {
	if a, ok := e.(Alias); ok {
		return a.E
	}
	return e
}

// FirstInvalid returns the error of the first Invalid in e, or nil.
func FirstInvalid(e Expr) error {
	var err error
	Walk(e, func(x Expr) {
		if i, ok := x.(Invalid); ok && err == nil {
			err = fmt.Errorf("%s: %w", i, i.Err)
		}
	})
	return err
}

// Walk calls fn on e and every sub-expression, depth first.
func Walk(e Expr, fn func(Expr)) {
	fn(e)
	switch e := e.(type) {
	case Binary:
		Walk(e.L, fn)
		Walk(e.R, fn)
	case Not:
		Walk(e.E, fn)
	case Neg:
		Walk(e.E, fn)
	case IsNull:
		Walk(e.E, fn)
	case Cast:
		Walk(e.E, fn)
	case Alias:
		Walk(e.E, fn)
	case GetField:
		Walk(e.E, fn)
	case Like:
		Walk(e.E, fn)
	case Call:
		for _, a := range e.Args {
			Walk(a, fn)
		}
	case Case:
		Walk(e.Cond, fn)
		Walk(e.Then, fn)
		if e.Else != nil {
			Walk(e.Else, fn)
		}
	case Window:
		Walk(e.Time, fn)
	case Session:
		Walk(e.Time, fn)
	case Agg:
		if e.Arg != nil {
			Walk(e.Arg, fn)
		}
	}
}

// MapChildren returns e with fn applied to each of its direct
// sub-expressions (e itself when it has none): the one place that knows
// every expression's children, for rewriters that handle a few kinds and
// recurse through the rest.
func MapChildren(e Expr, fn func(Expr) Expr) Expr {
	switch x := e.(type) {
	case Binary:
		return Binary{Op: x.Op, L: fn(x.L), R: fn(x.R)}
	case Not:
		return Not{E: fn(x.E)}
	case Neg:
		return Neg{E: fn(x.E)}
	case IsNull:
		return IsNull{E: fn(x.E), Negated: x.Negated}
	case Cast:
		return Cast{E: fn(x.E), To: x.To}
	case Alias:
		return Alias{E: fn(x.E), Name: x.Name}
	case GetField:
		return GetField{E: fn(x.E), Name: x.Name}
	case Like:
		x.E = fn(x.E)
		return x
	case Case:
		out := Case{Cond: fn(x.Cond), Then: fn(x.Then)}
		if x.Else != nil {
			out.Else = fn(x.Else)
		}
		return out
	case Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = fn(a)
		}
		return Call{Name: x.Name, Args: args}
	case Window:
		x.Time = fn(x.Time)
		return x
	case Session:
		x.Time = fn(x.Time)
		return x
	case Agg:
		if x.Arg != nil {
			x.Arg = fn(x.Arg)
		}
		return x
	}
	return e
}
