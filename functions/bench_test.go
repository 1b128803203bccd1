package functions

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Benchmarks of two hot functions over a batch of 4096 strings (not run in
// CI): go test -run - -bench . ./functions/

func benchStrings(n int) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(fmt.Sprintf("user-%d@example.com visited /page/%d", i, i%97))
	}
	return b.NewArray().(*array.String)
}

func benchStringCall(b *testing.B, name string, args []Arg) {
	s := benchStrings(4096)
	defer s.Release()
	args[0] = Arg{Type: arrow.BinaryTypes.String}
	bound, err := Bind(name, args)
	if err != nil {
		b.Fatal(err)
	}
	cols := make([]arrow.Array, len(args))
	cols[0] = s
	b.SetBytes(int64(len(s.ValueBytes())))
	b.ResetTimer()
	for range b.N {
		out, err := bound.Eval(memory.DefaultAllocator, cols, s.Len())
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}

func BenchmarkSubstring(b *testing.B) {
	benchStringCall(b, "substring", []Arg{{}, {Type: arrow.PrimitiveTypes.Int32, Const: true, Value: int32(6)}, {Type: arrow.PrimitiveTypes.Int32, Const: true, Value: int32(5)}})
}

func BenchmarkRegexpExtract(b *testing.B) {
	benchStringCall(b, "regexp_extract", []Arg{{}, {Type: arrow.BinaryTypes.String, Const: true, Value: `/page/([0-9]+)`}, {Type: arrow.PrimitiveTypes.Int32, Const: true, Value: int32(1)}})
}

func BenchmarkXXHash64(b *testing.B) {
	benchStringCall(b, "xxhash64", []Arg{{}})
}

func BenchmarkGetJSONObject(b *testing.B) {
	bl := array.NewStringBuilder(memory.DefaultAllocator)
	for i := range 4096 {
		bl.Append(fmt.Sprintf(`{"user": {"id": %d, "name": "user-%d"}, "tags": ["a", "b"], "price": %d.5}`, i, i, i))
	}
	s := bl.NewArray()
	bl.Release()
	defer s.Release()
	bound, err := Bind("get_json_object", []Arg{{Type: arrow.BinaryTypes.String}, {Type: arrow.BinaryTypes.String, Const: true, Value: "$.user.name"}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(s.(*array.String).ValueBytes())))
	b.ResetTimer()
	for range b.N {
		out, err := bound.Eval(memory.DefaultAllocator, []arrow.Array{s, nil}, s.Len())
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}
