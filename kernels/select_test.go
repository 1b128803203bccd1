package kernels

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSelectNullsAndBools(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		col := genArray(mem, rng, arrow.FixedWidthTypes.Boolean, c.n, c.nullProb, c.sliced)
		defer col.Release()
		b := col.(*array.Boolean)
		sel := randSel(rng, c.n, c.withSel)
		var wantNull, wantNotNull, wantTrue, wantFalse []int32
		for _, r := range live(sel, c.n) {
			switch {
			case b.IsNull(int(r)):
				wantNull = append(wantNull, r)
			case b.Value(int(r)):
				wantNotNull = append(wantNotNull, r)
				wantTrue = append(wantTrue, r)
			default:
				wantNotNull = append(wantNotNull, r)
				wantFalse = append(wantFalse, r)
			}
		}
		var out []int32
		out = SelectNull(col, sel, out)
		sameInt32s(t, "null", out, wantNull)
		if out == nil {
			t.Fatal("SelectNull returned nil")
		}
		out = SelectNotNull(col, sel, out)
		sameInt32s(t, "not null", out, wantNotNull)
		out = SelectTrue(b, sel, out)
		sameInt32s(t, "true", out, wantTrue)
		out = SelectFalse(b, sel, out)
		sameInt32s(t, "false", out, wantFalse)
	})
}

func TestUnionDifference(t *testing.T) {
	for _, n := range batchSizes {
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		for k := 0; k < 5; k++ {
			a := randSel(rng, n, true)
			b := randSel(rng, n, true)
			inA := map[int32]bool{}
			inB := map[int32]bool{}
			for _, r := range a {
				inA[r] = true
			}
			for _, r := range b {
				inB[r] = true
			}
			var wantU, wantD []int32
			for r := int32(0); r < int32(n); r++ {
				if inA[r] || inB[r] {
					wantU = append(wantU, r)
				}
				if inA[r] && !inB[r] {
					wantD = append(wantD, r)
				}
			}
			sameInt32s(t, "union", Union(a, b, nil), wantU)
			sameInt32s(t, "difference", Difference(a, b, nil), wantD)
			// Difference in place over a.
			ac := slices.Clone(a)
			sameInt32s(t, "difference in place", Difference(ac, b, ac), wantD)
		}
	}
}
