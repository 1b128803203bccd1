package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

// minMaxWords are the strings the test draws from: the empty string,
// prefixes of one another, case, and code points whose UTF-8 byte order
// differs from their UTF-16 order (U+FFFD < U+10000 in bytes, not in
// UTF-16), which Spark orders by bytes.
var minMaxWords = []string{"", "a", "ab", "abc", "B", "b", "z", "é", "éa", "\uFFFD", "\U00010000", "日本", "日", "\x00", "a\x00"}

var minMaxSpecs = []Spec{
	{Func: Min, Arg: 0, Name: "min_s"},
	{Func: Max, Arg: 0, Name: "max_s"},
	{Func: Min, Arg: 1, Name: "min_b"},
	{Func: Max, Arg: 1, Name: "max_b"},
	{Func: Min, Arg: 2, Name: "min_bool"},
	{Func: Max, Arg: 2, Name: "max_bool"},
}

var minMaxArgTypes = []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.FixedWidthTypes.Boolean}

// genMinMaxArgs returns n rows of a string, a binary and a boolean column,
// each a slice of a longer array when sliced, nulls with probability nullP.
func genMinMaxArgs(mem memory.Allocator, rng *rand.Rand, n int, nullP float64) []arrow.Array {
	out := make([]arrow.Array, len(minMaxArgTypes))
	for i, t := range minMaxArgTypes {
		pad := rng.IntN(2) * 5
		b := array.NewBuilder(mem, t)
		for range n + 2*pad {
			if rng.Float64() < nullP {
				b.AppendNull()
				continue
			}
			w := minMaxWords[rng.IntN(len(minMaxWords))]
			if rng.IntN(4) == 0 {
				w += fmt.Sprint(rng.IntN(100)) // more distinct values
			}
			switch bb := b.(type) {
			case *array.StringBuilder:
				bb.Append(w)
			case *array.BinaryBuilder:
				bb.Append([]byte(w + "\xff"[:rng.IntN(2)])) // not UTF-8: bytes above 0x7f
			case *array.BooleanBuilder:
				bb.Append(rng.IntN(2) == 0)
			}
		}
		arr := b.NewArray()
		b.Release()
		out[i] = array.NewSlice(arr, int64(pad), int64(pad+n))
		arr.Release()
	}
	return out
}

// minMaxOracle is the expected min/max per column, row by row.
type minMaxOracle struct {
	min, max [3]string
	set      [3]bool
}

func (o *minMaxOracle) add(args []arrow.Array, r int) {
	for c, col := range args {
		if col.IsNull(r) {
			continue
		}
		var v string
		switch a := col.(type) {
		case *array.String:
			v = a.Value(r)
		case *array.Binary:
			v = string(a.Value(r))
		case *array.Boolean:
			v = fmt.Sprint(a.Value(r)) // "false" < "true"
		}
		if !o.set[c] || v < o.min[c] {
			o.min[c] = v
		}
		if !o.set[c] || v > o.max[c] {
			o.max[c] = v
		}
		o.set[c] = true
	}
}

func (o *minMaxOracle) row() []string {
	out := make([]string, 0, 6)
	for c := range o.set {
		if !o.set[c] {
			out = append(out, "null", "null")
			continue
		}
		out = append(out, fmt.Sprintf("%q", o.min[c]), fmt.Sprintf("%q", o.max[c]))
	}
	return out
}

func renderMinMax(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "null"
	}
	switch a := col.(type) {
	case *array.String:
		return fmt.Sprintf("%q", a.Value(r))
	case *array.Binary:
		return fmt.Sprintf("%q", string(a.Value(r)))
	case *array.Boolean:
		return fmt.Sprintf("%q", fmt.Sprint(a.Value(r)))
	}
	return col.ValueStr(r)
}

// TestMinMaxBytesOracle feeds random batches of strings (empty, unicode,
// prefixes), binaries and booleans — sliced arrays, nulls, all-null groups,
// with and without a selection — to min/max and checks every group against
// a row-by-row oracle; it removes groups as eviction does, and every few
// batches reloads the table from EncodeStates and goes on with the copy.
func TestMinMaxBytesOracle(t *testing.T) {
	for _, useSel := range []bool{false, true} {
		t.Run(fmt.Sprintf("sel=%v", useSel), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewPCG(5, 6))
			keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
			newTab := func() *Table {
				tab, err := NewTable(keyTypes, minMaxArgTypes, minMaxSpecs)
				if err != nil {
					t.Fatal(err)
				}
				return tab
			}
			tab := newTab()
			oracle := map[string]*minMaxOracle{}
			for batch := 1; batch <= 16; batch++ {
				n := 1 + rng.IntN(400)
				nullP := []float64{0, 0.3, 1}[batch%3] // no nulls, some, only nulls
				keys := []arrow.Array{testutil.GenColumn(mem, rng, keyTypes[0], n, 50, 0.05, batch%2 == 0)}
				args := genMinMaxArgs(mem, rng, n, nullP)
				sel := testutil.GenSel(rng, n, useSel)
				if err := tab.Update(keys, args, sel); err != nil {
					t.Fatal(err)
				}
				enc := oracleKeys(keys, sel)
				for i, r := range testutil.LiveRows(sel, n) {
					o := oracle[enc[i]]
					if o == nil {
						o = &minMaxOracle{}
						oracle[enc[i]] = o
					}
					o.add(args, int(r))
				}
				testutil.ReleaseAll(keys)
				testutil.ReleaseAll(args)
				checkMinMax(t, mem, tab, oracle)
				if batch%4 == 0 {
					groups := tab.AllGroups()
					states := tab.EncodeStates(groups)
					kc := tab.HashTable().KeyColumns(mem, groups)
					again := newTab()
					if err := again.LoadGroups(kc, states); err != nil {
						t.Fatal(err)
					}
					short := append([][]byte(nil), states...)
					short[0] = short[0][:len(short[0])-1]
					if err := newTab().LoadGroups(kc, short); err == nil {
						t.Fatal("a truncated state loaded")
					}
					testutil.ReleaseAll(kc)
					tab = again
					checkMinMax(t, mem, tab, oracle)
				}
				if batch%3 == 0 {
					victims := pickVictims(rng, mem, tab, oracle)
					tab.Remove(victims)
					checkMinMax(t, mem, tab, oracle)
				}
			}
		})
	}
}

func checkMinMax(t *testing.T, mem memory.Allocator, tab *Table, oracle map[string]*minMaxOracle) {
	t.Helper()
	rec := tab.Emit(mem, tab.AllGroups(), []string{"k"})
	defer rec.Release()
	if int(rec.NumRows()) != len(oracle) {
		t.Fatalf("%d groups, oracle %d", rec.NumRows(), len(oracle))
	}
	for c, s := range minMaxSpecs {
		if got, want := rec.Schema().Field(1+c).Type, minMaxArgTypes[s.Arg]; !arrow.TypeEqual(got, want) {
			t.Fatalf("%s is %s, want the input type %s", s.Name, got, want)
		}
	}
	for r, k := range oracleKeys(rec.Columns()[:1], nil) {
		for c, w := range oracle[k].row() {
			if got := renderMinMax(rec.Column(1+c), r); got != w {
				t.Fatalf("group %s, %s = %s, want %s", k, minMaxSpecs[c].Name, got, w)
			}
		}
	}
}

// BenchmarkMaxString is max(string) over 1M rows in batches of 64K rows,
// 1000 groups, 8-24 byte values (not run in CI).
func BenchmarkMaxString(b *testing.B) {
	const rows, batch, groups = 1 << 20, 1 << 16, 1000
	rng := rand.New(rand.NewPCG(1, 2))
	var keys, vals []arrow.Array
	for lo := 0; lo < rows; lo += batch {
		kb := array.NewInt64Builder(memory.DefaultAllocator)
		vb := array.NewStringBuilder(memory.DefaultAllocator)
		for range batch {
			kb.Append(int64(rng.IntN(groups)))
			vb.Append(fmt.Sprintf("%0*d", 8+rng.IntN(17), rng.Uint64()%1e15))
		}
		keys, vals = append(keys, kb.NewArray()), append(vals, vb.NewArray())
		kb.Release()
		vb.Release()
	}
	b.SetBytes(rows)
	b.ReportAllocs()
	for b.Loop() {
		tab, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.BinaryTypes.String},
			[]Spec{{Func: Max, Name: "m"}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range keys {
			if err := tab.Update(keys[i:i+1], vals[i:i+1], nil); err != nil {
				b.Fatal(err)
			}
		}
	}
}
