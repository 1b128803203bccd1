package exec

import (
	"cmp"
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// Spark's messages for sorting and limiting a stream
// (UnsupportedOperationChecker).
const (
	errSortStream   = "sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated DataFrame/Dataset in Complete output mode"
	errLimitUpdate  = "limits are not supported on streaming DataFrames/Datasets in Update output mode"
	errLimitAppend  = "a limit in Append output mode is not supported yet (Spark keeps the count of rows written in state): use Complete mode over an aggregation"
	errSortNotFinal = "a sort or limit must be the last operator of the query, over an aggregation in Complete output mode"
)

// sortSpec is the final ORDER BY … LIMIT of a query in Complete mode: each
// trigger's whole result is sorted (stably, so that rows equal on the
// keys keep the aggregation's order) and cut to the limit before the sink
// gets it.
type sortSpec struct {
	node *plan.Sort
	keys []evaluator
}

// checkSort applies Spark's rules for a plan whose root is a sort or
// limit, and compiles its keys.
func checkSort(n *plan.Sort, mode fmt.Stringer, complete, aggregated bool) (*sortSpec, error) {
	switch {
	case len(n.Keys) > 0 && (!complete || !aggregated):
		return nil, fmt.Errorf("%s (Spark's rule): ORDER BY is allowed after an aggregation in Complete mode only; the query runs in %s mode", errSortStream, mode)
	case !complete && mode.String() == "Update":
		return nil, fmt.Errorf("%s (Spark's rule)", errLimitUpdate)
	case !complete:
		return nil, fmt.Errorf("%s", errLimitAppend)
	case !aggregated:
		return nil, fmt.Errorf("%s", errSortNotFinal)
	}
	s := &sortSpec{node: n}
	for _, k := range n.Keys {
		ev, err := compileExpr(k.E, n.Input.Schema())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Describe(), err)
		}
		s.keys = append(s.keys, ev)
	}
	return s, nil
}

// apply returns the rows of recs (records of the sort's input schema)
// sorted and limited, as one record; nil when there are none.
func (s *sortSpec) apply(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	if n == 0 {
		return nil, nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, f := range schema.Fields() {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		cols[i] = kernels.Concat(mem, f.Type, parts)
	}
	all := array.NewRecordBatch(schema, cols, int64(n))
	defer all.Release()
	keys := make([]arrow.Array, len(s.keys))
	defer func() {
		for _, k := range keys {
			if k != nil {
				k.Release()
			}
		}
	}()
	for i, ev := range s.keys {
		k, err := ev.value(mem, all)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.node.Describe(), err)
		}
		keys[i] = k
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool {
		for i, k := range s.node.Keys {
			c := compareRows(keys[i], int(idx[a]), int(idx[b]), k.NullsFirst)
			if c == 0 {
				continue
			}
			if k.Desc && !keys[i].IsNull(int(idx[a])) && !keys[i].IsNull(int(idx[b])) {
				c = -c
			}
			return c < 0
		}
		return false
	})
	if l := s.node.Limit; l >= 0 && l < int64(n) {
		idx = idx[:l]
	}
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = kernels.Take(mem, c, idx)
	}
	defer func() {
		for _, c := range out {
			c.Release()
		}
	}()
	return array.NewRecordBatch(schema, out, int64(len(idx))), nil
}

// compareRows orders rows i and j of a: nulls first or last as asked;
// NaN after every other double, as Spark orders it.
func compareRows(a arrow.Array, i, j int, nullsFirst bool) int {
	ni, nj := a.IsNull(i), a.IsNull(j)
	switch {
	case ni && nj:
		return 0
	case ni || nj:
		c := 1
		if ni == nullsFirst {
			c = -1
		}
		return c
	}
	switch x := a.(type) {
	case *array.Int32:
		return cmp.Compare(x.Value(i), x.Value(j))
	case *array.Int64:
		return cmp.Compare(x.Value(i), x.Value(j))
	case *array.Timestamp:
		return cmp.Compare(x.Value(i), x.Value(j))
	case *array.Float64:
		u, v := x.Value(i), x.Value(j)
		switch un, vn := math.IsNaN(u), math.IsNaN(v); {
		case un && vn:
			return 0
		case un:
			return 1
		case vn:
			return -1
		}
		return cmp.Compare(u, v)
	case *array.String:
		return cmp.Compare(x.Value(i), x.Value(j))
	case *array.Boolean:
		u, v := x.Value(i), x.Value(j)
		switch {
		case u == v:
			return 0
		case !u:
			return -1
		}
		return 1
	case *array.Struct:
		for f := 0; f < x.NumField(); f++ {
			if c := compareRows(x.Field(f), i, j, nullsFirst); c != 0 {
				return c
			}
		}
	}
	return 0
}
