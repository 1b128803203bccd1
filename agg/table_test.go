package agg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

var argTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int64,   // 0
	arrow.PrimitiveTypes.Float64, // 1
	arrow.PrimitiveTypes.Int32,   // 2
	tsType,                       // 3
	arrow.BinaryTypes.String,     // 4
}

var testSpecs = []Spec{
	{Func: CountAll, Arg: 0, Name: "n"},
	{Func: Count, Arg: 0, Name: "count_i"},
	{Func: Sum, Arg: 0, Name: "sum_i"},
	{Func: Sum, Arg: 1, Name: "sum_f"},
	{Func: Sum, Arg: 2, Name: "sum_i32"},
	{Func: Min, Arg: 0, Name: "min_i"},
	{Func: Max, Arg: 0, Name: "max_i"},
	{Func: Min, Arg: 3, Name: "min_ts"},
	{Func: Max, Arg: 1, Name: "max_f"},
	{Func: Min, Arg: 2, Name: "min_i32"},
	{Func: Avg, Arg: 2, Name: "avg_i32"},
	{Func: Avg, Arg: 1, Name: "avg_f"},
	{Func: CountDistinct, Arg: 4, Name: "nd_s"},
	{Func: CountDistinct, Arg: 0, Name: "nd_i"},
}

// oracleState is the naive row-at-a-time result of testSpecs for one key.
type oracleState struct {
	n                            int64
	countI                       int64
	sumI, sumI32                 int64
	sumF                         float64
	seenI, seenF, seenI32, seenT bool
	minI, maxI, minT, minI32     int64
	maxF                         float64
	avgI32N, avgFN               int64
	avgI32S, avgFS               float64
	ds                           map[string]bool
	di                           map[int64]bool
}

func (s *oracleState) add(args []arrow.Array, r int) {
	s.n++
	if a := args[0].(*array.Int64); a.IsValid(r) {
		v := a.Value(r)
		s.countI++
		s.sumI += v
		if !s.seenI || v < s.minI {
			s.minI = v
		}
		if !s.seenI || v > s.maxI {
			s.maxI = v
		}
		s.seenI = true
		s.di[v] = true
	}
	if a := args[1].(*array.Float64); a.IsValid(r) {
		v := a.Value(r)
		s.sumF += v
		if !s.seenF || v > s.maxF {
			s.maxF = v
		}
		s.seenF = true
		s.avgFN++
		s.avgFS += v
	}
	if a := args[2].(*array.Int32); a.IsValid(r) {
		v := int64(a.Value(r))
		s.sumI32 += v
		if !s.seenI32 || v < s.minI32 {
			s.minI32 = v
		}
		s.seenI32 = true
		s.avgI32N++
		s.avgI32S += float64(v)
	}
	if a := args[3].(*array.Timestamp); a.IsValid(r) {
		v := int64(a.Value(r))
		if !s.seenT || v < s.minT {
			s.minT = v
		}
		s.seenT = true
	}
	if a := args[4].(*array.String); a.IsValid(r) {
		s.ds[a.Value(r)] = true
	}
}

// row renders the expected result columns (after the keys) as strings.
func (s *oracleState) row() []string {
	opt := func(ok bool, v any) string {
		if !ok {
			return "null"
		}
		return fmt.Sprint(v)
	}
	avg := func(sum float64, n int64) string {
		if n == 0 {
			return "null"
		}
		return fmt.Sprintf("%.6g", sum/float64(n))
	}
	return []string{
		fmt.Sprint(s.n), fmt.Sprint(s.countI), opt(s.seenI, s.sumI), opt(s.seenF, fmt.Sprintf("%.6g", s.sumF)),
		opt(s.seenI32, s.sumI32), opt(s.seenI, s.minI), opt(s.seenI, s.maxI), opt(s.seenT, s.minT),
		opt(s.seenF, fmt.Sprintf("%.6g", s.maxF)), opt(s.seenI32, s.minI32), avg(s.avgI32S, s.avgI32N),
		avg(s.avgFS, s.avgFN), fmt.Sprint(len(s.ds)), fmt.Sprint(len(s.di)),
	}
}

// renderCell renders column c of a result record the way oracleState.row does.
func renderCell(col arrow.Array, r int) string {
	if col.IsNull(r) {
		return "null"
	}
	switch a := col.(type) {
	case *array.Float64:
		return fmt.Sprintf("%.6g", a.Value(r))
	case *array.Timestamp:
		return fmt.Sprint(int64(a.Value(r)))
	case *array.Int32:
		return fmt.Sprint(a.Value(r))
	case *array.Int64:
		return fmt.Sprint(a.Value(r))
	}
	return col.ValueStr(r)
}

func genArgs(mem memory.Allocator, rng *rand.Rand, n int, nullP float64) []arrow.Array {
	out := make([]arrow.Array, len(argTypes))
	for i, t := range argTypes {
		card := 1000
		if t.ID() == arrow.FLOAT64 {
			card = 1 << 20 // avoid the NaN / -0 values of the key generator
		}
		out[i] = testutil.GenColumn(mem, rng, t, n, card, nullP, rng.IntN(2) == 0)
		if t.ID() == arrow.FLOAT64 {
			// Replace NaNs: aggregates of NaN are not what this test checks.
			b := array.NewFloat64Builder(mem)
			a := out[i].(*array.Float64)
			for r := 0; r < a.Len(); r++ {
				if a.IsNull(r) {
					b.AppendNull()
				} else if v := a.Value(r); math.IsNaN(v) {
					b.Append(1.5)
				} else {
					b.Append(v)
				}
			}
			out[i].Release()
			out[i] = b.NewArray()
			b.Release()
		}
	}
	return out
}

func TestTableOracle(t *testing.T) {
	for _, kc := range []int{0, 3, 8, 9} { // int64, string, mixed, window_int32
		k := keyCases[kc]
		for _, bs := range testutil.BatchSizes {
			for _, useSel := range []bool{false, true} {
				name := fmt.Sprintf("%s/bs=%d/sel=%v", k.name, bs, useSel)
				t.Run(name, func(t *testing.T) { testTable(t, k.types, k.card, bs, useSel) })
			}
		}
	}
}

func testTable(t *testing.T, keyTypes []arrow.DataType, card, bs int, useSel bool) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(uint64(bs)+7, uint64(card)))
	tab, err := NewTable(keyTypes, argTypes, testSpecs)
	if err != nil {
		t.Fatal(err)
	}
	keyNames := make([]string, len(keyTypes))
	for i := range keyNames {
		keyNames[i] = fmt.Sprintf("k%d", i)
	}
	oracle := map[string]*oracleState{}
	total := max(3000, 2*bs)
	if bs == 1 {
		total = 400
	}
	batch := 0
	for done := 0; done < total; done += bs {
		batch++
		keys := make([]arrow.Array, len(keyTypes))
		for j, ty := range keyTypes {
			keys[j] = testutil.GenColumn(mem, rng, ty, bs, card, 0.05, rng.IntN(2) == 0)
		}
		args := genArgs(mem, rng, bs, 0.2)
		sel := testutil.GenSel(rng, bs, useSel)
		if err := tab.Update(keys, args, sel); err != nil {
			t.Fatal(err)
		}
		enc := oracleKeys(keys, sel)
		touched := map[string]bool{}
		for i, r := range testutil.LiveRows(sel, bs) {
			s := oracle[enc[i]]
			if s == nil {
				s = &oracleState{ds: map[string]bool{}, di: map[int64]bool{}}
				oracle[enc[i]] = s
			}
			s.add(args, int(r))
			touched[enc[i]] = true
		}
		testutil.ReleaseAll(keys)
		testutil.ReleaseAll(args)

		// TakeDirty: exactly the keys of this batch, ascending.
		dirty := tab.TakeDirty()
		if !sort.SliceIsSorted(dirty, func(i, j int) bool { return dirty[i] < dirty[j] }) {
			t.Fatal("dirty groups not ascending")
		}
		if len(dirty) != len(touched) {
			t.Fatalf("batch %d: %d dirty groups, %d keys touched", batch, len(dirty), len(touched))
		}
		checkEmit(t, mem, tab, dirty, keyNames, oracle, len(keyTypes))

		// Every few batches, remove a third of the groups (as eviction does).
		if batch%3 == 0 || bs >= 1024 && batch == 1 {
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
			tab.Remove(victims)
			if tab.Len() != len(oracle) {
				t.Fatalf("after Remove: %d groups, oracle %d", tab.Len(), len(oracle))
			}
		}
	}
	if tab.Len() != len(oracle) {
		t.Fatalf("%d groups, oracle %d", tab.Len(), len(oracle))
	}
	checkEmit(t, mem, tab, tab.AllGroups(), keyNames, oracle, len(keyTypes))
	if len(tab.TakeDirty()) != 0 {
		t.Fatal("dirty set not cleared")
	}
	if tab.MemoryUsage() <= 0 {
		t.Fatal("no memory usage reported")
	}
	tab.Reset()
	if tab.Len() != 0 {
		t.Fatal("Reset left groups")
	}
}

func checkEmit(t *testing.T, mem memory.Allocator, tab *Table, groups []uint32, keyNames []string,
	oracle map[string]*oracleState, nkeys int) {
	t.Helper()
	rec := tab.Emit(mem, groups, keyNames)
	defer rec.Release()
	if !rec.Schema().Equal(tab.Schema(keyNames)) {
		t.Fatalf("schema %s, want %s", rec.Schema(), tab.Schema(keyNames))
	}
	if int(rec.NumRows()) != len(groups) {
		t.Fatalf("%d rows for %d groups", rec.NumRows(), len(groups))
	}
	enc := oracleKeys(rec.Columns()[:nkeys], nil)
	for r, k := range enc {
		s := oracle[k]
		if s == nil {
			t.Fatalf("row %d: key not in oracle", r)
		}
		want := s.row()
		for c, w := range want {
			col := rec.Column(nkeys + c)
			if got := renderCell(col, r); got != w {
				t.Fatalf("row %d (group %d) %s = %s, want %s", r, groups[r], testSpecs[c].Name, got, w)
			}
		}
	}
}

func TestTableGroupsWhere(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tab, err := NewTable([]arrow.DataType{tsType, arrow.BinaryTypes.String}, nil, []Spec{{Func: CountAll, Name: "n"}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for b := 0; b < 5; b++ {
		keys := []arrow.Array{
			testutil.GenColumn(mem, rng, tsType, 500, 20, 0.05, false),
			testutil.GenColumn(mem, rng, arrow.BinaryTypes.String, 500, 5, 0, true),
		}
		if err := tab.Update(keys, nil, nil); err != nil {
			t.Fatal(err)
		}
		testutil.ReleaseAll(keys)
	}
	const cut = 10 * 60_000_000
	old := tab.GroupsWhere(0, cut)
	for _, g := range old {
		if tab.HashTable().KeyInt64(0, g) >= cut {
			t.Fatalf("group %d has start %d", g, tab.HashTable().KeyInt64(0, g))
		}
	}
	n := tab.Len()
	tab.Remove(old)
	if tab.Len() != n-len(old) || len(tab.GroupsWhere(0, cut)) != 0 {
		t.Fatalf("Remove left %d of %d groups, %d still old", tab.Len(), n, len(tab.GroupsWhere(0, cut)))
	}
}

func TestNewTableErrors(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	cases := []struct {
		keys, args []arrow.DataType
		specs      []Spec
	}{
		{nil, nil, nil},
		{[]arrow.DataType{arrow.ListOf(i64)}, nil, nil},
		{[]arrow.DataType{i64}, []arrow.DataType{arrow.BinaryTypes.String}, []Spec{{Func: Sum}}},
		{[]arrow.DataType{i64}, []arrow.DataType{i64}, []Spec{{Func: Min, Arg: 3}}},
	}
	for i, c := range cases {
		if _, err := NewTable(c.keys, c.args, c.specs); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	tab, err := NewTable([]arrow.DataType{i64}, []arrow.DataType{i64}, []Spec{{Func: Sum}})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := array.NewFloat64Builder(mem)
	defer s.Release()
	s.Append(1)
	f := s.NewArray()
	defer f.Release()
	if err := tab.Update([]arrow.Array{f}, []arrow.Array{f}, nil); err == nil {
		t.Error("mismatched key type accepted")
	}
}
