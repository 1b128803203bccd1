package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// accumulator is the state of one aggregate for every group: typed slices
// indexed by group id (DataFusion's GroupsAccumulator). Methods are called
// once per batch, never per row.
type accumulator interface {
	// resize makes groups 0..n-1 exist; new groups start empty.
	resize(n int)
	// update folds live row i of arg into group groups[i]. It follows a
	// resize to the table's group count, so groups created by this batch are
	// the ones resize added.
	update(groups []uint32, arg arrow.Array, sel []int32) error
	// compact keeps groups with keep[g] set, in order; remap[g] is the new
	// id of old group g (NoGroup when removed).
	compact(keep []bool, remap []uint32)
	// build returns the results of groups, in that order.
	build(mem memory.Allocator, groups []uint32) arrow.Array
	// resultType is the Arrow type of the results; nullable whether a result
	// can be null.
	resultType() (t arrow.DataType, nullable bool)
	memory() int64
}

// newAccumulator checks spec against its argument type and returns its state.
func newAccumulator(spec Spec, argType arrow.DataType) (accumulator, error) {
	switch spec.Func {
	case CountAll:
		return &countAcc{all: true}, nil
	case Count:
		return &countAcc{}, nil
	case CountDistinct:
		return newCountDistinct(argType)
	case ApproxCountDistinct:
		return newHLL(spec.RSD, argType)
	case First, Last:
		return newFirstLast(spec.Func == Last, spec.IgnoreNulls, argType)
	case CollectList, CollectSet:
		return newCollect(spec.Func == CollectList, argType)
	}
	var id arrow.Type
	if argType != nil {
		id = argType.ID()
	}
	isInt := id == arrow.INT64 || id == arrow.INT32
	switch spec.Func {
	case Sum:
		if isInt && spec.Checked {
			return &checkedSumAcc{name: spec.Name}, nil
		}
		if isInt {
			return &sumAcc[int64]{typ: arrow.PrimitiveTypes.Int64}, nil
		}
		if id == arrow.FLOAT64 {
			return &sumAcc[float64]{typ: arrow.PrimitiveTypes.Float64}, nil
		}
	case Avg:
		if isInt || id == arrow.FLOAT64 {
			return &avgAcc{}, nil
		}
	case Min, Max:
		if id == arrow.STRING || id == arrow.BINARY {
			return newMinMaxBytes(spec.Func == Max, argType), nil
		}
		// booleans are 0 (false) and 1 (true): false < true, as in Spark
		if isInt || id == arrow.TIMESTAMP || id == arrow.DATE32 || id == arrow.BOOL {
			return &minMaxAcc[int64]{typ: argType, isMax: spec.Func == Max}, nil
		}
		if id == arrow.FLOAT64 {
			return &minMaxAcc[float64]{typ: argType, isMax: spec.Func == Max}, nil
		}
	default:
		return nil, fmt.Errorf("agg: unknown aggregate function %d", spec.Func)
	}
	return nil, fmt.Errorf("agg: %s does not accept %s", spec.Func, columnar.TypeName(argType))
}

func growTo[T any](s []T, n int, fill T) []T {
	for len(s) < n {
		s = append(s, fill)
	}
	return s[:n]
}

func compactSlice[T any](s []T, keep []bool) []T {
	j := 0
	for g, k := range keep {
		if k {
			s[j] = s[g]
			j++
		}
	}
	return s[:j]
}

func validity(arg arrow.Array) ([]byte, int) {
	return arg.NullBitmapBytes(), arg.Data().Offset()
}

// countAcc is count(col) (nulls not counted) or count(*) when all is set.
type countAcc struct {
	all    bool
	counts []int64
}

func (a *countAcc) resize(n int) { a.counts = growTo(a.counts, n, 0) }

func (a *countAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	if a.all {
		kernels.CountRows(a.counts, groups)
		return nil
	}
	kernels.CountNonNull(a.counts, groups, arg, sel)
	return nil
}

func (a *countAcc) compact(keep []bool, _ []uint32) { a.counts = compactSlice(a.counts, keep) }

func (a *countAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	return buildNumbers(mem, arrow.PrimitiveTypes.Int64, a.counts, nil, groups)
}

func (a *countAcc) resultType() (arrow.DataType, bool) { return arrow.PrimitiveTypes.Int64, false }
func (a *countAcc) memory() int64                      { return int64(cap(a.counts)) * 8 }

// sumAcc is sum(col); a group with no non-null value sums to null.
type sumAcc[A int64 | float64] struct {
	typ  arrow.DataType
	sums []A
	seenFlags
}

func (a *sumAcc[A]) resize(n int) {
	a.sums = growTo(a.sums, n, 0)
	a.seenFlags.resize(n)
}

func (a *sumAcc[A]) update(groups []uint32, arg arrow.Array, sel []int32) error {
	if arg.NullN() == 0 {
		// One implementation of the plain loops: package kernels.
		switch c := arg.(type) {
		case *array.Int64:
			if sums, ok := any(a.sums).([]int64); ok {
				kernels.SumInt64(sums, groups, c, sel)
				a.markAll(groups)
				return nil
			}
		case *array.Float64:
			if sums, ok := any(a.sums).([]float64); ok {
				kernels.SumFloat64(sums, groups, c, sel)
				a.markAll(groups)
				return nil
			}
		}
	}
	switch c := arg.(type) {
	case *array.Int64:
		sumTyped(a, groups, c.Int64Values(), arg, sel)
	case *array.Int32:
		sumTyped(a, groups, c.Int32Values(), arg, sel)
	case *array.Float64:
		sumTyped(a, groups, c.Float64Values(), arg, sel)
	default:
		return fmt.Errorf("agg: sum of %s", columnar.TypeName(arg.DataType()))
	}
	return nil
}

func sumTyped[T number, A int64 | float64](a *sumAcc[A], groups []uint32, vals []T, arg arrow.Array, sel []int32) {
	if arg.NullN() == 0 {
		sumLoop(a.sums, groups, vals, sel)
		a.markAll(groups)
		return
	}
	bm, off := validity(arg)
	sumValid(a.sums, a.seen, groups, vals, sel, bm, off)
}

func (a *sumAcc[A]) compact(keep []bool, _ []uint32) {
	a.sums = compactSlice(a.sums, keep)
	a.seenFlags.compact(keep)
}

func (a *sumAcc[A]) build(mem memory.Allocator, groups []uint32) arrow.Array {
	return buildNumbers(mem, a.typ, a.sums, a.seen, groups)
}

func (a *sumAcc[A]) resultType() (arrow.DataType, bool) { return a.typ, true }
func (a *sumAcc[A]) memory() int64                      { return int64(cap(a.sums))*8 + int64(cap(a.seen)) }

// seenFlags records which groups of a sum, min or max have seen a non-null
// value. A batch without nulls sets the flag of every group it touches;
// rather than one random write per row, markAll relies on two facts: upTo
// is a prefix of groups known seen, and the groups resize added for this
// batch (from fresh on) were all created by its rows. So when every older
// group is already seen, the batch only sets the new ones, sequentially.
type seenFlags struct {
	seen  []bool
	upTo  int // seen[g] holds for every g < upTo
	fresh int // groups >= fresh were added by the last resize
}

func (s *seenFlags) resize(n int) {
	s.fresh = len(s.seen)
	s.seen = growTo(s.seen, n, false)
}

// markAll sets the flag of every group of groups, where groups holds every
// group the last resize added.
func (s *seenFlags) markAll(groups []uint32) {
	if s.upTo >= s.fresh {
		for g := s.fresh; g < len(s.seen); g++ {
			s.seen[g] = true
		}
		s.upTo, s.fresh = len(s.seen), len(s.seen)
		return
	}
	for _, g := range groups {
		s.seen[g] = true
	}
	s.advance()
}

func (s *seenFlags) advance() {
	for s.upTo < len(s.seen) && s.seen[s.upTo] {
		s.upTo++
	}
}

func (s *seenFlags) compact(keep []bool) {
	s.seen = compactSlice(s.seen, keep)
	s.upTo, s.fresh = 0, len(s.seen)
	s.advance()
}

// avgAcc is avg(col) as float64; null for a group without values.
type avgAcc struct {
	sums   []float64
	counts []int64
}

func (a *avgAcc) resize(n int) {
	a.sums = growTo(a.sums, n, 0)
	a.counts = growTo(a.counts, n, 0)
}

func (a *avgAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	switch c := arg.(type) {
	case *array.Int64:
		avgTyped(a, groups, c.Int64Values(), arg, sel)
	case *array.Int32:
		avgTyped(a, groups, c.Int32Values(), arg, sel)
	case *array.Float64:
		avgTyped(a, groups, c.Float64Values(), arg, sel)
	default:
		return fmt.Errorf("agg: avg of %s", columnar.TypeName(arg.DataType()))
	}
	return nil
}

func avgTyped[T number](a *avgAcc, groups []uint32, vals []T, arg arrow.Array, sel []int32) {
	if arg.NullN() == 0 {
		sumLoop(a.sums, groups, vals, sel)
		countRows(a.counts, groups)
		return
	}
	bm, off := validity(arg)
	countSumValid(a.sums, a.counts, groups, vals, sel, bm, off)
}

func (a *avgAcc) compact(keep []bool, _ []uint32) {
	a.sums = compactSlice(a.sums, keep)
	a.counts = compactSlice(a.counts, keep)
}

func (a *avgAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		if a.counts[g] == 0 {
			b.UnsafeAppendBoolToBitmap(false)
			continue
		}
		b.UnsafeAppend(a.sums[g] / float64(a.counts[g]))
	}
	return b.NewArray()
}

func (a *avgAcc) resultType() (arrow.DataType, bool) { return arrow.PrimitiveTypes.Float64, true }
func (a *avgAcc) memory() int64                      { return int64(cap(a.sums)+cap(a.counts)) * 8 }

// minMaxAcc is min(col) or max(col), of the input type (booleans held as
// 0 and 1; strings and binaries are minMaxBytesAcc). State starts at the
// identity of the operation (so the no-null loop needs no seen test).
// Comparisons with NaN are false, so a NaN only wins as a group's first value.
type minMaxAcc[A int64 | float64] struct {
	typ   arrow.DataType
	isMax bool
	vals  []A
	seenFlags
}

func (a *minMaxAcc[A]) identity() A {
	var v A
	switch p := any(&v).(type) {
	case *int64:
		*p = math.MaxInt64
		if a.isMax {
			*p = math.MinInt64
		}
	case *float64:
		*p = math.Inf(1)
		if a.isMax {
			*p = math.Inf(-1)
		}
	}
	return v
}

func (a *minMaxAcc[A]) resize(n int) {
	a.vals = growTo(a.vals, n, a.identity())
	a.seenFlags.resize(n)
}

func (a *minMaxAcc[A]) update(groups []uint32, arg arrow.Array, sel []int32) error {
	switch c := arg.(type) {
	case *array.Int64:
		if vals, ok := any(a.vals).([]int64); ok {
			if a.isMax {
				kernels.MaxInt64(vals, a.seen, groups, c, sel)
			} else {
				kernels.MinInt64(vals, a.seen, groups, c, sel)
			}
			return nil
		}
		minMaxTyped(a, groups, c.Int64Values(), arg, sel)
	case *array.Int32:
		minMaxTyped(a, groups, c.Int32Values(), arg, sel)
	case *array.Timestamp:
		minMaxTyped(a, groups, c.TimestampValues(), arg, sel)
	case *array.Date32:
		minMaxTyped(a, groups, c.Date32Values(), arg, sel)
	case *array.Boolean:
		if vals, ok := any(a.vals).([]int64); ok {
			minMaxBools(vals, a.seen, a.isMax, groups, c, sel)
			return nil
		}
		return fmt.Errorf("agg: min/max of a boolean into float state")
	case *array.Float64:
		if vals, ok := any(a.vals).([]float64); ok {
			if a.isMax {
				kernels.MaxFloat64(vals, a.seen, groups, c, sel)
			} else {
				kernels.MinFloat64(vals, a.seen, groups, c, sel)
			}
			return nil
		}
		minMaxTyped(a, groups, c.Float64Values(), arg, sel)
	default:
		return fmt.Errorf("agg: min/max of %s", columnar.TypeName(arg.DataType()))
	}
	return nil
}

func minMaxTyped[T number, A int64 | float64](a *minMaxAcc[A], groups []uint32, vals []T, arg arrow.Array, sel []int32) {
	if arg.NullN() > 0 {
		bm, off := validity(arg)
		minMaxValid(a.vals, a.seen, a.isMax, groups, vals, sel, bm, off)
		return
	}
	if a.isMax {
		maxLoop(a.vals, groups, vals, sel)
	} else {
		minLoop(a.vals, groups, vals, sel)
	}
	a.markAll(groups)
}

func (a *minMaxAcc[A]) compact(keep []bool, _ []uint32) {
	a.vals = compactSlice(a.vals, keep)
	a.seenFlags.compact(keep)
}

func (a *minMaxAcc[A]) build(mem memory.Allocator, groups []uint32) arrow.Array {
	return buildNumbers(mem, a.typ, a.vals, a.seen, groups)
}

func (a *minMaxAcc[A]) resultType() (arrow.DataType, bool) { return a.typ, true }
func (a *minMaxAcc[A]) memory() int64                      { return int64(cap(a.vals))*8 + int64(cap(a.seen)) }

// buildNumbers builds an array of type t from vals at groups; a group is
// null where valid is non-nil and false.
func buildNumbers[A int64 | float64](mem memory.Allocator, t arrow.DataType, vals []A, valid []bool, groups []uint32) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(len(groups))
	switch bb := b.(type) {
	case *array.Int64Builder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(int64(vals[g]))
		}
	case *array.Int32Builder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(int32(vals[g]))
		}
	case *array.TimestampBuilder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(arrow.Timestamp(vals[g]))
		}
	case *array.Date32Builder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(arrow.Date32(vals[g]))
		}
	case *array.Float64Builder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(float64(vals[g]))
		}
	case *array.BooleanBuilder:
		for _, g := range groups {
			if valid != nil && !valid[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(vals[g] == 1)
		}
	}
	return b.NewArray()
}
