package agg

import (
	"bytes"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// fuzzSpecs are testSpecs and the aggregates that Spark's golden files
// check (approx_count_distinct, first/last, collect_list/collect_set).
var fuzzSpecs = append(append([]Spec(nil), testSpecs...),
	Spec{Func: ApproxCountDistinct, Arg: 4, Name: "acd_s"},
	Spec{Func: First, Arg: 1, Name: "first_f"},
	Spec{Func: Last, Arg: 4, Name: "last_s", IgnoreNulls: true},
	Spec{Func: CollectList, Arg: 1, Name: "list_f"},
	Spec{Func: CollectSet, Arg: 4, Name: "set_s"},
	Spec{Func: CollectList, Arg: 3, Name: "list_ts"},
)

// FuzzLoadGroups fuzzes the aggregation state encoding that a restart reads
// back from the state store (EncodeStates / LoadGroups), for a table with
// every accumulator (fuzzSpecs). Properties: no panic or hang; an accepted
// state re-encodes to bytes that load and re-encode identically, and the
// loaded group can be emitted.
//
//	go test -run '^$' -fuzz FuzzLoadGroups -fuzztime 10m -parallel 1 ./agg/
func FuzzLoadGroups(f *testing.F) {
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	mem := memory.DefaultAllocator
	// Seeds: the states of real groups.
	tab, err := NewTable(keyTypes, argTypes, fuzzSpecs)
	if err != nil {
		f.Fatal(err)
	}
	keys := int64Array(mem, []int64{1, 2, 1, 3, 1})
	args := []arrow.Array{
		int64Array(mem, []int64{5, -7, 9, 1 << 40, 5}),
		float64Array(mem, []float64{1.5, math.Copysign(0, -1), 2.25, 1e300, 3}),
		int32Array(mem, []int32{1, 2, 3, -4, 5}),
		timestampArray(mem, []int64{1_700_000_000_000_000, 0, -1, 5, 6}),
		stringArray(mem, []string{"a", "bb", "a", "", "ccc"}),
	}
	if err := tab.Update([]arrow.Array{keys}, args, nil); err != nil {
		f.Fatal(err)
	}
	for _, s := range tab.EncodeStates(tab.AllGroups()) {
		f.Add(s)
	}
	empty, _ := NewTable(keyTypes, argTypes, fuzzSpecs)
	if err := empty.Update([]arrow.Array{keys}, nil, []int32{}); err == nil {
		for _, s := range empty.EncodeStates(empty.AllGroups()) {
			f.Add(s)
		}
	}
	keys.Release()
	for _, a := range args {
		a.Release()
	}
	key := int64Array(mem, []int64{42})
	f.Fuzz(func(t *testing.T, state []byte) {
		defer fuzzutil.Watchdog(state)()
		load := func(state []byte) (*Table, error) {
			tab, err := NewTable(keyTypes, argTypes, fuzzSpecs)
			if err != nil {
				t.Fatal(err)
			}
			return tab, tab.LoadGroups([]arrow.Array{key}, [][]byte{state})
		}
		tab, err := load(state)
		if err != nil {
			return
		}
		enc := tab.EncodeStates(tab.AllGroups())[0]
		again, err := load(enc)
		if err != nil {
			t.Fatalf("state %x re-encodes to %x, which does not load: %v", state, enc, err)
		}
		if enc2 := again.EncodeStates(again.AllGroups())[0]; !bytes.Equal(enc, enc2) {
			t.Fatalf("state %x: re-encodings differ: %x, then %x", state, enc, enc2)
		}
		// The loaded group's results are those of its re-encoded state.
		rec := tab.Emit(mem, tab.AllGroups(), []string{"k"})
		rec2 := again.Emit(mem, again.AllGroups(), []string{"k"})
		for c := range rec.Columns() {
			if a, b := rec.Column(c).ValueStr(0), rec2.Column(c).ValueStr(0); a != b {
				t.Fatalf("state %x: %s = %s, but %s after a round trip", state, rec.ColumnName(c), a, b)
			}
		}
		rec.Release()
		rec2.Release()
	})
}

func int64Array(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

func int32Array(mem memory.Allocator, v []int32) arrow.Array {
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

func float64Array(mem memory.Allocator, v []float64) arrow.Array {
	b := array.NewFloat64Builder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}

func timestampArray(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewTimestampBuilder(mem, tsType)
	defer b.Release()
	for _, x := range v {
		b.Append(arrow.Timestamp(x))
	}
	return b.NewArray()
}

func stringArray(mem memory.Allocator, v []string) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues(v, nil)
	return b.NewArray()
}
