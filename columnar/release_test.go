package columnar

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestReleaseAll releases each non-nil array once and clears the slice.
func TestReleaseAll(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.Append(1)
	a := b.NewArray()
	b.Release()
	cols := []arrow.Array{a, nil}
	ReleaseAll(cols)
	if cols[0] != nil {
		t.Fatal("element not cleared")
	}
	ReleaseAll(cols) // nothing left: no double release
}
