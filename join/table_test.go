package join

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

func TestTableOracle(t *testing.T) {
	for _, kc := range keyCases {
		for _, bs := range testutil.BatchSizes {
			for _, useSel := range []bool{false, true} {
				for _, nullP := range []float64{0, 0.1} {
					name := fmt.Sprintf("%s/bs=%d/sel=%v/nulls=%v", kc.name, bs, useSel, nullP)
					t.Run(name, func(t *testing.T) { testTable(t, kc.types, kc.card, bs, useSel, nullP) })
				}
			}
		}
	}
}

// buildSide generates nrec records of schema (keys..., id int64, s string);
// id numbers the rows across records.
func buildSide(mem memory.Allocator, rng *rand.Rand, schema *arrow.Schema, types []arrow.DataType, nrec, rows, card int, nullP float64) []arrow.RecordBatch {
	var recs []arrow.RecordBatch
	id := 0
	for k := 0; k < nrec; k++ {
		n := rng.IntN(rows + 1)
		var cols []arrow.Array
		for _, ty := range types {
			cols = append(cols, testutil.GenColumn(mem, rng, ty, n, card, nullP, rng.IntN(2) == 0))
		}
		cols = append(cols, genSeq(mem, id, n), testutil.GenColumn(mem, rng, arrow.BinaryTypes.String, n, 1000, 0.2, true))
		id += n
		recs = append(recs, array.NewRecordBatch(schema, cols, int64(n)))
		testutil.ReleaseAll(cols)
	}
	return recs
}

func testTable(t *testing.T, types []arrow.DataType, card, bs int, useSel bool, nullP float64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(uint64(bs), uint64(card)))
	schema := schemaOf(types, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64}, arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})
	keyCols := make([]int, len(types))
	for i := range keyCols {
		keyCols[i] = i
	}
	recs := buildSide(mem, rng, schema, types, rng.IntN(4), card*2, card, nullP)
	tab, err := Build(mem, schema, keyCols, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()

	// Oracle: key -> build rows, in build order.
	index := map[string][]int32{}
	var buildS []string
	var buildSNull []bool
	row := int32(0)
	for _, r := range recs {
		keys, ok := oracleKeys(r.Columns()[:len(types)])
		s := r.Column(len(types) + 1).(*array.String)
		for i := range keys {
			if ok[i] {
				index[keys[i]] = append(index[keys[i]], row)
			}
			buildS = append(buildS, s.Value(i))
			buildSNull = append(buildSNull, s.IsNull(i))
			row++
		}
	}
	for _, r := range recs {
		r.Release()
	}
	if tab.Rows() != int(row) || tab.Keys() != len(index) {
		t.Fatalf("table has %d rows, %d keys; want %d, %d", tab.Rows(), tab.Keys(), row, len(index))
	}

	total := max(2000, bs)
	if bs == 1 {
		total = 300
	}
	var m, mo Matches
	var semi, anti []int32
	for done := 0; done < total; done += bs {
		cols := make([]arrow.Array, len(types))
		for j, ty := range types {
			cols[j] = testutil.GenColumn(mem, rng, ty, bs, card+card/4+1, nullP, rng.IntN(2) == 0)
		}
		sel := testutil.GenSel(rng, bs, useSel)
		keys, ok := oracleKeys(cols)
		var want, wantOuter Matches
		var wantSemi, wantAnti []int32
		for _, p := range testutil.LiveRows(sel, bs) {
			var hits []int32
			if ok[p] {
				hits = index[keys[p]]
			}
			for _, r := range hits {
				want.ProbeRows = append(want.ProbeRows, p)
				want.BuildRows = append(want.BuildRows, r)
			}
			wantOuter.ProbeRows = append(wantOuter.ProbeRows, p)
			if len(hits) == 0 {
				wantOuter.BuildRows = append(wantOuter.BuildRows, -1)
				wantAnti = append(wantAnti, p)
			} else {
				wantOuter.ProbeRows = append(wantOuter.ProbeRows, want.ProbeRows[len(want.ProbeRows)-len(hits):len(want.ProbeRows)-1]...)
				wantOuter.BuildRows = append(wantOuter.BuildRows, hits...)
				wantSemi = append(wantSemi, p)
			}
		}
		if err := tab.Probe(cols, sel, &m); err != nil {
			t.Fatal(err)
		}
		if err := tab.ProbeLeftOuter(cols, sel, &mo); err != nil {
			t.Fatal(err)
		}
		checkMatches(t, "inner", &m, &want)
		checkMatches(t, "left outer", &mo, &wantOuter)
		if semi, err = tab.Semi(cols, sel, semi); err != nil || !slices.Equal(semi, wantSemi) && len(semi)+len(wantSemi) > 0 {
			t.Fatalf("semi: got %v want %v (%v)", semi, wantSemi, err)
		}
		if anti, err = tab.Anti(cols, sel, anti); err != nil || !slices.Equal(anti, wantAnti) && len(anti)+len(wantAnti) > 0 {
			t.Fatalf("anti: got %v want %v (%v)", anti, wantAnti, err)
		}
		if d := mo.DistinctProbeRows(nil); !slices.Equal(d, wantSemi) && len(d)+len(wantSemi) > 0 {
			t.Fatalf("distinct probe rows: got %v want %v", d, wantSemi)
		}
		// Gather the build columns of the outer matches and check them.
		g := tab.Gather(mem, mo.BuildRows, []int{len(types), len(types) + 1})
		ids, ss := g[0].(*array.Int64), g[1].(*array.String)
		for i, r := range mo.BuildRows {
			if r < 0 {
				if !ids.IsNull(i) || !ss.IsNull(i) {
					t.Fatalf("gather row %d of -1 is not null", i)
				}
				continue
			}
			if ids.IsNull(i) || ids.Value(i) != int64(r) || ss.IsNull(i) != buildSNull[r] || ss.Value(i) != buildS[r] {
				t.Fatalf("gather row %d (build row %d): id %v s %q, want s %q null %v", i, r, ids.Value(i), ss.Value(i), buildS[r], buildSNull[r])
			}
		}
		testutil.ReleaseAll(g)
		testutil.ReleaseAll(cols)
	}
}

func checkMatches(t *testing.T, what string, got, want *Matches) {
	t.Helper()
	if len(got.ProbeRows) != len(want.ProbeRows) || len(got.BuildRows) != len(want.BuildRows) {
		t.Fatalf("%s: %d/%d matches, want %d", what, len(got.ProbeRows), len(got.BuildRows), len(want.ProbeRows))
	}
	for i := range want.ProbeRows {
		if got.ProbeRows[i] != want.ProbeRows[i] || got.BuildRows[i] != want.BuildRows[i] {
			t.Fatalf("%s: match %d is (%d,%d), want (%d,%d)", what, i, got.ProbeRows[i], got.BuildRows[i], want.ProbeRows[i], want.BuildRows[i])
		}
	}
}

// TestJoinedRecord checks JoinedRecord and JoinSchema on a small left
// outer join with string and int columns on both sides.
func TestJoinedRecord(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bschema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	bk := array.NewInt64Builder(mem)
	bk.AppendValues([]int64{1, 2, 2, 3}, nil)
	bn := array.NewStringBuilder(mem)
	bn.AppendValues([]string{"one", "two", "deux", "three"}, nil)
	bcols := []arrow.Array{bk.NewArray(), bn.NewArray()}
	bk.Release()
	bn.Release()
	build := Assemble(bschema, 4, bcols)
	defer build.Release()
	tab, err := Build(mem, bschema, []int{0}, []arrow.RecordBatch{build})
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Release()

	pschema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.BinaryTypes.String}, {Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	pv := array.NewStringBuilder(mem)
	pv.AppendValues([]string{"a", "b", "c", "d"}, nil)
	pk := array.NewInt64Builder(mem)
	pk.AppendValues([]int64{2, 9, 0, 1}, []bool{true, true, false, true})
	probe := Assemble(pschema, 4, []arrow.Array{pv.NewArray(), pk.NewArray()})
	pv.Release()
	pk.Release()
	defer probe.Release()

	var m Matches
	if err := tab.ProbeLeftOuter([]arrow.Array{probe.Column(1)}, nil, &m); err != nil {
		t.Fatal(err)
	}
	schema := JoinSchema(pschema, []int{0}, false, bschema, []int{1}, true)
	out := tab.JoinedRecord(mem, schema, probe, []int{0}, &m, []int{1})
	defer out.Release()
	got := ""
	for i := 0; i < int(out.NumRows()); i++ {
		name := "null"
		if !out.Column(1).IsNull(i) {
			name = out.Column(1).(*array.String).Value(i)
		}
		got += out.Column(0).(*array.String).Value(i) + "=" + name + " "
	}
	if want := "a=two a=deux b=null c=null d=one "; got != want {
		t.Fatalf("joined %q, want %q", got, want)
	}
	if !out.Schema().Field(1).Nullable {
		t.Fatal("build field of an outer join is not nullable")
	}
	if err := tab.CheckKeys([]arrow.DataType{arrow.PrimitiveTypes.Int32}); err == nil {
		t.Fatal("int32 probe keys accepted by an int64 table")
	}
	if err := tab.Probe([]arrow.Array{probe.Column(0)}, nil, &m); err == nil {
		t.Fatal("string probe keys accepted by an int64 table")
	}
}
