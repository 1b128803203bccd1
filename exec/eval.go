package exec

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// evaluator computes one expression over whole batches. It is compiled once
// per query: column indices and literal types are resolved up front so that
// evaluating a batch is a few kernel calls with no per-row dispatch.
type evaluator interface {
	// value returns the expression's value for every row of rec (the
	// selection is not applied); the caller owns the result.
	value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error)
	// pred appends to out[:0] the rows of sel (nil = all) where the
	// expression is TRUE. Only boolean expressions support it.
	pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error)
}

// appendValues evaluates evs over rec and appends the results to cols. On
// error the arrays appended so far stay in cols, for the caller to release.
func appendValues(mem memory.Allocator, rec arrow.RecordBatch, evs []evaluator, cols []arrow.Array) ([]arrow.Array, error) {
	for _, e := range evs {
		v, err := e.value(mem, rec)
		if err != nil {
			return cols, err
		}
		cols = append(cols, v)
	}
	return cols, nil
}

// compileExpr compiles e against the input schema s.
func compileExpr(e plan.Expr, s *arrow.Schema) (evaluator, error) {
	typ, err := plan.TypeOf(e, s)
	if err != nil {
		return nil, err
	}
	switch e := e.(type) {
	case plan.Alias:
		return compileExpr(e.E, s)
	case plan.ColumnRef:
		idx, err := columnar.FieldIndex(s, e.Name)
		if err != nil {
			return nil, err
		}
		return colEval{idx: idx}, nil
	case plan.Literal:
		return litEval{v: plan.NormalizeLiteral(e.Value), typ: typ}, nil
	case plan.GetField:
		idx, _, err := plan.StructField(e, s)
		if err != nil {
			return nil, err
		}
		in, err := compileExpr(e.E, s)
		if err != nil {
			return nil, err
		}
		return getFieldEval{in: in, idx: idx}, nil
	case plan.Case:
		return compileCase(e, s, typ)
	case plan.Like:
		return compileLike(e, s)
	case plan.Call:
		return compileCall(e, s)
	case plan.Binary:
		if typ.ID() == arrow.DATE32 {
			if c, ok := dateArithmetic(e, s); ok {
				return compileCall(c, s)
			}
		}
		return compileBinary(plan.CoerceDates(e, s), s, typ)
	case plan.Not:
		return compileNot(e.E, s)
	case plan.Neg:
		in, err := compileExpr(e.E, s)
		if err != nil {
			return nil, err
		}
		return negEval{in: in}, nil
	case plan.IsNull:
		in, err := compileExpr(e.E, s)
		if err != nil {
			return nil, err
		}
		return isNullEval{in: in, negated: e.Negated}, nil
	case plan.Cast:
		in, err := compileExpr(e.E, s)
		if err != nil {
			return nil, err
		}
		return castEval{in: in, to: e.To}, nil
	case plan.CurrentTimestamp:
		if compilingNow == nil {
			return nil, fmt.Errorf("current_timestamp() outside a query")
		}
		return nowEval{now: compilingNow}, nil
	case plan.Window:
		if e.Slide != e.Size {
			return nil, fmt.Errorf("%s: a sliding window gives several windows per row; it is supported as a grouping key only", e)
		}
		in, err := compileExpr(e.Time, s)
		if err != nil {
			return nil, err
		}
		return windowEval{time: in, size: e.Size.Microseconds(), offset: e.Offset.Microseconds()}, nil
	case plan.Agg:
		return nil, fmt.Errorf("%s: aggregate functions are supported in Agg only", e)
	}
	return nil, fmt.Errorf("cannot evaluate %T", e)
}

// pushNot rewrites NOT e so that negation reaches the leaves, where it is a
// negated comparison or IS NOT NULL; it returns nil when e is a leaf with no
// cheaper negation. De Morgan's laws and NOT(a < b) ≡ a >= b
// both hold in SQL's three-valued logic, so selections stay exact.
func pushNot(e plan.Expr) plan.Expr {
	switch e := plan.Unalias(e).(type) {
	case plan.Not:
		return e.E
	case plan.IsNull:
		return plan.IsNull{E: e.E, Negated: !e.Negated}
	case plan.Binary:
		switch {
		case e.Op == plan.OpAnd:
			return plan.Binary{Op: plan.OpOr, L: plan.Not{E: e.L}, R: plan.Not{E: e.R}}
		case e.Op == plan.OpOr:
			return plan.Binary{Op: plan.OpAnd, L: plan.Not{E: e.L}, R: plan.Not{E: e.R}}
		case e.Op.IsComparison():
			return plan.Binary{Op: negateCmp(e.Op), L: e.L, R: e.R}
		}
	case plan.Literal:
		if b, ok := e.Value.(bool); ok {
			return plan.Literal{Value: !b}
		}
		return e
	}
	return nil
}

// compileNot compiles NOT e. Where negation cannot be pushed further (a
// boolean column) it selects the rows whose value is false.
func compileNot(e plan.Expr, s *arrow.Schema) (evaluator, error) {
	if pushed := pushNot(e); pushed != nil {
		return compileExpr(pushed, s)
	}
	in, err := compileExpr(e, s)
	if err != nil {
		return nil, err
	}
	return notLeafEval{in: in}, nil
}

func negateCmp(op plan.BinaryOp) plan.BinaryOp {
	switch op {
	case plan.OpEq:
		return plan.OpNe
	case plan.OpNe:
		return plan.OpEq
	case plan.OpLt:
		return plan.OpGe
	case plan.OpLe:
		return plan.OpGt
	case plan.OpGt:
		return plan.OpLe
	default:
		return plan.OpLt
	}
}

func cmpOp(op plan.BinaryOp) kernels.CmpOp {
	return kernels.CmpOp(op - plan.OpEq)
}

func arithOp(op plan.BinaryOp) kernels.ArithOp {
	return kernels.ArithOp(op - plan.OpAdd)
}

func compileBinary(e plan.Binary, s *arrow.Schema, typ arrow.DataType) (evaluator, error) {
	l, err := compileExpr(e.L, s)
	if err != nil {
		return nil, err
	}
	r, err := compileExpr(e.R, s)
	if err != nil {
		return nil, err
	}
	switch {
	case e.Op == plan.OpAnd:
		return andEval{l: l, r: r}, nil
	case e.Op == plan.OpOr:
		return orEval{l: l, r: r, notL: mustNot(e.L, s), notR: mustNot(e.R, s)}, nil
	case e.Op.IsComparison():
		if l, r, err = coerceCmp(e, s, l, r); err != nil {
			return nil, err
		}
		return cmpEval{op: cmpOp(e.Op), l: l, r: r, neg: cmpOp(negateCmp(e.Op))}, nil
	case typ.ID() == arrow.TIMESTAMP:
		return newShift(e, s, l, r, typ)
	default:
		return arithEval{op: arithOp(e.Op), l: l, r: r, typ: typ, checked: compilingChecked, text: e.String()}, nil
	}
}

// mustNot compiles NOT e; e is already known to analyze.
func mustNot(e plan.Expr, s *arrow.Schema) evaluator {
	ev, err := compileNot(e, s)
	if err != nil {
		return nil
	}
	return ev
}

type colEval struct{ idx int }

func (c colEval) value(_ memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	a := rec.Column(c.idx)
	a.Retain()
	return a, nil
}

func (c colEval) pred(_ memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	b, ok := rec.Column(c.idx).(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("column %d is not boolean", c.idx)
	}
	return kernels.SelectTrue(b, sel, out), nil
}

type litEval struct {
	v   any
	typ arrow.DataType
}

func (l litEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return constantArray(mem, l.typ, l.v, int(rec.NumRows()))
}

func (l litEval) pred(_ memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	if b, ok := l.v.(bool); ok && b {
		if sel == nil {
			return columnar.Identity(out, int(rec.NumRows())), nil
		}
		return append(out[:0], sel...), nil
	}
	return emptySel(out), nil
}

// emptySel returns an empty selection. It is never nil: a nil selection
// means every row.
func emptySel(out []int32) []int32 {
	if out == nil {
		return []int32{}
	}
	return out[:0]
}

type andEval struct{ l, r evaluator }

func (a andEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, a, nil, rec)
}

func (a andEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	first, err := a.l.pred(mem, rec, sel, nil)
	if err != nil {
		return nil, err
	}
	return a.r.pred(mem, rec, first, out)
}

type orEval struct{ l, r, notL, notR evaluator }

func (o orEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, o, andEval{o.notL, o.notR}, rec)
}

func (o orEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	a, err := o.l.pred(mem, rec, sel, nil)
	if err != nil {
		return nil, err
	}
	b, err := o.r.pred(mem, rec, sel, nil)
	if err != nil {
		return nil, err
	}
	return kernels.Union(a, b, out), nil
}

type cmpEval struct {
	op, neg kernels.CmpOp
	l, r    evaluator
}

func (c cmpEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, c, cmpEval{op: c.neg, neg: c.op, l: c.l, r: c.r}, rec)
}

func (c cmpEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	if lit, ok := c.r.(litEval); ok {
		return c.scalar(mem, rec, c.op, c.l, lit, sel, out)
	}
	if lit, ok := c.l.(litEval); ok {
		return c.scalar(mem, rec, c.op.Flip(), c.r, lit, sel, out)
	}
	a, err := c.l.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b, err := c.r.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer b.Release()
	return kernels.CompareColumns(c.op, a, b, sel, out)
}

func (c cmpEval) scalar(mem memory.Allocator, rec arrow.RecordBatch, op kernels.CmpOp, col evaluator, lit litEval, sel, out []int32) ([]int32, error) {
	if lit.v == nil {
		return emptySel(out), nil // comparison with NULL is never true
	}
	if res, ok, err := divisibility(mem, rec, op, col, lit, sel, out); ok || err != nil {
		return res, err
	}
	a, err := col.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	return kernels.CompareScalar(op, a, lit.v, sel, out)
}

// divisibility evaluates `x % d = 0` (or `<> 0`) for a literal d as a
// divisibility test (kernels.SelectDivisible): no remainders are computed,
// and a multiply replaces each division (q2's filter). ok is false when
// the comparison is not of that form or x is not an int32 or int64 column
// (x is then evaluated again by the general path; only for types the
// remainder rejects).
func divisibility(mem memory.Allocator, rec arrow.RecordBatch, op kernels.CmpOp, col evaluator, lit litEval, sel, out []int32) ([]int32, bool, error) {
	mod, ok := col.(arithEval)
	if !ok || mod.op != kernels.Mod {
		return nil, false, nil
	}
	dl, ok := mod.r.(litEval)
	if !ok {
		return nil, false, nil
	}
	d, ok := kernels.ZeroRemainderTest(op, dl.v, lit.v)
	if !ok {
		return nil, false, nil
	}
	if mod.typ == nil || mod.typ.ID() != arrow.INT64 { // integer operands
		return nil, false, nil
	}
	x, err := mod.l.value(mem, rec)
	if err != nil {
		return nil, false, err
	}
	defer x.Release()
	res, ok := kernels.SelectDivisible(x, d, op == kernels.Eq, sel, out)
	return res, ok, nil
}

type arithEval struct {
	op   kernels.ArithOp
	l, r evaluator
	typ  arrow.DataType
	// checked: an integer result that wraps is an error (CheckOverflow);
	// text names the expression in it.
	checked bool
	text    string
}

func (a arithEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	if lit, ok := a.r.(litEval); ok && lit.v != nil {
		x, err := a.l.value(mem, rec)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		res, err := kernels.ArithScalar(mem, a.op, x, lit.v, false)
		return a.check(res, err, x, nil, lit.v, false)
	}
	if lit, ok := a.l.(litEval); ok && lit.v != nil {
		x, err := a.r.value(mem, rec)
		if err != nil {
			return nil, err
		}
		defer x.Release()
		res, err := kernels.ArithScalar(mem, a.op, x, lit.v, true)
		return a.check(res, err, x, nil, lit.v, true)
	}
	x, err := a.l.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	y, err := a.r.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer y.Release()
	if x.DataType().ID() == arrow.NULL || y.DataType().ID() == arrow.NULL {
		return constantArray(mem, a.typ, nil, int(rec.NumRows()))
	}
	res, err := kernels.Arith(mem, a.op, x, y)
	return a.check(res, err, x, y, nil, false)
}

// check fails a checked integer result that wrapped around int64, as
// Spark's ANSI mode does (ARITHMETIC_OVERFLOW).
func (a arithEval) check(res arrow.Array, err error, x, y arrow.Array, lit any, litLeft bool) (arrow.Array, error) {
	if err != nil || !a.checked {
		return res, err
	}
	if row := kernels.Overflowed(a.op, res, x, y, lit, litLeft); row >= 0 {
		res.Release()
		l, r := any(lit), x.GetOneForMarshal(row)
		if y != nil {
			l, r = r, y.GetOneForMarshal(row)
		} else if !litLeft {
			l, r = r, l
		}
		return nil, fmt.Errorf("%s overflows int64 for operands %v and %v (overflow checks are on, as in Spark's ANSI mode; without them it would wrap): cast an operand to float64, or turn the checks off: %w",
			a.text, l, r, agg.ErrOverflow)
	}
	return res, nil
}

func (a arithEval) pred(memory.Allocator, arrow.RecordBatch, []int32, []int32) ([]int32, error) {
	return nil, fmt.Errorf("arithmetic is not a condition")
}

type negEval struct{ in evaluator }

func (n negEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	x, err := n.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	return kernels.Negate(mem, x)
}

func (n negEval) pred(memory.Allocator, arrow.RecordBatch, []int32, []int32) ([]int32, error) {
	return nil, fmt.Errorf("negation is not a condition")
}

type isNullEval struct {
	in      evaluator
	negated bool
}

func (n isNullEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, n, isNullEval{in: n.in, negated: !n.negated}, rec)
}

func (n isNullEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	x, err := n.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	if n.negated {
		return kernels.SelectNotNull(x, sel, out), nil
	}
	return kernels.SelectNull(x, sel, out), nil
}

type castEval struct {
	in evaluator
	to arrow.DataType
}

func (c castEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	x, err := c.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	if x.DataType().ID() == arrow.NULL {
		return constantArray(mem, c.to, nil, x.Len())
	}
	return kernels.Cast(mem, x, c.to)
}

func (c castEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	return predFromValue(mem, c, rec, sel, out)
}

// notLeafEval selects rows where a boolean value is false.
type notLeafEval struct{ in evaluator }

func (n notLeafEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, n, n.in, rec)
}

func (n notLeafEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	x, err := n.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	b, ok := x.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("NOT of a non-boolean value")
	}
	return kernels.SelectFalse(b, sel, out), nil
}

func predFromValue(mem memory.Allocator, e evaluator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	x, err := e.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	b, ok := x.(*array.Boolean)
	if !ok {
		return nil, fmt.Errorf("condition is %s, not boolean", columnar.TypeName(x.DataType()))
	}
	return kernels.SelectTrue(b, sel, out), nil
}

// boolFromPreds materialises a boolean value from the rows where it is true
// (t) and false (f); other rows are null. f nil means false elsewhere.
func boolFromPreds(mem memory.Allocator, t, f evaluator, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	trues, err := t.pred(mem, rec, nil, nil)
	if err != nil {
		return nil, err
	}
	var falses []int32
	if f != nil {
		if falses, err = f.pred(mem, rec, nil, nil); err != nil {
			return nil, err
		}
	}
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	vals := make([]bool, n)
	valid := make([]bool, n)
	for _, i := range trues {
		vals[i], valid[i] = true, true
	}
	if f == nil {
		for i := range valid {
			valid[i] = true
		}
	}
	for _, i := range falses {
		valid[i] = true
	}
	b.AppendValues(vals, valid)
	return b.NewArray(), nil
}

// nowEval is current_timestamp(): the batch's recorded timestamp (µs),
// which the driver stores in the query's clock before each batch.
type nowEval struct{ now *atomic.Int64 }

func (n nowEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return constantArray(mem, columnar.Timestamp, n.now.Load(), int(rec.NumRows()))
}

// compilingNow is the batch clock of the query being compiled, and
// compilingChecked its Config.CheckOverflow. Compiles hold compileMu, so
// evaluators built by compileExpr capture their own query's settings
// without threading them through every constructor.
var (
	compileMu        sync.Mutex
	compilingNow     *atomic.Int64
	compilingChecked bool
)

func (nowEval) pred(memory.Allocator, arrow.RecordBatch, []int32, []int32) ([]int32, error) {
	return nil, fmt.Errorf("current_timestamp() is not a condition")
}

// windowEval is a tumbling window() as a value: struct<start, end> of the
// window holding each row (null where the time is null).
type windowEval struct {
	time         evaluator
	size, offset int64
}

func (w windowEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	tsArr, err := w.time.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer tsArr.Release()
	ts, ok := tsArr.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("window(): time is %s", tsArr.DataType())
	}
	starts := kernels.TumblingWindow(timestampValues(ts), nil, w.size, w.offset, nil)
	sb := array.NewStructBuilder(mem, plan.WindowType)
	defer sb.Release()
	start := sb.FieldBuilder(0).(*array.TimestampBuilder)
	end := sb.FieldBuilder(1).(*array.TimestampBuilder)
	sb.Reserve(len(starts))
	for i, st := range starts {
		if ts.IsNull(i) {
			sb.AppendNull() // a row without a time has no window
			continue
		}
		sb.Append(true)
		start.Append(arrow.Timestamp(st))
		end.Append(arrow.Timestamp(st + w.size))
	}
	return sb.NewArray(), nil
}

func (w windowEval) pred(memory.Allocator, arrow.RecordBatch, []int32, []int32) ([]int32, error) {
	return nil, fmt.Errorf("window() is not a condition")
}
