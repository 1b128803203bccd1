package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

// Tests of the fast paths: the fused count(*)+sum loop (arguments without
// nulls), the seen flags set per new group, the dirty bitmap kept across
// several batches and Removes, and the single int64 key table growing from
// the small (load 1/4) to the large (load 1/2) regime with extreme keys.

// genExtremeInt64 returns n int64 keys drawn from card values spread over the
// whole int64 range (MinInt64, MaxInt64, negatives, 0), some null.
func genExtremeInt64(mem memory.Allocator, rng *rand.Rand, n, card int, nullP float64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		v := rng.IntN(card)
		switch v {
		case 0:
			b.Append(math.MinInt64)
		case 1:
			b.Append(math.MaxInt64)
		case 2:
			b.Append(0)
		case 3:
			b.Append(math.MinInt64 + 1)
		case 4:
			b.Append(math.MaxInt64 - 1)
		default:
			x := int64(v) * 0x9E3779B97F4A7C
			if v%2 == 0 {
				x = -x
			}
			b.Append(x)
		}
	}
	return b.NewArray()
}

func TestTableFastPaths(t *testing.T) {
	for _, card := range []int{50, 3000, 40000} {
		for _, bs := range []int{1, 7, 1024, 65536} {
			for _, useSel := range []bool{false, true} {
				name := fmt.Sprintf("card=%d/bs=%d/sel=%v", card, bs, useSel)
				t.Run(name, func(t *testing.T) { testFastPaths(t, card, bs, useSel) })
			}
		}
	}
}

func testFastPaths(t *testing.T, card, bs int, useSel bool) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(uint64(bs), uint64(card)))
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	keyNames := []string{"k"}
	tab, err := NewTable(keyTypes, argTypes, testSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if tab.fused.count < 0 {
		t.Fatal("count(*)+sum pair not found")
	}
	oracle := map[string]*oracleState{}
	dirty := map[string]bool{} // keys updated since the last TakeDirty
	total := max(4*card, 3*bs)
	if bs == 1 {
		total = 300
	}
	batch := 0
	for done := 0; done < total; done += bs {
		batch++
		keys := []arrow.Array{genExtremeInt64(mem, rng, bs, card, 0.02)}
		// Most batches have no null argument (fused loop, seen flags per
		// new group); some do (general loops, seen flags per row).
		nullP := 0.0
		if batch%4 == 3 {
			nullP = 0.3
		}
		args := genArgs(mem, rng, bs, nullP)
		sel := testutil.GenSel(rng, bs, useSel)
		if err := tab.Update(keys, args, sel); err != nil {
			t.Fatal(err)
		}
		enc := oracleKeys(keys, sel)
		for i, r := range testutil.LiveRows(sel, bs) {
			s := oracle[enc[i]]
			if s == nil {
				s = &oracleState{ds: map[string]bool{}, di: map[int64]bool{}}
				oracle[enc[i]] = s
			}
			s.add(args, int(r))
			dirty[enc[i]] = true
		}
		testutil.ReleaseAll(keys)
		testutil.ReleaseAll(args)

		if batch%3 == 0 { // take the dirty set every third batch only
			got := tab.TakeDirty()
			if !slices.IsSorted(got) {
				t.Fatal("dirty groups not ascending")
			}
			kc := tab.HashTable().KeyColumns(mem, got)
			gotKeys := oracleKeys(kc, nil)
			testutil.ReleaseAll(kc)
			if len(gotKeys) != len(dirty) {
				t.Fatalf("batch %d: %d dirty groups, want %d", batch, len(gotKeys), len(dirty))
			}
			for _, k := range gotKeys {
				if !dirty[k] {
					t.Fatalf("batch %d: group %q dirty, not updated", batch, k)
				}
			}
			clear(dirty)
			checkEmit(t, mem, tab, got, keyNames, oracle, 1)
		}
		if batch%5 == 0 { // remove a quarter of the groups, some dirty
			var victims []uint32
			for g := 0; g < tab.Len(); g++ {
				if rng.IntN(4) == 0 {
					victims = append(victims, uint32(g))
				}
			}
			kc := tab.HashTable().KeyColumns(mem, victims)
			for _, k := range oracleKeys(kc, nil) {
				delete(oracle, k)
				delete(dirty, k)
			}
			testutil.ReleaseAll(kc)
			tab.Remove(victims)
			if tab.Len() != len(oracle) {
				t.Fatalf("after Remove: %d groups, oracle %d", tab.Len(), len(oracle))
			}
		}
	}
	if tab.Len() != len(oracle) {
		t.Fatalf("%d groups, oracle %d", tab.Len(), len(oracle))
	}
	checkEmit(t, mem, tab, tab.AllGroups(), keyNames, oracle, 1)
	if got := tab.TakeDirty(); len(got) != len(dirty) {
		t.Fatalf("final: %d dirty groups, want %d", len(got), len(dirty))
	}
	// Round trip through EncodeStates / LoadGroups: loaded groups are equal
	// and not dirty.
	all := tab.AllGroups()
	states := tab.EncodeStates(all)
	kc := tab.HashTable().KeyColumns(mem, all)
	defer testutil.ReleaseAll(kc)
	tab2, _ := NewTable(keyTypes, argTypes, testSpecs)
	if err := tab2.LoadGroups(kc, states); err != nil {
		t.Fatal(err)
	}
	if len(tab2.TakeDirty()) != 0 {
		t.Fatal("loaded groups are dirty")
	}
	checkEmit(t, mem, tab2, tab2.AllGroups(), keyNames, oracle, 1)
}

// TestHashTableInt64Growth inserts distinct extreme and ordinary int64 keys
// one batch at a time across every slot array size up to the large regime
// and checks that every key keeps its first-appearance group id.
func TestHashTableInt64Growth(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	h, _ := NewHashTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
	want := map[int64]uint32{}
	var order []int64
	rng := rand.New(rand.NewPCG(3, 4))
	var groups []uint32
	for batch := 0; len(want) < 300000; batch++ {
		n := 1 + rng.IntN(5000)
		b := array.NewInt64Builder(mem)
		for i := 0; i < n; i++ {
			var k int64
			switch rng.IntN(4) {
			case 0: // a known key
				if len(order) > 0 {
					k = order[rng.IntN(len(order))]
				}
			case 1: // near the ends of the range
				k = math.MinInt64 + int64(rng.IntN(1000))
				if rng.IntN(2) == 0 {
					k = math.MaxInt64 - int64(rng.IntN(1000))
				}
			default:
				k = int64(rng.Uint64())
			}
			b.Append(k)
		}
		arr := b.NewArray()
		b.Release()
		groups = h.FindOrInsert([]arrow.Array{arr}, nil, groups)
		vals := arr.(*array.Int64).Int64Values()
		for i, k := range vals {
			g, ok := want[k]
			if !ok {
				g = uint32(len(order))
				want[k] = g
				order = append(order, k)
			}
			if groups[i] != g {
				arr.Release()
				t.Fatalf("batch %d row %d key %d: group %d, want %d", batch, i, k, groups[i], g)
			}
		}
		arr.Release()
		if h.Len() != len(want) {
			t.Fatalf("%d groups, want %d", h.Len(), len(want))
		}
	}
}
