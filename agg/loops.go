package agg

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Scatter loops: each updates per-group state at groups[i] from the value of
// live row i (row sel[i], or row i when sel is nil). The caller checks nulls
// once per batch: the plain loops assume no nulls, the *Valid loops skip rows
// whose bit in the validity bitmap bm (at offset off) is clear and set
// seen[g] for the rows they take.

type number interface {
	~int32 | ~int64 | ~float64
}

func countRows(counts []int64, groups []uint32) {
	for _, g := range groups {
		counts[g]++
	}
}

func sumLoop[T number, A int64 | float64](sums []A, groups []uint32, vals []T, sel []int32) {
	if sel == nil {
		vals = vals[:len(groups)]
		for i, g := range groups {
			sums[g] += A(vals[i])
		}
		return
	}
	sel = sel[:len(groups)]
	for i, g := range groups {
		sums[g] += A(vals[sel[i]])
	}
}

func sumValid[T number, A int64 | float64](sums []A, seen []bool, groups []uint32, vals []T, sel []int32, bm []byte, off int) {
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bitutil.BitIsSet(bm, off+r) {
			sums[g] += A(vals[r])
			seen[g] = true
		}
	}
}

// countSumValid is sumValid that also counts the values taken (for avg).
func countSumValid[T number](sums []float64, counts []int64, groups []uint32, vals []T, sel []int32, bm []byte, off int) {
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bitutil.BitIsSet(bm, off+r) {
			sums[g] += float64(vals[r])
			counts[g]++
		}
	}
}

// minLoop and maxLoop expect state initialised to the identity of the
// operation (see minMaxAcc.resize), so no seen check is needed per row.
func minLoop[T number, A int64 | float64](state []A, groups []uint32, vals []T, sel []int32) {
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if v := A(vals[r]); v < state[g] {
			state[g] = v
		}
	}
}

func maxLoop[T number, A int64 | float64](state []A, groups []uint32, vals []T, sel []int32) {
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if v := A(vals[r]); v > state[g] {
			state[g] = v
		}
	}
}

func minMaxValid[T number, A int64 | float64](state []A, seen []bool, isMax bool, groups []uint32, vals []T, sel []int32, bm []byte, off int) {
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		v := A(vals[r])
		if (isMax && v > state[g]) || (!isMax && v < state[g]) {
			state[g] = v
		}
		seen[g] = true
	}
}

// minMaxBools folds a boolean column into min/max state held as 0 (false)
// and 1 (true), nulls skipped. The bits are read one by one: min/max of
// booleans is rare enough not to merit word-at-a-time loops.
func minMaxBools(state []int64, seen []bool, isMax bool, groups []uint32, c *array.Boolean, sel []int32) {
	var bm []byte
	off := 0
	if c.NullN() > 0 {
		bm, off = validity(c)
	}
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		var v int64
		if c.Value(r) {
			v = 1
		}
		if (isMax && v > state[g]) || (!isMax && v < state[g]) {
			state[g] = v
		}
		seen[g] = true
	}
}
