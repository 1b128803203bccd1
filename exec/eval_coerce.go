package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// coerceCmp applies the implicit casts of a comparison
// (plan.ComparisonCast): the string side of a string compared with a
// timestamp, number or boolean is cast to the other side's type. A string
// literal is cast once, here, so that the comparison keeps its
// column-against-literal kernel.
func coerceCmp(e plan.Binary, s *arrow.Schema, l, r evaluator) (evaluator, evaluator, error) {
	lt, err := plan.TypeOf(e.L, s)
	if err != nil {
		return nil, nil, err
	}
	rt, err := plan.TypeOf(e.R, s)
	if err != nil {
		return nil, nil, err
	}
	if to := plan.ComparisonCast(lt, rt); to != nil {
		if l, err = castOperand(l, to); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	if to := plan.ComparisonCast(rt, lt); to != nil {
		if r, err = castOperand(r, to); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return l, r, nil
}

func castOperand(ev evaluator, to arrow.DataType) (evaluator, error) {
	lit, ok := ev.(litEval)
	if !ok {
		return castEval{in: ev, to: to}, nil
	}
	str, ok := lit.v.(string)
	if !ok {
		return castEval{in: ev, to: to}, nil
	}
	mem := memory.DefaultAllocator
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Append(str)
	in := b.NewArray()
	defer in.Release()
	out, err := kernels.Cast(mem, in, to)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	if out.IsNull(0) {
		return litEval{v: nil, typ: to}, nil
	}
	var v any
	switch a := out.(type) {
	case *array.Timestamp:
		v = int64(a.Value(0))
	case *array.Int32:
		v = a.Value(0)
	case *array.Int64:
		v = a.Value(0)
	case *array.Float64:
		v = a.Value(0)
	case *array.Boolean:
		v = a.Value(0)
	default:
		return castEval{in: ev, to: to}, nil
	}
	return litEval{v: v, typ: to}, nil
}

// shiftEval is a timestamp plus a constant interval (Spark's TimeAdd):
// ts + INTERVAL 1 HOUR, ts - INTERVAL '10' SECOND, or a time.Duration in
// the Go API. Null stays null.
type shiftEval struct {
	ts  evaluator
	typ *arrow.TimestampType
	by  int64 // in typ's unit
}

// newShift compiles l op r where one side is a timestamp and the other an
// interval literal (plan.IntervalType).
func newShift(e plan.Binary, s *arrow.Schema, l, r evaluator, typ arrow.DataType) (evaluator, error) {
	ts, iv := l, r
	lt, err := plan.TypeOf(e.L, s)
	if err != nil {
		return nil, err
	}
	if lt.ID() == arrow.DURATION {
		ts, iv = r, l
	}
	lit, ok := iv.(litEval)
	if !ok {
		return nil, fmt.Errorf("%s: the interval must be a literal", e)
	}
	us, ok := lit.v.(int64)
	if !ok {
		return nil, fmt.Errorf("%s: the interval must be a literal", e)
	}
	if e.Op == plan.OpSub {
		us = -us
	}
	tt := typ.(*arrow.TimestampType)
	by := us
	switch tt.Unit {
	case arrow.Second:
		by = us / 1_000_000
	case arrow.Millisecond:
		by = us / 1_000
	case arrow.Nanosecond:
		by = us * 1_000
	}
	return shiftEval{ts: ts, typ: tt, by: by}, nil
}

func (t shiftEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	x, err := t.ts.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	in, ok := x.(*array.Timestamp)
	if !ok {
		return nil, fmt.Errorf("timestamp arithmetic over %s", x.DataType())
	}
	b := array.NewTimestampBuilder(mem, t.typ)
	defer b.Release()
	b.Reserve(in.Len())
	vals := in.TimestampValues()
	for i := range vals {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(vals[i] + arrow.Timestamp(t.by))
	}
	return b.NewArray(), nil
}

func (t shiftEval) pred(memory.Allocator, arrow.RecordBatch, []int32, []int32) ([]int32, error) {
	return nil, fmt.Errorf("timestamp arithmetic is not a condition")
}
