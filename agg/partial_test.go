package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
)

var partialArgTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int64,    // 0
	arrow.PrimitiveTypes.Int32,    // 1
	tsType,                        // 2
	arrow.FixedWidthTypes.Boolean, // 3
	arrow.FixedWidthTypes.Date32,  // 4
	arrow.PrimitiveTypes.Float64,  // 5 (count only)
	arrow.BinaryTypes.String,      // 6 (count only)
	arrow.PrimitiveTypes.Int64,    // 7 (sums that wrap)
	arrow.FixedWidthTypes.Boolean, // 8 (never used)
	arrow.PrimitiveTypes.Int32,    // 9
	arrow.FixedWidthTypes.Date32,  // 10
	arrow.PrimitiveTypes.Int64,    // 11
	arrow.PrimitiveTypes.Int32,    // 12
	arrow.FixedWidthTypes.Boolean, // 13
}

var partialSpecs = []Spec{
	{Func: CountAll, Arg: -1, Name: "n"},
	{Func: Count, Arg: 5, Name: "count_f"},
	{Func: Count, Arg: 6, Name: "count_s"},
	{Func: Sum, Arg: 0, Name: "sum_i"},
	{Func: Sum, Arg: 7, Name: "sum_wrap"},
	{Func: Sum, Arg: 1, Name: "sum_i32"},
	{Func: Min, Arg: 0, Name: "min_i"},
	{Func: Max, Arg: 1, Name: "max_i32"},
	{Func: Min, Arg: 2, Name: "min_ts"},
	{Func: Max, Arg: 3, Name: "max_b"},
	{Func: Min, Arg: 13, Name: "min_b"},
	{Func: Max, Arg: 4, Name: "max_d"},
	{Func: Avg, Arg: 11, Name: "avg_i"},
	{Func: Avg, Arg: 12, Name: "avg_i32"},
}

// TestMergePartials: rows aggregated batch by batch into a small table
// whose partial states are merged into another give that table exactly
// what feeding it the rows gives: the same groups in the same order, the
// same results, the same dirty groups after each batch.
func TestMergePartials(t *testing.T) {
	for _, keyTypes := range [][]arrow.DataType{
		{tsType, arrow.PrimitiveTypes.Int64},
		{tsType, arrow.BinaryTypes.String},
		{tsType, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String},
	} {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%d-keys/seed%d", len(keyTypes), seed), func(t *testing.T) {
				testMergePartials(t, keyTypes, seed)
			})
		}
	}
}

func testMergePartials(t *testing.T, keyTypes []arrow.DataType, seed uint64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(seed, 7))
	newTable := func() *Table {
		tab, err := NewTable(keyTypes, partialArgTypes, partialSpecs)
		if err != nil {
			t.Fatal(err)
		}
		if !tab.Combinable() {
			t.Fatal("the specs are combinable")
		}
		return tab
	}
	direct, merged, panes := newTable(), newTable(), newTable()
	for batch := range 12 {
		n := 1 + rng.IntN(300)
		if batch%5 == 4 {
			n = 0
		}
		var keys, args []arrow.Array
		for _, kt := range keyTypes {
			keys = append(keys, testutil.GenColumn(mem, rng, kt, n, 2+rng.IntN(6), 0.1, rng.IntN(2) == 0))
		}
		for i, at := range partialArgTypes {
			col := testutil.GenColumn(mem, rng, at, n, 1+rng.IntN(40), 0.2, rng.IntN(2) == 0)
			if i == 7 {
				// values near the int64 bounds, so that sums wrap
				b := array.NewInt64Builder(mem)
				for range n {
					if rng.IntN(5) == 0 {
						b.AppendNull()
						continue
					}
					b.Append(int64(rng.Uint64()))
				}
				col.Release()
				col = b.NewArray()
			}
			args = append(args, col)
		}
		sel := testutil.GenSel(rng, n, rng.IntN(2) == 0)
		if err := direct.Update(keys, args, sel); err != nil {
			t.Fatal(err)
		}
		panes.Clear()
		if err := panes.Update(keys, args, sel); err != nil {
			t.Fatal(err)
		}
		all := panes.AllGroups()
		pk := panes.HashTable().KeyColumns(mem, all)
		pp := panes.Partials(mem, all)
		for i, p := range pp {
			if want := panes.PartialTypes()[i]; !arrow.TypeEqual(p.DataType(), want) {
				t.Fatalf("partial %d is %s, PartialTypes says %s", i, columnar.TypeName(p.DataType()), columnar.TypeName(want))
			}
		}
		if err := merged.Merge(pk, pp, nil); err != nil {
			t.Fatal(err)
		}
		columnar.ReleaseAll(pk)
		columnar.ReleaseAll(pp)
		columnar.ReleaseAll(keys)
		columnar.ReleaseAll(args)
		if d, m := direct.TakeDirty(), merged.TakeDirty(); fmt.Sprint(d) != fmt.Sprint(m) {
			t.Fatalf("batch %d: dirty groups %v, merged %v", batch, d, m)
		}
		a := direct.Emit(mem, direct.AllGroups(), nil)
		b := merged.Emit(mem, merged.AllGroups(), nil)
		if !array.RecordEqual(a, b) {
			t.Fatalf("batch %d: rows fed\n%v\npartials merged\n%v", batch, a, b)
		}
		a.Release()
		b.Release()
		if batch == 6 {
			// eviction renumbers both alike
			evict := direct.GroupsWhere(0, 10*60_000_000)
			direct.Remove(evict)
			merged.Remove(evict)
		}
	}
}

// TestCombinable: only the aggregates whose partial states merge exactly.
func TestCombinable(t *testing.T) {
	f64, i64, str := arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	for _, c := range []struct {
		spec Spec
		arg  arrow.DataType
		want bool
	}{
		{Spec{Func: CountAll}, nil, true},
		{Spec{Func: Count}, f64, true},
		{Spec{Func: Sum}, i64, true},
		{Spec{Func: Sum, Checked: true}, i64, false}, // where it overflows depends on the order
		{Spec{Func: Sum}, f64, false},                // rounding depends on the grouping
		{Spec{Func: Avg}, f64, false},
		{Spec{Func: Avg}, i64, true},
		{Spec{Func: Min}, f64, false}, // -0 and +0 tie
		{Spec{Func: Max}, str, false},
		{Spec{Func: Max}, tsType, true},
		{Spec{Func: First}, i64, false},
		{Spec{Func: Last}, i64, false},
		{Spec{Func: CollectList}, i64, false},
		{Spec{Func: CountDistinct}, i64, false},
		{Spec{Func: ApproxCountDistinct}, i64, false},
	} {
		if got := Combinable(c.spec, c.arg); got != c.want {
			t.Errorf("Combinable(%s of %v, checked %v) = %v, want %v", c.spec.Func, c.arg, c.spec.Checked, got, c.want)
		}
	}
}
