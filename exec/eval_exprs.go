package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/kernels"
)

// getFieldEval is a struct field access: field idx of its input struct,
// null where the struct is null.
type getFieldEval struct {
	in  evaluator
	idx int
}

func (g getFieldEval) value(mem memory.Allocator, rec arrow.RecordBatch) (arrow.Array, error) {
	x, err := g.in.value(mem, rec)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	s, ok := x.(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("field access on %s, not a struct", x.DataType())
	}
	return kernels.StructField(mem, s, g.idx), nil
}

func (g getFieldEval) pred(mem memory.Allocator, rec arrow.RecordBatch, sel, out []int32) ([]int32, error) {
	return predFromValue(mem, g, rec, sel, out)
}
