package kernels

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// StructField returns field i of s as a column of s's length, null where
// s is null (Arrow lets a child hold any value under a null parent; a
// field access reads null there, as Spark's GetStructField). The caller
// releases the result.
func StructField(mem memory.Allocator, s *array.Struct, i int) arrow.Array {
	f := s.Field(i) // already sliced to s's offset and length
	if s.NullN() == 0 {
		f.Retain()
		return f
	}
	idx := make([]int32, s.Len())
	for r := range idx {
		if s.IsNull(r) {
			idx[r] = -1
		} else {
			idx[r] = int32(r)
		}
	}
	return TakeChunks(mem, f.DataType(), []arrow.Array{f}, nil, idx)
}
