package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/millrace/millrace/internal/testutil"
)

// TestSparkHashMatchesSpark checks the hash approx_count_distinct uses
// against Spark's xxhash64(...) (same function, seed 42), computed by
// Spark 4.2 for these literals.
func TestSparkHashMatchesSpark(t *testing.T) {
	s := newStringHasher()
	cases := []struct {
		what string
		got  uint64
		want int64
	}{
		{"xxhash64(1)", sparkHashInt(1, sparkSeed), -6698625589789238999},
		{"xxhash64(true)", sparkHashInt(1, sparkSeed), -6698625589789238999},
		{"xxhash64(1L)", sparkHashLong(1, sparkSeed), -7001672635703045582},
		{"xxhash64(1.0D)", sparkHashLong(sparkDoubleBits(1.0), sparkSeed), -2162451265447482029},
		{"xxhash64(0.0D)", sparkHashLong(sparkDoubleBits(0.0), sparkSeed), -5252525462095825812},
		{"xxhash64(-0.0D)", sparkHashLong(sparkDoubleBits(math.Copysign(0, -1)), sparkSeed), -5252525462095825812},
		{"xxhash64(NaN)", sparkHashLong(sparkDoubleBits(math.Float64frombits(0x7ff8000000000123)), sparkSeed), -3127944061524951246},
		{"xxhash64('a')", s.hash("a"), -8582455328737087284},
		{"xxhash64('')", s.hash(""), -7444071767201028348},
		{"xxhash64('abc…ghij')", s.hash("abcdefghijklmnopqrstuvwxyz0123456789abcdefghij"), 5663019105511798709},
	}
	for _, c := range cases {
		if int64(c.got) != c.want {
			t.Errorf("%s = %d, Spark %d", c.what, int64(c.got), c.want)
		}
	}
	// the written-out 4- and 8-byte paths are XXH64 of the bytes
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		v := rng.Uint64()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		d := xxhash.NewWithSeed(sparkSeed)
		_, _ = d.Write(b[:])
		if got, want := sparkHashLong(v, sparkSeed), d.Sum64(); got != want {
			t.Fatalf("hashLong(%d) = %d, xxhash %d", v, got, want)
		}
		d.ResetWithSeed(sparkSeed)
		_, _ = d.Write(b[:4])
		if got, want := sparkHashInt(uint32(v), sparkSeed), d.Sum64(); got != want {
			t.Fatalf("hashInt(%d) = %d, xxhash %d", uint32(v), got, want)
		}
	}
}

// TestHLLPrecisionRange: Spark's lower bound (at least 4 index bits, rsd
// below 0.391) and Millrace's upper one (19 bits).
func TestHLLPrecisionRange(t *testing.T) {
	for _, rsd := range []float64{0.391, 0.39, 0.05, 0.01, 0.0016} {
		if _, err := newHLL(rsd, arrow.PrimitiveTypes.Int64); err != nil {
			t.Errorf("rsd %v: %v", rsd, err)
		}
	}
	for _, rsd := range []float64{0.4, 1, -0.1, 0.0015, 0.0001, math.NaN()} {
		if _, err := newHLL(rsd, arrow.PrimitiveTypes.Int64); err == nil {
			t.Errorf("rsd %v accepted", rsd)
		}
	}
	a, _ := newHLL(0, arrow.PrimitiveTypes.Int64)
	if a.p != 9 || a.words != 52 {
		t.Errorf("default rsd: p %d, %d words; Spark's are 9 and 52", a.p, a.words)
	}
}

var newAggSpecs = []Spec{
	{Func: First, Arg: 0, Name: "first_s"},
	{Func: Last, Arg: 0, Name: "last_s"},
	{Func: First, Arg: 0, Name: "first_s_ign", IgnoreNulls: true},
	{Func: Last, Arg: 1, Name: "last_i_ign", IgnoreNulls: true},
	{Func: First, Arg: 2, Name: "first_f"},
	{Func: CollectList, Arg: 0, Name: "list_s"},
	{Func: CollectSet, Arg: 1, Name: "set_i"},
	{Func: CollectList, Arg: 2, Name: "list_f"},
	{Func: ApproxCountDistinct, Arg: 1, Name: "acd_i"},
	{Func: ApproxCountDistinct, Arg: 0, Name: "acd_s", RSD: 0.01},
}

var newAggArgTypes = []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64}

// newAggOracle is first/last/collect computed row by row, rendered as
// renderCell does (approx_count_distinct is left out: the Spark golden
// files check its values).
type newAggOracle struct {
	firstSet, lastSet, firstIgnSet, firstFSet bool
	first, last, firstIgn, lastIgn, firstF    string
	listS, listF, setI                        []string
	seenI                                     map[string]bool
}

func (o *newAggOracle) add(args []arrow.Array, r int) {
	s, i, f := renderCell(args[0], r), renderCell(args[1], r), renderCell(args[2], r)
	if !o.firstSet {
		o.first, o.firstSet = s, true
	}
	o.last, o.lastSet = s, true
	if !o.firstIgnSet && s != "null" {
		o.firstIgn, o.firstIgnSet = s, true
	}
	if i != "null" {
		o.lastIgn = i
	}
	if !o.firstFSet {
		o.firstF, o.firstFSet = f, true
	}
	if s != "null" {
		o.listS = append(o.listS, s)
	}
	if f != "null" {
		o.listF = append(o.listF, f)
	}
	if i != "null" && !o.seenI[i] {
		o.seenI[i] = true
		o.setI = append(o.setI, i)
	}
}

func orNull(s string, set bool) string {
	if !set {
		return "null"
	}
	return s
}

func (o *newAggOracle) row() []string {
	list := func(l []string) string { return "[" + strings.Join(l, " ") + "]" }
	lastIgn := o.lastIgn
	if lastIgn == "" {
		lastIgn = "null"
	}
	return []string{o.first, o.last, orNull(o.firstIgn, o.firstIgnSet), lastIgn, o.firstF, list(o.listS), list(o.setI), list(o.listF)}
}

// TestNewAggregatesOracle feeds random batches (nulls, selections) to a
// table of first/last/collect/approx_count_distinct, checks the results
// against a row-at-a-time oracle, removes groups as eviction does, and
// round-trips the state through EncodeStates/LoadGroups: the reloaded
// table must give the same results (approx_count_distinct included) and
// go on from there as the original does.
func TestNewAggregatesOracle(t *testing.T) {
	for _, useSel := range []bool{false, true} {
		t.Run(fmt.Sprintf("sel=%v", useSel), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewPCG(3, 4))
			keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
			tab, err := NewTable(keyTypes, newAggArgTypes, newAggSpecs)
			if err != nil {
				t.Fatal(err)
			}
			oracle := map[string]*newAggOracle{}
			for batch := 1; batch <= 12; batch++ {
				n := 300
				keys := []arrow.Array{testutil.GenColumn(mem, rng, keyTypes[0], n, 40, 0.05, false)}
				args := make([]arrow.Array, len(newAggArgTypes))
				for i, at := range newAggArgTypes {
					args[i] = testutil.GenColumn(mem, rng, at, n, 60, 0.3, rng.IntN(2) == 0)
				}
				sel := testutil.GenSel(rng, n, useSel)
				if err := tab.Update(keys, args, sel); err != nil {
					t.Fatal(err)
				}
				enc := oracleKeys(keys, sel)
				for i, r := range testutil.LiveRows(sel, n) {
					o := oracle[enc[i]]
					if o == nil {
						o = &newAggOracle{seenI: map[string]bool{}}
						oracle[enc[i]] = o
					}
					o.add(args, int(r))
				}
				// the same batch goes to the reloaded copy below
				if batch%4 == 0 {
					copyTab := reload(t, tab, keyTypes)
					sameResults(t, mem, tab, copyTab)
					tab = copyTab
				}
				testutil.ReleaseAll(keys)
				testutil.ReleaseAll(args)
				checkNewAggs(t, mem, tab, oracle)
				if batch%3 == 0 {
					victims := pickVictims(rng, mem, tab, oracle)
					before := emitByKey(t, mem, tab)
					tab.Remove(victims)
					after := emitByKey(t, mem, tab)
					for k, row := range after {
						if before[k] != row {
							t.Fatalf("group %s changed by Remove:\n before %s\n after  %s", k, before[k], row)
						}
					}
				}
			}
		})
	}
}

func checkNewAggs(t *testing.T, mem memory.Allocator, tab *Table, oracle map[string]*newAggOracle) {
	t.Helper()
	rec := tab.Emit(mem, tab.AllGroups(), []string{"k"})
	defer rec.Release()
	if int(rec.NumRows()) != len(oracle) {
		t.Fatalf("%d groups, oracle %d", rec.NumRows(), len(oracle))
	}
	for r, k := range oracleKeys(rec.Columns()[:1], nil) {
		want := oracle[k].row()
		for c, w := range want {
			if got := renderAny(rec.Column(1+c), r); got != w {
				t.Fatalf("group %s, %s = %s, want %s", k, newAggSpecs[c].Name, got, w)
			}
		}
	}
}

// reload builds a new table from tab's encoded state.
func reload(t *testing.T, tab *Table, keyTypes []arrow.DataType) *Table {
	t.Helper()
	groups := tab.AllGroups()
	states := tab.EncodeStates(groups)
	keys := tab.HashTable().KeyColumns(memory.DefaultAllocator, groups)
	defer testutil.ReleaseAll(keys)
	out, err := NewTable(keyTypes, newAggArgTypes, newAggSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if err := out.LoadGroups(keys, states); err != nil {
		t.Fatal(err)
	}
	// a truncated state is an error, not a panic
	bad, _ := NewTable(keyTypes, newAggArgTypes, newAggSpecs)
	short := append([][]byte(nil), states...)
	short[0] = short[0][:len(short[0])-1]
	if err := bad.LoadGroups(keys, short); err == nil {
		t.Fatal("a truncated state loaded")
	}
	return out
}

func emitByKey(t *testing.T, mem memory.Allocator, tab *Table) map[string]string {
	rec := tab.Emit(mem, tab.AllGroups(), []string{"k"})
	defer rec.Release()
	out := map[string]string{}
	keys := oracleKeys(rec.Columns()[:1], nil)
	for r, k := range keys {
		var cells []string
		for c := 1; c < int(rec.NumCols()); c++ {
			cells = append(cells, renderAny(rec.Column(c), r))
		}
		out[k] = strings.Join(cells, " | ")
	}
	return out
}

func sameResults(t *testing.T, mem memory.Allocator, a, b *Table) {
	t.Helper()
	ra, rb := emitByKey(t, mem, a), emitByKey(t, mem, b)
	if len(ra) != len(rb) {
		t.Fatalf("%d groups, reloaded %d", len(ra), len(rb))
	}
	for k, row := range ra {
		if rb[k] != row {
			t.Fatalf("group %s:\n original %s\n reloaded %s", k, row, rb[k])
		}
	}
}

// TestHLLEstimateSmall: a few distinct values are counted exactly (linear
// counting), nulls are not counted, an empty group is 0.
func TestHLLEstimateSmall(t *testing.T) {
	tab, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
		[]Spec{{Func: ApproxCountDistinct, Name: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	kb := array.NewInt64Builder(memory.DefaultAllocator)
	vb := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 100 {
		kb.Append(int64(i % 2))
		if i%2 == 1 {
			vb.AppendNull()
		} else {
			vb.Append(int64(i % 10))
		}
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	if err := tab.Update([]arrow.Array{k}, []arrow.Array{v}, nil); err != nil {
		t.Fatal(err)
	}
	rec := tab.Emit(memory.DefaultAllocator, tab.AllGroups(), nil)
	defer rec.Release()
	got := rec.Column(1).(*array.Int64).Int64Values()
	if got[0] != 5 || got[1] != 0 {
		t.Fatalf("estimates %v, want [5 0]", got)
	}
}

// renderAny is renderCell, lists as [a b c].
func renderAny(col arrow.Array, r int) string {
	l, ok := col.(*array.List)
	if !ok {
		return renderCell(col, r)
	}
	lo, hi := l.ValueOffsets(r)
	var cells []string
	for j := lo; j < hi; j++ {
		cells = append(cells, renderCell(l.ListValues(), int(j)))
	}
	return "[" + strings.Join(cells, " ") + "]"
}

// TestHLLStateForms: a sketch with few registers set is written sparse,
// a full one dense; both load back to the same estimates.
func TestHLLStateForms(t *testing.T) {
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	specs := []Spec{{Func: ApproxCountDistinct, Name: "n", RSD: 0.01}}
	tab, err := NewTable(keyTypes, keyTypes, specs)
	if err != nil {
		t.Fatal(err)
	}
	kb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 50000 {
		g := int64(1)
		if i < 5 {
			g = 0
		}
		kb.Append(g)
		vb.Append(int64(i))
	}
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	if err := tab.Update([]arrow.Array{k}, []arrow.Array{v}, nil); err != nil {
		t.Fatal(err)
	}
	states := tab.EncodeStates(tab.AllGroups())
	if states[0][0] != hllSparse || states[1][0] != hllDense {
		t.Fatalf("forms %d and %d, want sparse (%d) then dense (%d)", states[0][0], states[1][0], hllSparse, hllDense)
	}
	if len(states[0]) > 60 || len(states[1]) != 1+8*hllWords(14) {
		t.Fatalf("state sizes %d and %d", len(states[0]), len(states[1]))
	}
	keys := tab.HashTable().KeyColumns(memory.DefaultAllocator, tab.AllGroups())
	defer testutil.ReleaseAll(keys)
	again, _ := NewTable(keyTypes, keyTypes, specs)
	if err := again.LoadGroups(keys, states); err != nil {
		t.Fatal(err)
	}
	a, b := tab.Emit(memory.DefaultAllocator, tab.AllGroups(), nil), again.Emit(memory.DefaultAllocator, again.AllGroups(), nil)
	defer a.Release()
	defer b.Release()
	if x, y := a.Column(1).(*array.Int64).Int64Values(), b.Column(1).(*array.Int64).Int64Values(); fmt.Sprint(x) != fmt.Sprint(y) || x[0] != 5 {
		t.Fatalf("estimates %v, reloaded %v", x, y)
	}
}

// pickVictims chooses about a third of tab's groups at random for Remove,
// and deletes them from oracle.
func pickVictims[V any](rng *rand.Rand, mem memory.Allocator, tab *Table, oracle map[string]V) []uint32 {
	var victims []uint32
	for g := 0; g < tab.Len(); g++ {
		if rng.IntN(3) == 0 {
			victims = append(victims, uint32(g))
		}
	}
	kc := tab.HashTable().KeyColumns(mem, victims)
	for _, k := range oracleKeys(kc, nil) {
		delete(oracle, k)
	}
	testutil.ReleaseAll(kc)
	return victims
}
