package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Conditional functions: the branches meet at Spark's wider type with
// string promotion (coalesce(1, 'a') is a string), as Spark's type
// coercion does for coalesce, if, nvl and nvl2.

func init() {
	register(&Func{Name: "coalesce", MinArgs: 1, MaxArgs: -1, Bind: bindCoalesce})
	register(&Func{Name: "ifnull", MinArgs: 2, MaxArgs: 2, Bind: bindCoalesce}, "nvl")
	register(&Func{Name: "nvl2", MinArgs: 3, MaxArgs: 3, Bind: bindNvl2})
	register(&Func{Name: "if", MinArgs: 3, MaxArgs: 3, Bind: bindIf}, "iff")
	register(&Func{Name: "nullif", MinArgs: 2, MaxArgs: 2, Bind: bindNullIf})
	register(&Func{Name: "nanvl", MinArgs: 2, MaxArgs: 2, Bind: bindNanvl})
}

// bindCoalesce is coalesce(a, …) and ifnull/nvl(a, b): the first non-null
// argument of each row.
func bindCoalesce(args []Arg) (Bound, error) {
	t, err := commonType(args, 0, true)
	if err != nil {
		return Bound{}, err
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		xs, err := castAll(mem, args, cols, 0, t, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		src := make([]int32, n)
		for i := range src {
			src[i] = -1
			for j, x := range xs {
				if x.IsValid(i) {
					src[i] = int32(j)
					break
				}
			}
		}
		return gather(mem, t, xs, src), nil
	}}, nil
}

// bindNvl2 is nvl2(a, b, c): b where a is not null, else c.
func bindNvl2(args []Arg) (Bound, error) {
	t, err := commonType(args, 1, true)
	if err != nil {
		return Bound{}, err
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		xs, err := castAll(mem, args, cols, 1, t, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		src := make([]int32, n)
		allNull := a.DataType().ID() == arrow.NULL // a NullArray has no bitmap for IsNull
		for i := range src {
			if allNull || a.IsNull(i) {
				src[i] = 1
			}
		}
		return gather(mem, t, xs, src), nil
	}}, nil
}

// bindIf is if(cond, a, b): a where cond is true, b where it is false or
// null.
func bindIf(args []Arg) (Bound, error) {
	if c := args[0].Type.ID(); c != arrow.BOOL && c != arrow.NULL {
		return Bound{}, typeErr(0, "a boolean condition", args[0].Type)
	}
	t, err := commonType(args, 1, true)
	if err != nil {
		return Bound{}, err
	}
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		c, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		xs, err := castAll(mem, args, cols, 1, t, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		src := make([]int32, n)
		cb, _ := c.(*array.Boolean)
		for i := range src {
			if cb == nil || cb.IsNull(i) || !cb.Value(i) {
				src[i] = 1
			}
		}
		return gather(mem, t, xs, src), nil
	}}, nil
}

// bindNullIf is nullif(a, b): null where a equals b, else a (of a's type);
// the two compare at their wider type, NaN equal to NaN as in Spark.
func bindNullIf(args []Arg) (Bound, error) {
	ct, err := commonType(args, 0, false)
	if err != nil {
		return Bound{}, err
	}
	t := args[0].Type
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		xs, err := castAll(mem, args, cols, 0, ct, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		cmp := comparer(xs[0])
		src := make([]int32, n)
		for i := range src {
			if xs[0].IsValid(i) && xs[1].IsValid(i) && cmp(xs[1], i) == 0 {
				src[i] = -1
			}
		}
		return gather(mem, t, []arrow.Array{a}, src), nil
	}}, nil
}

// bindNanvl is nanvl(a, b): a unless it is NaN, else b (doubles).
func bindNanvl(args []Arg) (Bound, error) {
	for i := range args {
		if !isDoubleInput(args[i].Type) {
			return Bound{}, typeErr(i, "a number", args[i].Type)
		}
	}
	t := arrow.PrimitiveTypes.Float64
	return Bound{Type: t, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		xs, err := castAll(mem, args, cols, 0, t, n)
		if err != nil {
			return nil, err
		}
		defer releaseAll(xs)
		v := fixedValues[float64](xs[0])
		src := make([]int32, n)
		for i := range src {
			if xs[0].IsValid(i) && v[i] != v[i] {
				src[i] = 1
			}
		}
		return gather(mem, t, xs, src), nil
	}}, nil
}

// gather builds the array of type t whose row i is row i of xs[src[i]]
// (all of type t), or null where src[i] < 0.
func gather(mem memory.Allocator, t arrow.DataType, xs []arrow.Array, src []int32) arrow.Array {
	n := len(src)
	switch t.ID() {
	case arrow.INT32, arrow.DATE32:
		return gatherFixed[int32](mem, t, xs, src)
	case arrow.INT64, arrow.TIMESTAMP:
		return gatherFixed[int64](mem, t, xs, src)
	case arrow.FLOAT64:
		return gatherFixed[float64](mem, t, xs, src)
	case arrow.NULL:
		return array.NewNull(n)
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	for i, j := range src {
		if j < 0 || xs[j].IsNull(i) {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.StringBuilder:
			bb.Append(xs[j].(*array.String).Value(i))
		case *array.BooleanBuilder:
			bb.Append(xs[j].(*array.Boolean).Value(i))
		default:
			if err := b.AppendValueFromString(xs[j].ValueStr(i)); err != nil {
				b.AppendNull()
			}
		}
	}
	return b.NewArray()
}

func gatherFixed[T fixedValue](mem memory.Allocator, t arrow.DataType, xs []arrow.Array, src []int32) arrow.Array {
	vals := make([][]T, len(xs))
	for j, x := range xs {
		vals[j] = fixedValues[T](x)
	}
	o := newFixedOut[T](mem, len(src))
	for i, j := range src {
		if j < 0 || xs[j].IsNull(i) {
			o.setNull(i)
			continue
		}
		o.V[i] = vals[j][i]
	}
	return o.finish(t)
}
