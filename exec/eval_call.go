package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/functions"
	"github.com/millrace/millrace/plan"
)

// callEval evaluates a call of the function library: the arguments that
// are not literals are evaluated over the batch and passed to the bound
// function; literals were bound by value.
type callEval struct {
	args  []evaluator // nil for a literal argument
	bound functions.Bound
}

func compileCall(c plan.Call, s *arrow.Schema) (evaluator, error) {
	b, args, err := plan.BindCall(c, s)
	if err != nil {
		return nil, err
	}
	ce := callEval{args: make([]evaluator, len(c.Args)), bound: b}
	for i, a := range c.Args {
		if args[i].Const {
			continue
		}
		if ce.args[i], err = compileExpr(a, s); err != nil {
			return nil, err
		}
	}
	return ce, nil
}

func (c callEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(c.args))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, e := range c.args {
		if e == nil {
			continue
		}
		v, err := e.value(mem, rec)
		if err != nil {
			return nil, err
		}
		cols[i] = v
	}
	return c.bound.Eval(mem, cols, int(rec.NumRows()))
}

func (c callEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	return predFromValue(mem, c, rec, sel, out)
}

// dateArithmetic is the date_add/date_sub call that date ± days is.
func dateArithmetic(e plan.Binary, s *arrow.Schema) (plan.Call, bool) {
	lt, err1 := plan.TypeOf(e.L, s)
	rt, err2 := plan.TypeOf(e.R, s)
	if err1 != nil || err2 != nil {
		return plan.Call{}, false
	}
	return plan.DateArithmetic(e, lt, rt)
}
