package blackhole

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStructFieldsAreRead: a change inside a struct column (a window's end)
// changes the checksum.
func TestStructFieldsAreRead(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	typ := arrow.StructOf(arrow.Field{Name: "start", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "end", Type: arrow.PrimitiveTypes.Int64})
	build := func(end int64) arrow.Array {
		b := array.NewStructBuilder(mem, typ)
		defer b.Release()
		b.Append(true)
		b.FieldBuilder(0).(*array.Int64Builder).Append(10)
		b.FieldBuilder(1).(*array.Int64Builder).Append(end)
		return b.NewArray()
	}
	a, c := build(20), build(21)
	defer a.Release()
	defer c.Release()
	if ColumnChecksum(a) == ColumnChecksum(c) {
		t.Fatal("a struct field's value does not reach the checksum")
	}
}
