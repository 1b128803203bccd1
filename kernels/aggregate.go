package kernels

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The aggregate updates take dense group ids: groups[i] is the group of
// live row i (row sel[i], or row i when sel is nil), so len(groups) is the
// number of live rows. Accumulators are slices indexed by group id that the
// caller has already grown to hold every id in groups. Null values are
// skipped. avg is SumX plus CountNonNull, divided by the caller.

// CountRows adds one per live row to its group (count(*)).
func CountRows(counts []int64, groups []uint32) {
	for _, g := range groups {
		counts[g]++
	}
}

// CountNonNull adds one per live row whose value in col is not null
// (count(col)).
func CountNonNull(counts []int64, groups []uint32, col arrow.Array, sel []int32) {
	bm, off := validity(col)
	if bm == nil {
		CountRows(counts, groups)
		return
	}
	if sel == nil {
		for i, g := range groups {
			counts[g] += int64(bitAt(bm, off+i))
		}
		return
	}
	sel = sel[:len(groups)]
	for i, g := range groups {
		counts[g] += int64(bitAt(bm, off+int(sel[i])))
	}
}

// SumInt64 adds each live non-null value of col to its group's sum
// (wrapping on overflow, like Spark's long sum without ANSI mode).
func SumInt64(sums []int64, groups []uint32, col *array.Int64, sel []int32) {
	sumLoop(sums, groups, col.Int64Values(), col, sel)
}

// SumFloat64 adds each live non-null value of col to its group's sum.
func SumFloat64(sums []float64, groups []uint32, col *array.Float64, sel []int32) {
	sumLoop(sums, groups, col.Float64Values(), col, sel)
}

func sumLoop[T int64 | float64](sums []T, groups []uint32, vals []T, col arrow.Array, sel []int32) {
	bm, off := validity(col)
	switch {
	case bm == nil && sel == nil:
		vals = vals[:len(groups)]
		for i, g := range groups {
			sums[g] += vals[i]
		}
	case bm == nil:
		sel = sel[:len(groups)]
		for i, g := range groups {
			sums[g] += vals[sel[i]]
		}
	case sel == nil:
		vals = vals[:len(groups)]
		for i, g := range groups {
			if bitAt(bm, off+i) != 0 {
				sums[g] += vals[i]
			}
		}
	default:
		sel = sel[:len(groups)]
		for i, g := range groups {
			r := int(sel[i])
			if bitAt(bm, off+r) != 0 {
				sums[g] += vals[r]
			}
		}
	}
}

// MinInt64 lowers each group's minimum to its live non-null values; seen[g]
// records that group g has a value (a group that never sees one stays null).
func MinInt64(mins []int64, seen []bool, groups []uint32, col *array.Int64, sel []int32) {
	extremeLoop(mins, seen, groups, col.Int64Values(), col, sel, false)
}

// MaxInt64 is MinInt64 for the maximum.
func MaxInt64(maxs []int64, seen []bool, groups []uint32, col *array.Int64, sel []int32) {
	extremeLoop(maxs, seen, groups, col.Int64Values(), col, sel, true)
}

// MinFloat64 is MinInt64 for doubles, in Spark's order (NaN is the largest
// value, so the minimum is NaN only when every value is NaN).
func MinFloat64(mins []float64, seen []bool, groups []uint32, col *array.Float64, sel []int32) {
	extremeLoop(mins, seen, groups, col.Float64Values(), col, sel, false)
}

// MaxFloat64 is MinFloat64 for the maximum (NaN if any value is NaN).
func MaxFloat64(maxs []float64, seen []bool, groups []uint32, col *array.Float64, sel []int32) {
	extremeLoop(maxs, seen, groups, col.Float64Values(), col, sel, true)
}

// less orders values the way Spark does: for doubles NaN is above every
// other value (the NaN tests fold away for integers).
func less[T int64 | float64](a, b T) bool {
	return a < b || (b != b && a == a)
}

func extremeLoop[T int64 | float64](acc []T, seen []bool, groups []uint32, vals []T, col arrow.Array, sel []int32, isMax bool) {
	bm, off := validity(col)
	if bm == nil && sel == nil {
		vals = vals[:len(groups)]
		if isMax {
			for i, g := range groups {
				if v := vals[i]; !seen[g] || less(acc[g], v) {
					acc[g] = v
					seen[g] = true
				}
			}
		} else {
			for i, g := range groups {
				if v := vals[i]; !seen[g] || less(v, acc[g]) {
					acc[g] = v
					seen[g] = true
				}
			}
		}
		return
	}
	// General path: selection and/or nulls (branches here are predictable
	// per batch; the common dense case is above).
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && bitAt(bm, off+r) == 0 {
			continue
		}
		v := vals[r]
		if !seen[g] || (isMax && less(acc[g], v)) || (!isMax && less(v, acc[g])) {
			acc[g] = v
			seen[g] = true
		}
	}
}
