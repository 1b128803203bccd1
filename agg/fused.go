package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The common count(*) + sum(int64 column) pair runs as one scatter loop:
// with many groups each per-group array access is a cache miss, and doing
// both updates of a row in one iteration shares the loop and the group id
// load. The pair is found once, in NewTable.

// fusedPair indexes a CountAll and an int64-result Sum accumulator of a
// Table; count < 0 when there is none.
type fusedPair struct {
	count, sum int
}

func findFusedPair(accs []accumulator) fusedPair {
	f := fusedPair{count: -1, sum: -1}
	for i, a := range accs {
		switch a := a.(type) {
		case *countAcc:
			if a.all && f.count < 0 {
				f.count = i
			}
		case *sumAcc[int64]:
			if f.sum < 0 {
				f.sum = i
			}
		}
	}
	if f.count < 0 || f.sum < 0 {
		return fusedPair{count: -1, sum: -1}
	}
	return f
}

// updateFused runs the fused loop when the pair exists and the sum's
// argument is an int64 column without nulls; it reports whether it did.
func (t *Table) updateFused(args []arrow.Array, sel []int32) bool {
	f := t.fused
	if f.count < 0 {
		return false
	}
	arg, ok := args[t.specs[f.sum].Arg].(*array.Int64)
	if !ok || arg.NullN() > 0 {
		return false
	}
	counts := t.accs[f.count].(*countAcc).counts
	sa := t.accs[f.sum].(*sumAcc[int64])
	countSumInt64(counts, sa.sums, t.groups, arg.Int64Values(), sel)
	sa.markAll(t.groups)
	return true
}

func countSumInt64(counts, sums []int64, groups []uint32, vals []int64, sel []int32) {
	if sel == nil {
		vals = vals[:len(groups)]
		for i, g := range groups {
			counts[g]++
			sums[g] += vals[i]
		}
		return
	}
	sel = sel[:len(groups)]
	for i, g := range groups {
		counts[g]++
		sums[g] += vals[sel[i]]
	}
}
