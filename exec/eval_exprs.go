package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// getFieldEval is a struct field access: field idx of its input struct,
// null where the struct is null.
type getFieldEval struct {
	in  evaluator
	idx int
}

func (g getFieldEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	x, err := g.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	s, ok := x.(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("field access on %s, not a struct", x.DataType())
	}
	return kernels.StructField(mem, s, g.idx), nil
}

func (g getFieldEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	return predFromValue(mem, g, rec, sel, out)
}

// caseEval is CASE WHEN … THEN … [ELSE …] END. Each condition runs over
// the rows no earlier branch took (selection vectors); each THEN value is
// computed for its rows only, so a branch never fails or costs on a row it
// does not produce (an overflow check, say); the result gathers every row
// from its branch with one TakeChunks. Rows no branch takes are null.
type caseEval struct {
	conds []evaluator
	vals  []evaluator // len(conds), plus the ELSE when there is one
	typ   arrow.DataType
}

func compileCase(c plan.Case, s *arrow.Schema, typ arrow.DataType) (evaluator, error) {
	whens, els := c.Branches()
	out := caseEval{typ: typ}
	for _, w := range whens {
		cond, err := compileExpr(w.Cond, s)
		if err != nil {
			return nil, err
		}
		val, err := compileExpr(w.Then, s)
		if err != nil {
			return nil, err
		}
		out.conds = append(out.conds, cond)
		out.vals = append(out.vals, val)
	}
	if els != nil {
		val, err := compileExpr(els, s)
		if err != nil {
			return nil, err
		}
		out.vals = append(out.vals, val)
	}
	return out, nil
}

func (c caseEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	n := int(rec.NumRows())
	ch := make([]uint32, n)
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = -1
	}
	var srcs []arrow.Array
	defer func() { releaseAll(srcs) }()
	remaining := columnar.Identity(nil, n)
	for k, val := range c.vals {
		if len(remaining) == 0 {
			break
		}
		rows := remaining
		if k < len(c.conds) {
			var err error
			if rows, err = c.conds[k].pred(mem, rec, remaining, nil); err != nil {
				return nil, err
			}
			if len(rows) == 0 {
				continue
			}
			remaining = kernels.Difference(remaining, rows, nil)
		}
		v, mode, err := c.branchValue(mem, rec, val, rows)
		if err != nil {
			return nil, err
		}
		if v == nil { // a NULL branch: its rows stay null
			continue
		}
		src := uint32(len(srcs))
		srcs = append(srcs, v)
		for pos, r := range rows {
			ch[r] = src
			switch mode {
			case wholeBatch:
				idx[r] = r
			case oneValue:
				idx[r] = 0
			default:
				idx[r] = int32(pos)
			}
		}
	}
	if len(srcs) == 0 {
		return constantArray(mem, c.typ, nil, n)
	}
	return kernels.TakeChunks(mem, c.typ, srcs, ch, idx), nil
}

const (
	wholeBatch = iota // the value of every row of the batch
	oneValue          // one value for every row (a literal)
	rowsOnly          // the values of the branch's rows, in order
)

// branchValue computes val for rows of rec, converted to the CASE's type:
// a column is read whole, a literal once, anything else over just rows.
// It returns nil for a NULL value.
func (c caseEval) branchValue(mem memory.Allocator, rec arrow.RecordBatch, val evaluator, rows []int32) (arrow.Array, int, error) {
	var v arrow.Array
	var err error
	mode := rowsOnly
	switch e := val.(type) {
	case colEval:
		v, err, mode = rec.Column(e.idx), nil, wholeBatch
		v.Retain()
	case litEval:
		if e.v == nil {
			return nil, 0, nil
		}
		v, err = constantArray(mem, e.typ, e.v, 1)
		mode = oneValue
	default:
		sub := takeRows(mem, rec, rows)
		v, err = val.value(mem, sub)
		sub.Release()
	}
	if err != nil {
		return nil, 0, err
	}
	switch {
	case v.DataType().ID() == arrow.NULL:
		v.Release()
		return nil, 0, nil
	case !arrow.TypeEqual(v.DataType(), c.typ):
		w, err := kernels.Cast(mem, v, c.typ)
		v.Release()
		if err != nil {
			return nil, 0, err
		}
		v = w
	}
	return v, mode, nil
}

// takeRows is the batch of rec's rows at rows, every column gathered.
func takeRows(mem memory.Allocator, rec arrow.RecordBatch, rows []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = kernels.Take(mem, rec.Column(i), rows)
	}
	defer releaseAll(cols)
	return array.NewRecordBatch(rec.Schema(), cols, int64(len(rows)))
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

func (c caseEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	return predFromValue(mem, c, rec, sel, out)
}

// likeEval is LIKE, ILIKE or RLIKE against a constant pattern, compiled
// once: true or false where the string is not null, null where it is.
type likeEval struct {
	in evaluator
	m  *kernels.Matcher
	// want is the match result pred selects: false selects the rows that
	// do not match (the false rows of the value).
	want bool
}

func compileLike(l plan.Like, s *arrow.Schema) (evaluator, error) {
	in, err := compileExpr(l.E, s)
	if err != nil {
		return nil, err
	}
	m, ok := (*kernels.Matcher)(nil), false
	if l.Kind == plan.MatchLike {
		m, ok = kernels.LiteralLikeMatcher(l.Pattern, l.Escape)
	}
	if !ok {
		re, err := l.Regexp()
		if err != nil {
			return nil, err
		}
		m = kernels.NewRegexpMatcher(re)
	}
	return likeEval{in: in, m: m, want: true}, nil
}

func (l likeEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	return boolFromPreds(mem, l, likeEval{in: l.in, m: l.m, want: !l.want}, rec)
}

func (l likeEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	x, err := l.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	if x.DataType().ID() == arrow.NULL {
		return emptySel(out), nil
	}
	s, ok := x.(*array.String)
	if !ok {
		return nil, fmt.Errorf("LIKE of %s, not a string", x.DataType())
	}
	return l.m.Select(s, sel, out, l.want), nil
}
