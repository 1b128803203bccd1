package join

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestExtremesOracle feeds random batches (ties, null groups and values,
// selections, int32 and int64 values, max and min) through Keep and checks
// each batch's kept rows against a map of running extremes; Evict in
// between forgets closed groups without changing what is kept for the
// open ones.
func TestExtremesOracle(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, max := range []bool{true, false} {
		for _, int32Vals := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(7, uint64(len(t.Name()))))
			e, err := NewExtremes([]arrow.DataType{arrow.PrimitiveTypes.Int64}, max)
			if err != nil {
				t.Fatal(err)
			}
			best := map[int64]int64{}
			evicted := int64(-1) // groups at or below are closed
			for batch := 0; batch < 200; batch++ {
				n := rng.IntN(50)
				gb := array.NewInt64Builder(mem)
				tb := array.NewInt64Builder(mem)
				var vb array.Builder = array.NewInt64Builder(mem)
				if int32Vals {
					vb = array.NewInt32Builder(mem)
				}
				type row struct {
					g, v         int64
					gNull, vNull bool
				}
				rows := make([]row, n)
				for i := range rows {
					// groups move forward: a group is its time
					r := row{g: evicted + 1 + int64(rng.IntN(4)), v: int64(rng.IntN(7) - 3)}
					r.gNull, r.vNull = rng.IntN(10) == 0, rng.IntN(10) == 0
					rows[i] = r
					if r.gNull {
						gb.AppendNull()
					} else {
						gb.Append(r.g)
					}
					tb.Append(r.g)
					switch b := vb.(type) {
					case *array.Int64Builder:
						if r.vNull {
							b.AppendNull()
						} else {
							b.Append(r.v)
						}
					case *array.Int32Builder:
						if r.vNull {
							b.AppendNull()
						} else {
							b.Append(int32(r.v))
						}
					}
				}
				gs, ts, vs := gb.NewArray(), tb.NewArray(), vb.NewArray()
				gb.Release()
				tb.Release()
				vb.Release()
				var sel []int32
				if rng.IntN(2) == 0 {
					sel = []int32{}
					for i := range rows {
						if rng.IntN(3) > 0 {
							sel = append(sel, int32(i))
						}
					}
				}
				live := sel
				if live == nil {
					for i := range rows {
						live = append(live, int32(i))
					}
				}
				for _, r := range live {
					x := rows[r]
					if x.gNull || x.vNull {
						continue
					}
					b, ok := best[x.g]
					if !ok || (max && x.v > b) || (!max && x.v < b) {
						best[x.g] = x.v
					}
				}
				var want []int32
				for _, r := range live {
					x := rows[r]
					if !x.gNull && !x.vNull && x.v == best[x.g] {
						want = append(want, r)
					}
				}
				got, err := e.Keep([]arrow.Array{gs}, vs, ts, sel)
				if err != nil {
					t.Fatal(err)
				}
				if got == nil {
					t.Fatal("Keep returned a nil selection (every row)")
				}
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Fatalf("max %v int32 %v batch %d: kept %v, want %v", max, int32Vals, batch, got, want)
				}
				gs.Release()
				ts.Release()
				vs.Release()
				if rng.IntN(5) == 0 {
					evicted++
					e.Evict(evicted + 1)
					for g := range best {
						if g <= evicted {
							delete(best, g)
						}
					}
					if e.Groups() > 4*len(best)+8 {
						t.Fatalf("%d groups tracked for %d open ones", e.Groups(), len(best))
					}
				}
			}
			if e.MemoryUsage() <= 0 {
				t.Fatal("no memory reported")
			}
		}
	}
}
