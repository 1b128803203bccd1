package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// TestDateMathConditionalRelease evaluates the date/time, math and
// conditional functions over columns with nulls on a checked allocator:
// every buffer they allocate is released or handed to the result.
func TestDateMathConditionalRelease(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	ts := func() arrow.Array {
		b := array.NewTimestampBuilder(mem, columnar.Timestamp)
		defer b.Release()
		b.AppendValues([]arrow.Timestamp{1709214330123456, -1}, nil)
		b.AppendNull()
		return b.NewArray()
	}
	str := func() arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues([]string{"2024-02-29 10:00:00", "bad"}, nil)
		b.AppendNull()
		return b.NewArray()
	}
	dbl := func() arrow.Array {
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.AppendValues([]float64{2.5, -0.5}, nil)
		b.AppendNull()
		return b.NewArray()
	}
	i32 := func() arrow.Array {
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.AppendValues([]int32{3, 0}, nil)
		b.AppendNull()
		return b.NewArray()
	}
	boolean := func() arrow.Array {
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.AppendValues([]bool{true, false}, nil)
		b.AppendNull()
		return b.NewArray()
	}
	col := func(mk func() arrow.Array) Arg { a := mk(); defer a.Release(); return Arg{Type: a.DataType()} }
	lit := func(v any, t arrow.DataType) Arg { return Arg{Type: t, Const: true, Value: v} }
	s := arrow.BinaryTypes.String
	for _, c := range []struct {
		name string
		args []Arg
		cols []func() arrow.Array
	}{
		{"year", []Arg{col(ts)}, []func() arrow.Array{ts}},
		{"hour", []Arg{col(str)}, []func() arrow.Array{str}},
		{"date_format", []Arg{col(ts), lit("yyyy-MM-dd EEE", s)}, []func() arrow.Array{ts, nil}},
		{"to_timestamp", []Arg{col(str), lit("yyyy-MM-dd HH:mm:ss", s)}, []func() arrow.Array{str, nil}},
		{"to_date", []Arg{col(str)}, []func() arrow.Array{str}},
		{"unix_timestamp", []Arg{col(str)}, []func() arrow.Array{str}},
		{"from_unixtime", []Arg{col(i32)}, []func() arrow.Array{i32}},
		{"date_trunc", []Arg{lit("week", s), col(ts)}, []func() arrow.Array{nil, ts}},
		{"date_add", []Arg{col(ts), col(i32)}, []func() arrow.Array{ts, i32}},
		{"datediff", []Arg{col(str), col(ts)}, []func() arrow.Array{str, ts}},
		{"add_months", []Arg{col(ts), lit(int32(1), arrow.PrimitiveTypes.Int32)}, []func() arrow.Array{ts, nil}},
		{"round", []Arg{col(dbl), lit(int32(1), arrow.PrimitiveTypes.Int32)}, []func() arrow.Array{dbl, nil}},
		{"floor", []Arg{col(dbl)}, []func() arrow.Array{dbl}},
		{"ln", []Arg{col(dbl)}, []func() arrow.Array{dbl}},
		{"pow", []Arg{col(dbl), col(i32)}, []func() arrow.Array{dbl, i32}},
		{"greatest", []Arg{col(dbl), col(i32), lit(nil, arrow.Null)}, []func() arrow.Array{dbl, i32, nil}},
		{"pmod", []Arg{col(i32), lit(int32(2), arrow.PrimitiveTypes.Int32)}, []func() arrow.Array{i32, nil}},
		{"coalesce", []Arg{col(str), lit("none", s)}, []func() arrow.Array{str, nil}},
		{"if", []Arg{col(boolean), col(i32), col(str)}, []func() arrow.Array{boolean, i32, str}},
		{"nullif", []Arg{col(i32), lit(int32(0), arrow.PrimitiveTypes.Int32)}, []func() arrow.Array{i32, nil}},
		{"nvl2", []Arg{col(str), col(dbl), lit(int32(0), arrow.PrimitiveTypes.Int32)}, []func() arrow.Array{str, dbl, nil}},
	} {
		b, err := Bind(c.name, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cols := make([]arrow.Array, len(c.cols))
		for i, mk := range c.cols {
			if mk != nil {
				cols[i] = mk()
			}
		}
		out, err := b.Eval(mem, cols, 3)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if out.Len() != 3 || !out.IsNull(2) && c.name != "coalesce" && c.name != "if" && c.name != "nvl2" {
			t.Errorf("%s: %s", c.name, out)
		}
		out.Release()
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}
}
