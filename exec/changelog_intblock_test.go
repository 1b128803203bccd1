package exec

import (
	"bytes"
	"encoding/binary"
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
)

// intBlockTable returns a table with two integer key columns (nulls in the
// second when nulls), extreme and random key values, and a count and a max,
// and with byRow a count distinct (states not laid out by column).
func intBlockTable(t testing.TB, rows int, nulls, byRow bool) *agg.Table {
	t.Helper()
	mem := memory.DefaultAllocator
	ts := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	specs := []agg.Spec{{Func: agg.CountAll, Name: "n"}, {Func: agg.Max, Arg: 0, Name: "m"}}
	if byRow {
		specs = append(specs, agg.Spec{Func: agg.CountDistinct, Arg: 0, Name: "d"})
	}
	tab, err := agg.NewTable([]arrow.DataType{ts, arrow.PrimitiveTypes.Int32}, []arrow.DataType{arrow.PrimitiveTypes.Int64}, specs)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	tb, kb, vb := array.NewTimestampBuilder(mem, ts), array.NewInt32Builder(mem), array.NewInt64Builder(mem)
	extremes := []int64{math.MinInt64, math.MaxInt64, 0, -1}
	for i := 0; i < rows; i++ {
		switch {
		case i < len(extremes):
			tb.Append(arrow.Timestamp(extremes[i]))
		case rng.IntN(3) == 0:
			tb.Append(arrow.Timestamp(rng.Int64()))
		default:
			tb.Append(arrow.Timestamp(60_000_000 * rng.Int64N(4)))
		}
		switch {
		case nulls && rng.IntN(7) == 0:
			kb.AppendNull()
		case i < len(extremes):
			kb.Append(int32(extremes[i] >> 32))
		default:
			kb.Append(rng.Int32N(1000) - 500)
		}
		if rng.IntN(2) == 0 {
			vb.Append(rng.Int64N(10))
		} else {
			vb.Append(rng.Int64())
		}
	}
	cols := []arrow.Array{tb.NewArray(), kb.NewArray(), vb.NewArray()}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	if err := tab.Update(cols[:2], cols[2:], nil); err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestIntBlockRoundTrip holds an int-key block to the rows it stands for:
// applied, it puts exactly the row-by-row encoding's keys (EncodeKeys)
// and states (EncodeStates), nulls and extreme values included, and any
// truncation of it is refused, never applied in part silently.
func TestIntBlockRoundTrip(t *testing.T) {
	for _, c := range []struct{ nulls, byRow bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		nulls := c.nulls
		tab := intBlockTable(t, 3000, nulls, c.byRow)
		ht := tab.HashTable()
		groups := tab.AllGroups()
		groups = groups[:len(groups)-len(groups)/3] // not every group
		keys, err := encodeGroupKeys(ht, groups)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]byte{"stale": []byte("x")}
		if err := applyBlob(want, encodeBlob(keys, tab.EncodeStates(groups), nil)); err != nil {
			t.Fatal(err)
		}
		enc := tab.NewStateEncoder(groups)
		if _, byColumn := enc.AppendColumns(nil); byColumn == c.byRow {
			t.Fatalf("by row %v: the states are laid out by column: %v", c.byRow, byColumn)
		}
		block, _ := appendIntBlock(binary.AppendUvarint(nil, 1), ht, 2, groups, enc, nil)
		enc.Release()
		got := map[string][]byte{"stale": []byte("x")}
		if err := applyBlob(got, block); err != nil {
			t.Fatalf("nulls %v: %v", nulls, err)
		}
		if !maps.EqualFunc(got, want, bytes.Equal) {
			t.Fatalf("nulls %v: the block applies to %d rows, the row-by-row delta to %d, or they differ", nulls, len(got), len(want))
		}
		rowByRow := len(encodeBlob(keys, tab.EncodeStates(groups), nil))
		t.Logf("nulls %v, by row %v: %d groups, block %d bytes, row by row %d", nulls, c.byRow, len(groups), len(block), rowByRow)
		for cut := 1; cut < len(block); cut += 1 + cut/50 {
			if err := applyBlob(map[string][]byte{}, block[:cut]); err == nil {
				t.Fatalf("nulls %v: the block cut to %d of %d bytes applied", nulls, cut, len(block))
			}
		}
	}
}

// TestIntBlockAmongRows applies a delta that mixes the kinds of rows in
// order: puts row by row (as a delta of an older Millrace), an int-key
// block overwriting some of them, a range deletion.
func TestIntBlockAmongRows(t *testing.T) {
	tab := intBlockTable(t, 500, true, false)
	ht := tab.HashTable()
	groups := tab.AllGroups()
	keys, err := encodeGroupKeys(ht, groups)
	if err != nil {
		t.Fatal(err)
	}
	states := tab.EncodeStates(groups)
	old := make([][]byte, len(states))
	for i := range old {
		old[i] = []byte("old")
	}
	rows := encodeBlob(keys, old, nil)
	_, k := binary.Uvarint(rows)
	enc := tab.NewStateEncoder(groups[:100])
	b := binary.AppendUvarint(nil, uint64(len(groups)+2))
	b = append(b, rows[k:]...)
	b, _ = appendIntBlock(b, ht, 2, groups[:100], enc, nil)
	enc.Release()
	lo, hi := []byte{keyNotNullMarker}, []byte{keyNotNullMarker, 0x80} // timestamps >= 0 ...
	b = appendRangeDelete(b, lo, hi)                                   // ... below 2^56: deleted
	got := map[string][]byte{}
	if err := applyBlob(got, b); err != nil {
		t.Fatal(err)
	}
	deleted := 0
	for i, key := range keys {
		v, ok := got[string(key)]
		switch {
		case string(key) >= string(lo) && string(key) < string(hi):
			deleted++
			if ok {
				t.Fatalf("group %x: not deleted by the range", key)
			}
		case i < 100 && !bytes.Equal(v, states[i]):
			t.Fatalf("group %x: state %x, want the block's %x", key, v, states[i])
		case i >= 100 && string(v) != "old":
			t.Fatalf("group %x: state %x, want the row-by-row put's", key, v)
		}
	}
	if deleted == 0 || deleted == len(keys) {
		t.Fatalf("the range deleted %d of %d groups: the test does not test it", deleted, len(keys))
	}
}
