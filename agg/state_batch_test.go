package agg

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStatesOfManyGroups holds StateEncoder.AppendAll and the state
// columns (AppendColumns, then DecodeColumns) to Append group by group:
// counts of every size, unseen sums and extremes, float and int values,
// avg; the columns refuse aggregates they have no kind for, and any
// truncation of them.
func TestStatesOfManyGroups(t *testing.T) {
	mem := memory.DefaultAllocator
	fixed := []Spec{{Func: CountAll, Name: "n"}, {Func: Count, Arg: 0, Name: "c"}, {Func: Sum, Arg: 0, Name: "si"},
		{Func: Sum, Arg: 1, Name: "sf"}, {Func: Sum, Arg: 0, Name: "sc", Checked: true}, {Func: Max, Arg: 0, Name: "mi"},
		{Func: Min, Arg: 1, Name: "mf"}, {Func: Avg, Arg: 1, Name: "a"}}
	for _, tc := range []struct {
		name  string
		specs []Spec
	}{
		{"fixed", fixed},
		{"fallback", append(fixed, Spec{Func: CountDistinct, Arg: 0, Name: "d"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64},
				[]arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64}, tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			kb, ib, fb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewFloat64Builder(mem)
			for i := 0; i < 5000; i++ {
				// key 0 gets ~1000 rows: a count of two varint bytes
				kb.Append(max(0, rng.Int64N(1200)-200))
				if rng.IntN(4) == 0 { // some groups see no value
					ib.AppendNull()
					fb.AppendNull()
					continue
				}
				ib.Append(rng.Int64() >> (20 + rng.IntN(44))) // sums stay in range
				fb.Append(rng.NormFloat64())
			}
			keys, ints, floats := kb.NewArray(), ib.NewArray(), fb.NewArray()
			defer keys.Release()
			defer ints.Release()
			defer floats.Release()
			if err := tab.Update([]arrow.Array{keys}, []arrow.Array{ints, floats}, nil); err != nil {
				t.Fatal(err)
			}
			groups := tab.AllGroups()
			enc := tab.NewStateEncoder(groups)
			defer enc.Release()
			var want, wantLens []byte
			for i := range groups {
				from := len(want)
				want = enc.Append(want, i)
				wantLens = binary.AppendUvarint(wantLens, uint64(len(want)-from))
			}
			prefix := []byte("prefix")
			got, lens := enc.AppendAll(append([]byte(nil), prefix...), []byte{7})
			if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
				t.Fatalf("AppendAll's states differ from Append's (%d and %d bytes)", len(got)-len(prefix), len(want))
			}
			if lens[0] != 7 || !bytes.Equal(lens[1:], wantLens) {
				t.Fatalf("AppendAll's lengths differ from Append's")
			}

			cols, ok := enc.AppendColumns(append([]byte(nil), prefix...))
			if ok != (tc.name == "fixed") || !bytes.Equal(cols[:len(prefix)], prefix) {
				t.Fatalf("AppendColumns: ok %v, prefix %q", ok, cols[:len(prefix)])
			}
			if !ok {
				return
			}
			cols = append(cols[len(prefix):], "tail"...)
			states, ends, rest, err := DecodeColumns(cols, len(groups))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(states, want) || string(rest) != "tail" || len(ends) != len(groups) {
				t.Fatalf("state columns decode to %d bytes (want %d), rest %q", len(states), len(want), rest)
			}
			from := 0
			for i, end := range ends {
				if end-from != int(wantLens[i]) {
					t.Fatalf("group %d: state of %d bytes, want %d", i, end-from, wantLens[i])
				}
				from = end
			}
			t.Logf("%d groups: %d bytes of states, %d as columns", len(groups), len(want), len(cols)-4)
			for cut := 0; cut < len(cols)-4; cut += 1 + cut/40 {
				if _, _, _, err := DecodeColumns(cols[:cut], len(groups)); err == nil {
					t.Fatalf("state columns cut to %d of %d bytes decoded", cut, len(cols)-4)
				}
			}
		})
	}
}

// TestZigzagDeltaVarints holds AppendZigzagDeltas to binary.AppendUvarint
// of the zig-zag differences around every varint length boundary.
func TestZigzagDeltaVarints(t *testing.T) {
	var vals []int64
	for shift := 0; shift < 64; shift++ {
		for _, d := range []int64{-1, 0, 1} {
			u := uint64(1)<<shift + uint64(d)
			vals = append(vals, int64(u), -int64(u), 0)
		}
	}
	groups := make([]uint32, len(vals))
	for i := range groups {
		groups[i] = uint32(i)
	}
	var want []byte
	prev := int64(0)
	for _, v := range vals {
		d := v - prev
		prev = v
		want = binary.AppendUvarint(want, uint64(d<<1)^uint64(d>>63))
	}
	if got := AppendZigzagDeltas([]byte("x"), vals, groups); !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("AppendZigzagDeltas:\n%x\nwant\n%x", got[1:], want)
	}
}
