package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestAggregates(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		ic := genArray(mem, rng, arrow.PrimitiveTypes.Int64, c.n, c.nullProb, c.sliced)
		defer ic.Release()
		fc := genArray(mem, rng, arrow.PrimitiveTypes.Float64, c.n, c.nullProb, c.sliced)
		defer fc.Release()
		ints, floats := ic.(*array.Int64), fc.(*array.Float64)
		sel := randSel(rng, c.n, c.withSel)
		rows := live(sel, c.n)
		ng := 1 + rng.IntN(40)
		groups := make([]uint32, len(rows))
		for i := range groups {
			groups[i] = uint32(rng.IntN(ng))
		}
		counts := make([]int64, ng)
		nonNull := make([]int64, ng)
		sums := make([]int64, ng)
		fsums := make([]float64, ng)
		mins, maxs := make([]int64, ng), make([]int64, ng)
		fmins, fmaxs := make([]float64, ng), make([]float64, ng)
		seen := make([][]bool, 4)
		for i := range seen {
			seen[i] = make([]bool, ng)
		}
		CountRows(counts, groups)
		CountNonNull(nonNull, groups, ic, sel)
		SumInt64(sums, groups, ints, sel)
		SumFloat64(fsums, groups, floats, sel)
		MinInt64(mins, seen[0], groups, ints, sel)
		MaxInt64(maxs, seen[1], groups, ints, sel)
		MinFloat64(fmins, seen[2], groups, floats, sel)
		MaxFloat64(fmaxs, seen[3], groups, floats, sel)

		for g := 0; g < ng; g++ {
			var cnt, nn, sum int64
			var fsum float64
			var mn, mx int64
			var fmn, fmx float64
			var iseen, fseen bool
			for i, r := range rows {
				if groups[i] != uint32(g) {
					continue
				}
				cnt++
				if ints.IsValid(int(r)) {
					v := ints.Value(int(r))
					nn++
					sum += v
					if !iseen || v < mn {
						mn = v
					}
					if !iseen || v > mx {
						mx = v
					}
					iseen = true
				}
				if floats.IsValid(int(r)) {
					v := floats.Value(int(r))
					fsum += v
					if !fseen || sparkFloatCmp(v, fmn) < 0 {
						fmn = v
					}
					if !fseen || sparkFloatCmp(v, fmx) > 0 {
						fmx = v
					}
					fseen = true
				}
			}
			if counts[g] != cnt || nonNull[g] != nn || sums[g] != sum {
				t.Fatalf("group %d: count %d/%d nonnull %d/%d sum %d/%d", g, counts[g], cnt, nonNull[g], nn, sums[g], sum)
			}
			if !(fsums[g] == fsum || math.IsNaN(fsums[g]) && math.IsNaN(fsum)) {
				t.Fatalf("group %d: float sum %v want %v", g, fsums[g], fsum)
			}
			if seen[0][g] != iseen || seen[1][g] != iseen || seen[2][g] != fseen || seen[3][g] != fseen {
				t.Fatalf("group %d: seen flags", g)
			}
			if iseen && (mins[g] != mn || maxs[g] != mx) {
				t.Fatalf("group %d: min/max %d %d want %d %d", g, mins[g], maxs[g], mn, mx)
			}
			if fseen && (sparkFloatCmp(fmins[g], fmn) != 0 || sparkFloatCmp(fmaxs[g], fmx) != 0) {
				t.Fatalf("group %d: fmin/fmax %v %v want %v %v", g, fmins[g], fmaxs[g], fmn, fmx)
			}
		}
	})
}
