package plan

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// StaticScan reads a bounded table (a dimension table) for stream-static
// joins.
type StaticScan struct {
	Table sources.Table
}

func (s *StaticScan) Schema() *arrow.Schema { return s.Table.Schema() }
func (s *StaticScan) Children() []Node      { return nil }
func (s *StaticScan) Describe() string      { return "StaticScan " + s.Table.Name() }

// JoinType is the kind of join.
type JoinType int

// Join types, as Spark names them.
const (
	InnerJoin JoinType = iota
	LeftOuterJoin
	RightOuterJoin
	FullOuterJoin
	LeftSemiJoin
	// LeftAntiJoin keeps the left rows without a match. Only a static
	// right side supports it: a streaming right side could always match
	// later (Spark refuses it too).
	LeftAntiJoin
)

var joinNames = [...]string{"inner", "left_outer", "right_outer", "full_outer", "left_semi", "left_anti"}

func (j JoinType) String() string { return joinNames[j] }

// Unbounded marks a missing side of a time range.
const (
	NoLower = math.MinInt64
	NoUpper = math.MaxInt64
)

// Join joins Left and Right on equal keys and, for stream-stream joins, an
// event-time range: Right's TimeRight minus Left's TimeLeft lies in
// [Lower, Upper] microseconds (NoLower/NoUpper when open). A strict
// condition (< or >) is held as the inclusive bound one microsecond
// inside it; LowerStrict and UpperStrict remember that it was strict,
// which Spark's state cleanup depends on.
type Join struct {
	Left, Right              Node
	How                      JoinType
	LeftKeys, RightKeys      []string
	TimeLeft, TimeRight      string
	Lower, Upper             int64
	LowerStrict, UpperStrict bool
	// Using drops the right keys from the output (JoinUsing).
	Using  bool
	schema *arrow.Schema
}

// EmitsUnmatched reports whether rows of side (0 left, 1 right) that match
// nothing are part of the join's output.
func (j *Join) EmitsUnmatched(side int) bool {
	switch j.How {
	case LeftOuterJoin, LeftAntiJoin:
		return side == 0
	case RightOuterJoin:
		return side == 1
	case FullOuterJoin:
		return true
	}
	return false
}

func (j *Join) Schema() *arrow.Schema { return j.schema }
func (j *Join) Children() []Node      { return []Node{j.Left, j.Right} }
func (j *Join) Describe() string {
	d := fmt.Sprintf("Join %s on %v = %v", j.How, j.LeftKeys, j.RightKeys)
	if j.TimeLeft != "" {
		d += fmt.Sprintf(" and %s - %s in [%s, %s]", j.TimeRight, j.TimeLeft, bound(j.Lower), bound(j.Upper))
	}
	return d
}

func bound(v int64) string {
	switch v {
	case NoLower:
		return "-inf"
	case NoUpper:
		return "+inf"
	}
	return fmt.Sprintf("%dus", v)
}

// IsStatic reports whether a plan reads only static tables.
func IsStatic(n Node) bool {
	if _, ok := n.(*Scan); ok {
		return false
	}
	for _, c := range n.Children() {
		if !IsStatic(c) {
			return false
		}
	}
	return true
}

// NewJoin analyzes a join whose condition is a conjunction of equalities
// between a left and a right column and, optionally, comparisons between a
// left and a right timestamp column (± a duration) bounding the time range.
func NewJoin(left, right Node, cond Expr, how JoinType) (*Join, error) {
	j := &Join{Left: left, Right: right, How: how, Lower: NoLower, Upper: NoUpper}
	ls, rs := left.Schema(), right.Schema()
	side := func(name string) (int, error) {
		_, inL := fieldOf(ls, name)
		_, inR := fieldOf(rs, name)
		switch {
		case inL && inR:
			return 0, fmt.Errorf("join: column %s is on both sides; rename one (WithColumnRenamed) or use JoinUsing", name)
		case inL:
			return 1, nil
		case inR:
			return 2, nil
		}
		return 0, fmt.Errorf("join: column %q not found; the left side has %s, the right side %s", name, columnar.FieldNames(ls), columnar.FieldNames(rs))
	}
	for _, c := range conjuncts(cond) {
		b, ok := c.(Binary)
		if !ok || !b.Op.IsComparison() {
			return nil, fmt.Errorf("join: condition %s is not supported: use equalities and time-range comparisons joined by AND", c)
		}
		la, loff, lok := timeTerm(b.L)
		ra, roff, rok := timeTerm(b.R)
		if !lok || !rok {
			return nil, fmt.Errorf("join: condition %s is not supported: compare a column with a column (± a duration)", c)
		}
		ls1, err := side(la)
		if err != nil {
			return nil, err
		}
		rs1, err := side(ra)
		if err != nil {
			return nil, err
		}
		if ls1 == rs1 {
			return nil, fmt.Errorf("join: condition %s compares two columns of the same side; filter before the join instead", c)
		}
		op := b.Op
		if ls1 == 2 { // make it left op right
			la, ra, loff, roff = ra, la, roff, loff
			op = flipCmp(op)
		}
		if op == OpEq && loff == 0 && roff == 0 {
			j.LeftKeys = append(j.LeftKeys, la)
			j.RightKeys = append(j.RightKeys, ra)
			continue
		}
		// a time bound: L.la + loff op R.ra + roff, i.e. R.ra - L.la op' loff - roff
		lf, _ := fieldOf(ls, la)
		rf, _ := fieldOf(rs, ra)
		if !columnar.IsTimestamp(lf.Type) || !columnar.IsTimestamp(rf.Type) {
			return nil, fmt.Errorf("join: condition %s: range conditions need timestamp columns", c)
		}
		if (j.TimeLeft != "" && j.TimeLeft != la) || (j.TimeRight != "" && j.TimeRight != ra) {
			return nil, fmt.Errorf("join: condition %s: the time range must use one column per side", c)
		}
		j.TimeLeft, j.TimeRight = la, ra
		d := loff - roff
		switch op {
		case OpLe, OpLt: // L + loff <= R + roff → R - L >= d; < → R - L >= d + 1µs
			lo := d
			if op == OpLt {
				lo = d + 1
			}
			if lo > j.Lower {
				j.Lower, j.LowerStrict = lo, op == OpLt
			}
		case OpGe, OpGt: // R - L <= d; > → R - L <= d - 1µs
			hi := d
			if op == OpGt {
				hi = d - 1
			}
			if hi < j.Upper {
				j.Upper, j.UpperStrict = hi, op == OpGt
			}
		default:
			return nil, fmt.Errorf("join: condition %s: use <, <=, >, >= or Between for time ranges", c)
		}
	}
	if len(j.LeftKeys) == 0 {
		return nil, fmt.Errorf("join: the condition needs at least one equality between a left and a right column")
	}
	for i := range j.LeftKeys {
		lf, _ := fieldOf(ls, j.LeftKeys[i])
		rf, _ := fieldOf(rs, j.RightKeys[i])
		if !arrow.TypeEqual(lf.Type, rf.Type) {
			return nil, fmt.Errorf("join: key %s is %s but %s is %s; cast one side", j.LeftKeys[i], columnar.TypeName(lf.Type), j.RightKeys[i], columnar.TypeName(rf.Type))
		}
		if !keyType(lf.Type) && !arrow.TypeEqual(lf.Type, WindowType) {
			return nil, fmt.Errorf("join: cannot join on %s of type %s", j.LeftKeys[i], columnar.TypeName(lf.Type))
		}
	}
	return j, j.buildSchema()
}

// NewJoinUsing joins on columns of the same name on both sides, which
// appear once in the output.
func NewJoinUsing(left, right Node, keys []string, how JoinType) (*Join, error) {
	j := &Join{Left: left, Right: right, How: how, Lower: NoLower, Upper: NoUpper, Using: true, LeftKeys: keys, RightKeys: keys}
	for _, k := range keys {
		lf, okL := fieldOf(left.Schema(), k)
		rf, okR := fieldOf(right.Schema(), k)
		if !okL || !okR {
			return nil, fmt.Errorf("joinUsing: key %q must be a column of both sides", k)
		}
		if !arrow.TypeEqual(lf.Type, rf.Type) {
			return nil, fmt.Errorf("joinUsing: key %s is %s on the left and %s on the right; cast one side", k, columnar.TypeName(lf.Type), columnar.TypeName(rf.Type))
		}
	}
	if how == RightOuterJoin || how == FullOuterJoin {
		return nil, fmt.Errorf("joinUsing: %s joins keep both key columns: use Join with a condition", how)
	}
	return j, j.buildSchema()
}

func (j *Join) buildSchema() error {
	var fields []arrow.Field
	seen := map[string]bool{}
	nullL := j.How == RightOuterJoin || j.How == FullOuterJoin
	nullR := j.How == LeftOuterJoin || j.How == FullOuterJoin
	for _, f := range j.Left.Schema().Fields() {
		f.Nullable = f.Nullable || nullL
		fields = append(fields, f)
		seen[f.Name] = true
	}
	if j.How != LeftSemiJoin && j.How != LeftAntiJoin {
		skip := map[string]bool{}
		if j.Using {
			for _, k := range j.RightKeys {
				skip[k] = true
			}
		}
		for _, f := range j.Right.Schema().Fields() {
			if skip[f.Name] {
				continue
			}
			if seen[f.Name] {
				return fmt.Errorf("join: both sides have a column %s; rename one (WithColumnRenamed) before the join", f.Name)
			}
			f.Nullable = f.Nullable || nullR
			fields = append(fields, f)
		}
	}
	j.schema = arrow.NewSchema(fields, nil)
	return nil
}

func fieldOf(s *arrow.Schema, name string) (arrow.Field, bool) {
	idx := s.FieldIndices(name)
	if len(idx) != 1 {
		return arrow.Field{}, false
	}
	return s.Field(idx[0]), true
}

func conjuncts(e Expr) []Expr {
	if b, ok := Unalias(e).(Binary); ok && b.Op == OpAnd {
		return append(conjuncts(b.L), conjuncts(b.R)...)
	}
	return []Expr{Unalias(e)}
}

// timeTerm matches col, col + lit, col - lit or lit + col (lit an
// interval, time.Duration, or an int64 of µs).
func timeTerm(e Expr) (string, int64, bool) {
	switch e := Unalias(e).(type) {
	case ColumnRef:
		return e.Name, 0, true
	case Binary:
		c, ok := Unalias(e.L).(ColumnRef)
		lit, ok2 := Unalias(e.R).(Literal)
		if c2, okR := Unalias(e.R).(ColumnRef); !ok && okR && e.Op == OpAdd {
			c, ok = c2, true
			lit, ok2 = Unalias(e.L).(Literal)
		}
		if !ok || !ok2 || (e.Op != OpAdd && e.Op != OpSub) {
			return "", 0, false
		}
		v, ok := NormalizeLiteral(lit.Value).(int64)
		if !ok {
			return "", 0, false
		}
		if e.Op == OpSub {
			v = -v
		}
		return c.Name, v, true
	}
	return "", 0, false
}

func flipCmp(op BinaryOp) BinaryOp {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}
