package lake

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestTakeRowsNoLeak(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := makeRecord(mem, []row{{id: 1, part: "a"}, {id: 2, part: "b"}})
	defer rec.Release()
	r, err := takeRows(context.Background(), mem, rec, []int32{1})
	if err != nil {
		t.Fatal(err)
	}
	r.Release()
}

func TestPartitionArrayNoLeak(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a, err := partitionArray(mem, arrow.BinaryTypes.String, "abc", false, 10)
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
}
