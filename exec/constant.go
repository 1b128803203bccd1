package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// constantArray returns an array of n copies of v (nil for nulls) of type t.
// v is a normalised literal (see plan.NormalizeLiteral).
func constantArray(mem memory.Allocator, t arrow.DataType, v any, n int) (arrow.Array, error) {
	if t.ID() == arrow.NULL {
		return array.NewNull(n), nil
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(n)
	if v == nil {
		b.AppendNulls(n)
		return b.NewArray(), nil
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		x, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("literal %v is not int64", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
	case *array.Int32Builder:
		x, ok := v.(int32)
		if !ok {
			return nil, fmt.Errorf("literal %v is not int32", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
	case *array.Float64Builder:
		x, ok := v.(float64)
		if !ok {
			return nil, fmt.Errorf("literal %v is not float64", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("literal %v is not bool", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
	case *array.StringBuilder:
		x, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("literal %v is not a string", v)
		}
		for i := 0; i < n; i++ {
			b.Append(x)
		}
	case *array.Date32Builder:
		x, ok := v.(arrow.Date32)
		if !ok {
			return nil, fmt.Errorf("literal %v is not a date", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(x)
		}
	case *array.TimestampBuilder:
		x, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("literal %v is not a timestamp", v)
		}
		for i := 0; i < n; i++ {
			b.UnsafeAppend(arrow.Timestamp(x))
		}
	default:
		return nil, fmt.Errorf("cannot make a constant column of type %s", t)
	}
	return b.NewArray(), nil
}
