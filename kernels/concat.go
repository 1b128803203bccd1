package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Concat returns the rows of arrs, all of type dt, one array after another,
// in a new array allocated from mem; every type Take supports is supported.
// The caller releases the result (and keeps its references to arrs).
//
// array.Concatenate does the work (a copy of each buffer range) with two
// exceptions, because arrow-go v18.8 fails on them with a nil pointer
// dereference: empty inputs are dropped first (a zero-length dictionary
// array has no index buffer), and a type holding a dictionary below its top
// level (list<dictionary>, struct<dictionary>, ...) is gathered row by row
// with TakeChunks, since its empty nested dictionaries cannot be dropped.
func Concat(mem memory.Allocator, dt arrow.DataType, arrs []arrow.Array) arrow.Array {
	nonEmpty := make([]arrow.Array, 0, len(arrs))
	total := 0
	for _, a := range arrs {
		if a.Len() > 0 {
			nonEmpty = append(nonEmpty, a)
			total += a.Len()
		}
	}
	if len(nonEmpty) == 0 {
		return array.MakeArrayOfNull(mem, dt, 0)
	}
	if nestedDictionary(dt, true) {
		ch := make([]uint32, 0, total)
		idx := make([]int32, 0, total)
		for c, a := range nonEmpty {
			for r := 0; r < a.Len(); r++ {
				ch = append(ch, uint32(c))
				idx = append(idx, int32(r))
			}
		}
		return TakeChunks(mem, dt, nonEmpty, ch, idx)
	}
	out, err := array.Concatenate(nonEmpty, mem)
	if err != nil {
		// Concatenate fails only on mismatched or unsupported types.
		panic(fmt.Sprintf("kernels: concat %s: %v", dt, err))
	}
	return out
}

// nestedDictionary reports whether dt holds a dictionary type below its top
// level (at its top level too unless top).
func nestedDictionary(dt arrow.DataType, top bool) bool {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		return !top || nestedDictionary(t.ValueType, false)
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if nestedDictionary(f.Type, false) {
				return true
			}
		}
	case arrow.ExtensionType:
		return nestedDictionary(t.StorageType(), top)
	}
	return false
}
