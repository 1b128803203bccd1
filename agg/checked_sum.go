package agg

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// ErrOverflow is returned when a checked (ANSI) integer sum leaves the
// int64 range.
var ErrOverflow = errors.New("arithmetic overflow")

// checkedSumAcc is sum(col) over integers with ANSI overflow checks: the
// first sum to leave the int64 range fails the update (Spark's
// ARITHMETIC_OVERFLOW). The plain sumAcc wraps, as Spark does without ANSI
// mode; this one pays a compare per row, so it is used only when asked.
type checkedSumAcc struct {
	name string
	sums []int64
	seenFlags
}

func (a *checkedSumAcc) resize(n int) {
	a.sums = growTo(a.sums, n, 0)
	a.seenFlags.resize(n)
}

func (a *checkedSumAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	var g int
	switch c := arg.(type) {
	case *array.Int64:
		g = checkedSum(a.sums, a.seen, groups, c.Int64Values(), arg, sel)
	case *array.Int32:
		g = checkedSum(a.sums, a.seen, groups, c.Int32Values(), arg, sel)
	default:
		return fmt.Errorf("agg: checked sum of %s", columnar.TypeName(arg.DataType()))
	}
	a.advance()
	if g >= 0 {
		return fmt.Errorf("sum %s: the sum of a group passed the int64 range (ANSI overflow checks are on; without them it would wrap, as Spark without ANSI mode): sum a wider type (Cast to float64) or turn the checks off: %w", a.name, ErrOverflow)
	}
	return nil
}

// checkedSum adds the live non-null values to their groups' sums and
// returns the first group whose sum overflowed, or -1.
func checkedSum[T int32 | int64](sums []int64, seen []bool, groups []uint32, vals []T, arg arrow.Array, sel []int32) int {
	bm, off := validity(arg)
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		s, ok := kernels.AddChecked(sums[g], int64(vals[r]))
		if !ok {
			return int(g)
		}
		sums[g] = s
		seen[g] = true
	}
	return -1
}

func (a *checkedSumAcc) compact(keep []bool, _ []uint32) {
	a.sums = compactSlice(a.sums, keep)
	a.seenFlags.compact(keep)
}

func (a *checkedSumAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	return buildNumbers(mem, arrow.PrimitiveTypes.Int64, a.sums, a.seen, groups)
}

func (a *checkedSumAcc) resultType() (arrow.DataType, bool) {
	return arrow.PrimitiveTypes.Int64, true
}
func (a *checkedSumAcc) memory() int64 { return int64(cap(a.sums))*8 + int64(cap(a.seen)) }
