package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCompactInPlace: tables of one and two integer keys, small (load 1/4)
// and large (load 1/2, long runs of slots), filled and compacted at random
// again and again: after every compaction each surviving key finds its new
// group, every removed key is gone, and new keys go on getting the next ids.
func TestCompactInPlace(t *testing.T) {
	for _, pair := range []bool{false, true} {
		for _, size := range []int{40, 150, 3000, 30000} {
			for seed := range uint64(4) {
				t.Run(fmt.Sprintf("pair=%v/keys=%d/seed%d", pair, size, seed), func(t *testing.T) {
					testCompactInPlace(t, pair, size, seed)
				})
			}
		}
	}
}

func testCompactInPlace(t *testing.T, pair bool, size int, seed uint64) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(uint64(size), seed))
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	if pair {
		types = []arrow.DataType{tsType, arrow.PrimitiveTypes.Int64}
	}
	h, err := NewHashTable(types)
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		a, b  int64
		nullA bool
	}
	ids := map[key]uint32{} // the oracle: key → group
	var order []key         // group → key
	cols := func(ks []key) []arrow.Array {
		a := array.NewInt64Builder(mem)
		b := array.NewTimestampBuilder(mem, tsType)
		for _, k := range ks {
			if k.nullA {
				a.AppendNull()
			} else {
				a.Append(k.a)
			}
			b.Append(arrow.Timestamp(k.b))
		}
		if !pair {
			return []arrow.Array{a.NewArray()}
		}
		return []arrow.Array{b.NewArray(), a.NewArray()}
	}
	draw := func() key {
		// clustered values, so that hashes meet in runs of slots
		k := key{a: int64(rng.IntN(size)), nullA: rng.IntN(50) == 0}
		if k.nullA {
			k.a = 0 // one null key
		}
		if pair {
			k.b = int64(rng.IntN(5)) * 2_000_000
		}
		return k
	}
	rounds := 30
	if testing.Short() {
		rounds = 6
	}
	for round := range rounds {
		ks := make([]key, size/2+rng.IntN(size))
		for i := range ks {
			ks[i] = draw()
		}
		in := cols(ks)
		groups := h.FindOrInsert(in, nil, nil)
		for i, k := range ks {
			g, ok := ids[k]
			if !ok {
				g = uint32(len(order))
				ids[k] = g
				order = append(order, k)
			}
			if groups[i] != g {
				t.Fatalf("round %d: key %v got group %d, want %d", round, k, groups[i], g)
			}
		}
		for _, c := range in {
			c.Release()
		}
		// remove a random share (none, some, all but a few)
		share := []float64{0, 0.2, 0.5, 0.9, 0.99}[rng.IntN(5)]
		keep := make([]bool, len(order))
		var kept []key
		var gone []key
		for g := range keep {
			keep[g] = rng.Float64() >= share
			if keep[g] {
				kept = append(kept, order[g])
			} else {
				gone = append(gone, order[g])
			}
		}
		h.Compact(keep)
		order = kept
		clear(ids)
		for g, k := range order {
			ids[k] = uint32(g)
		}
		if h.Len() != len(order) {
			t.Fatalf("round %d: Len %d after Compact, want %d", round, h.Len(), len(order))
		}
		probe := append(append([]key(nil), kept...), gone...)
		in = cols(probe)
		found := h.Find(in, nil, nil)
		for i, k := range probe {
			want := uint32(NoGroup)
			if i < len(kept) {
				want = uint32(i)
			}
			if found[i] != want {
				t.Fatalf("round %d (removed %.0f%%): key %v found as %d, want %d", round, share*100, k, found[i], want)
			}
		}
		for _, c := range in {
			c.Release()
		}
	}
}
