package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

var keyCases = []struct {
	name  string
	types []arrow.DataType
	card  int
}{
	{"int64", []arrow.DataType{arrow.PrimitiveTypes.Int64}, 500},
	{"int32", []arrow.DataType{arrow.PrimitiveTypes.Int32}, 100},
	{"timestamp", []arrow.DataType{tsType}, 300},
	{"date32", []arrow.DataType{arrow.FixedWidthTypes.Date32}, 200},
	{"date32_int64", []arrow.DataType{arrow.FixedWidthTypes.Date32, arrow.PrimitiveTypes.Int64}, 30},
	{"date32_string", []arrow.DataType{arrow.FixedWidthTypes.Date32, arrow.BinaryTypes.String}, 20},
	{"string", []arrow.DataType{arrow.BinaryTypes.String}, 400},
	{"binary", []arrow.DataType{arrow.BinaryTypes.Binary}, 50},
	{"float64", []arrow.DataType{arrow.PrimitiveTypes.Float64}, 40},
	{"bool", []arrow.DataType{arrow.FixedWidthTypes.Boolean}, 2},
	{"ts_int64", []arrow.DataType{tsType, arrow.PrimitiveTypes.Int64}, 30},
	{"mixed", []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Float64}, 12},
	{"window_int32", []arrow.DataType{tsType, tsType, arrow.PrimitiveTypes.Int32}, 20},
}

func TestHashTableOracle(t *testing.T) {
	for _, kc := range keyCases {
		for _, bs := range testutil.BatchSizes {
			for _, useSel := range []bool{false, true} {
				for _, nullP := range []float64{0, 0.1} {
					name := fmt.Sprintf("%s/bs=%d/sel=%v/nulls=%v", kc.name, bs, useSel, nullP)
					t.Run(name, func(t *testing.T) { testHashTable(t, kc.types, kc.card, bs, useSel, nullP) })
				}
			}
		}
	}
}

func testHashTable(t *testing.T, types []arrow.DataType, card, bs int, useSel bool, nullP float64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(uint64(bs), uint64(card)))
	h, err := NewHashTable(types)
	if err != nil {
		t.Fatal(err)
	}
	total := max(3000, bs)
	if bs == 1 {
		total = 600
	}
	oracle := map[string]uint32{}
	byGroup := []string{}
	var groups, found []uint32
	for done := 0; done < total; done += bs {
		cols := make([]arrow.Array, len(types))
		for j, ty := range types {
			cols[j] = testutil.GenColumn(mem, rng, ty, bs, card, nullP, rng.IntN(2) == 0)
		}
		sel := testutil.GenSel(rng, bs, useSel)
		defer testutil.ReleaseAll(cols)
		keys := oracleKeys(cols, sel)
		before := map[string]bool{}
		for _, k := range keys {
			if _, ok := oracle[k]; ok {
				before[k] = true
			}
		}
		// Find before inserting: absent keys must report NoGroup.
		found = h.Find(cols, sel, found)
		groups = h.FindOrInsert(cols, sel, groups)
		if len(groups) != len(keys) || len(found) != len(keys) {
			t.Fatalf("got %d groups, %d found for %d live rows", len(groups), len(found), len(keys))
		}
		for i, k := range keys {
			if before[k] != (found[i] != NoGroup) {
				t.Fatalf("row %d: Find gave %d, key known before the batch: %v", i, found[i], before[k])
			}
			g, ok := oracle[k]
			if !ok {
				g = groups[i]
				// Ids are dense, in order of first appearance.
				if int(g) != len(byGroup) {
					t.Fatalf("row %d: new key got group %d, want %d", i, g, len(byGroup))
				}
				byGroup = append(byGroup, k)
				oracle[k] = g
			} else if before[k] && found[i] != g {
				t.Fatalf("row %d: Find gave %d, want %d", i, found[i], g)
			}
			if groups[i] != g {
				t.Fatalf("row %d: group %d, want %d", i, groups[i], g)
			}
		}
	}
	if h.Len() != len(oracle) {
		t.Fatalf("Len %d, oracle %d", h.Len(), len(oracle))
	}
	checkKeyColumns(t, mem, h, byGroup)
	// Compact away every third group and check the survivors.
	keep := make([]bool, h.Len())
	var kept []string
	for g := range keep {
		keep[g] = g%3 != 1
		if keep[g] {
			kept = append(kept, byGroup[g])
		}
	}
	h.Compact(keep)
	checkKeyColumns(t, mem, h, kept)
	h.Reset()
	if h.Len() != 0 {
		t.Fatal("Reset left groups")
	}
}

func checkKeyColumns(t *testing.T, mem memory.Allocator, h *HashTable, byGroup []string) {
	t.Helper()
	all := make([]uint32, h.Len())
	for i := range all {
		all[i] = uint32(i)
	}
	if len(all) != len(byGroup) {
		t.Fatalf("Len %d, want %d", len(all), len(byGroup))
	}
	kc := h.KeyColumns(mem, all)
	defer testutil.ReleaseAll(kc)
	got := oracleKeys(kc, nil)
	for g := range got {
		if got[g] != byGroup[g] {
			t.Fatalf("group %d key %q, want %q", g, got[g], byGroup[g])
		}
	}
	// Every stored key must be found again as its own group.
	found := h.Find(kc, nil, nil)
	for g, f := range found {
		if f != uint32(g) {
			t.Fatalf("Find(key of group %d) = %d", g, f)
		}
	}
}
