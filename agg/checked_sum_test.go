package agg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

// A checked sum equals the wrapping sum while nothing overflows (nulls,
// selections and both integer widths), keeps the same state encoding, and
// fails with ErrOverflow once a group's sum leaves the int64 range.
func TestCheckedSum(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32} {
		specs := func(checked bool) []Spec {
			return []Spec{{Func: Sum, Arg: 0, Name: "s", Checked: checked}, {Func: CountAll, Name: "n"}}
		}
		plain, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{typ}, specs(false))
		if err != nil {
			t.Fatal(err)
		}
		checked, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{typ}, specs(true))
		if err != nil {
			t.Fatal(err)
		}
		for batch := 0; batch < 20; batch++ {
			n := 1 + rng.IntN(300)
			keys := testutil.GenColumn(mem, rng, arrow.PrimitiveTypes.Int64, n, 17, 0.05, rng.IntN(2) == 0)
			vals := testutil.GenColumn(mem, rng, typ, n, 1000, 0.2, rng.IntN(2) == 0)
			sel := testutil.GenSel(rng, n, rng.IntN(2) == 0)
			for _, tab := range []*Table{plain, checked} {
				if err := tab.Update([]arrow.Array{keys}, []arrow.Array{vals}, sel); err != nil {
					t.Fatal(err)
				}
			}
			keys.Release()
			vals.Release()
		}
		a, b := plain.Emit(mem, plain.AllGroups(), nil), checked.Emit(mem, checked.AllGroups(), nil)
		if d := testutil.Diff(testutil.Rows(b), testutil.Rows(a)); d != "" {
			t.Fatalf("%s: checked and wrapping sums differ: %s", typ, d)
		}
		a.Release()
		b.Release()
		sa, sb := plain.EncodeStates(plain.AllGroups()), checked.EncodeStates(checked.AllGroups())
		for i := range sa {
			if string(sa[i]) != string(sb[i]) {
				t.Fatalf("%s: state of group %d differs", typ, i)
			}
		}
	}
	tab, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
		[]Spec{{Func: Sum, Arg: 0, Name: "s", Checked: true}})
	if err != nil {
		t.Fatal(err)
	}
	kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	kb.AppendValues([]int64{1, 2, 1}, nil)
	vb.AppendValues([]int64{math.MaxInt64, -1, 1}, nil)
	k, v := kb.NewArray(), vb.NewArray()
	kb.Release()
	vb.Release()
	defer k.Release()
	defer v.Release()
	if err := tab.Update([]arrow.Array{k}, []arrow.Array{v}, nil); !errors.Is(err, ErrOverflow) {
		t.Fatalf("overflow: %v", err)
	}
}
