package join

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/testutil"
)

// orow is the oracle's view of a buffered row.
type orow struct {
	id      int64
	key     string
	keyOK   bool
	time    int64
	timeOK  bool
	matched bool
}

func TestBufferOracle(t *testing.T) {
	cases := []int{0, 3, 7, 8, 9} // int64, string, ts_int64, mixed, window_int32
	for _, ci := range cases {
		kc := keyCases[ci]
		for _, bs := range testutil.BatchSizes {
			for _, useSel := range []bool{false, true} {
				for _, nullP := range []float64{0, 0.1} {
					name := fmt.Sprintf("%s/bs=%d/sel=%v/nulls=%v", kc.name, bs, useSel, nullP)
					t.Run(name, func(t *testing.T) { testBuffer(t, kc.types, kc.card, bs, useSel, nullP) })
				}
			}
		}
	}
}

func inRange(bt, pt, lower, upper int64) bool {
	if lower != math.MinInt64 && bt < pt+lower {
		return false
	}
	if upper != math.MaxInt64 && bt > pt+upper {
		return false
	}
	return true
}

func testBuffer(t *testing.T, types []arrow.DataType, card, bs int, useSel bool, nullP float64) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(uint64(bs)+7, uint64(card)))
	tf := arrow.Field{Name: "t", Type: columnar.Timestamp, Nullable: true}
	schema := schemaOf(types, tf, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64})
	keyCols := make([]int, len(types))
	for i := range keyCols {
		keyCols[i] = i
	}
	tcol, idcol := len(types), len(types)+1
	buf, err := NewBuffer(mem, schema, keyCols, tcol)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Release()
	replica, _ := NewBuffer(mem, schema, keyCols, tcol)
	defer func() { replica.Release() }()

	steps := max(12, 3000/bs)
	if bs == 1 {
		steps = 400
	}
	if bs == 65536 {
		steps = 2
	}
	var oracle []*orow
	nextID := 0
	var m Matches
	for step := 0; step < steps; step++ {
		base := int64(step) * 100
		// Add a batch.
		cols := make([]arrow.Array, 0, len(types)+2)
		for _, ty := range types {
			cols = append(cols, testutil.GenColumn(mem, rng, ty, bs, card, nullP, rng.IntN(2) == 0))
		}
		cols = append(cols, genTimes(mem, rng, bs, base, nullP), genSeq(mem, nextID, bs))
		rec := array.NewRecordBatch(schema, cols, int64(bs))
		keys, ok := oracleKeys(cols[:len(types)])
		testutil.ReleaseAll(cols)
		sel := testutil.GenSel(rng, bs, useSel)
		var matchedRows []int32
		for _, r := range testutil.LiveRows(sel, bs) {
			if rng.IntN(10) == 0 {
				matchedRows = append(matchedRows, r)
			}
		}
		first, err := buf.Add(rec, sel, matchedRows)
		if err != nil {
			t.Fatal(err)
		}
		if int(first) != len(oracle) {
			t.Fatalf("Add returned first row %d, oracle has %d rows", first, len(oracle))
		}
		tc := rec.Column(tcol).(*array.Timestamp)
		for _, r := range testutil.LiveRows(sel, bs) {
			oracle = append(oracle, &orow{id: int64(nextID) + int64(r), key: keys[r], keyOK: ok[r],
				time: int64(tc.Value(int(r))), timeOK: tc.IsValid(int(r)), matched: slices.Contains(matchedRows, r)})
		}
		nextID += bs
		rec.Release()

		// Probe with a batch of the other side.
		pcols := make([]arrow.Array, len(types))
		for j, ty := range types {
			pcols[j] = testutil.GenColumn(mem, rng, ty, bs, card, nullP, rng.IntN(2) == 0)
		}
		ptimes := genTimes(mem, rng, bs, base, nullP)
		psel := testutil.GenSel(rng, bs, useSel)
		lower := []int64{math.MinInt64, -150, -20, 0}[rng.IntN(4)]
		upper := []int64{math.MaxInt64, 150, 30, 0}[rng.IntN(4)]
		pkeys, pok := oracleKeys(pcols)
		pt := ptimes.(*array.Timestamp)
		var wantP []int32
		var wantID, wantFirst []int64
		byKey := map[string][]*orow{}
		for _, o := range oracle {
			if o.keyOK && o.timeOK {
				byKey[o.key] = append(byKey[o.key], o)
			}
		}
		for _, p := range testutil.LiveRows(psel, bs) {
			if !pok[p] || pt.IsNull(int(p)) {
				continue
			}
			for _, o := range byKey[pkeys[p]] {
				if inRange(o.time, int64(pt.Value(int(p))), lower, upper) {
					wantP = append(wantP, p)
					wantID = append(wantID, o.id)
					if !o.matched {
						o.matched = true
						wantFirst = append(wantFirst, o.id)
					}
				}
			}
		}
		if err := buf.Probe(pcols, ptimes, psel, lower, upper, &m); err != nil {
			t.Fatal(err)
		}
		testutil.ReleaseAll(pcols)
		ptimes.Release()
		if !slices.Equal(m.ProbeRows, wantP) && len(m.ProbeRows)+len(wantP) > 0 {
			t.Fatalf("step %d: probe rows %v, want %v", step, m.ProbeRows, wantP)
		}
		if got := buildIDs(t, mem, buf, m.BuildRows, idcol); !slices.Equal(got, wantID) {
			t.Fatalf("step %d: matched ids %v, want %v", step, got, wantID)
		}
		if got := buildIDs(t, mem, buf, m.FirstMatched, idcol); !slices.Equal(got, wantFirst) {
			t.Fatalf("step %d: first matched ids %v, want %v", step, got, wantFirst)
		}

		// Evict now and then.
		if rng.IntN(3) == 0 {
			bound := base - 150
			evRec, evMatched := buf.Evict(bound)
			var wantEv []int64
			var wantEvM []bool
			kept := oracle[:0]
			for _, o := range oracle {
				if !o.timeOK || o.time < bound { // a null key leaves with its time
					wantEv = append(wantEv, o.id)
					wantEvM = append(wantEvM, o.matched)
					continue
				}
				kept = append(kept, o)
			}
			oracle = kept
			var gotEv []int64
			if evRec != nil {
				gotEv = evRec.Column(idcol).(*array.Int64).Int64Values()
			}
			if !slices.Equal(gotEv, wantEv) || !slices.Equal(evMatched, wantEvM) {
				t.Fatalf("step %d: evicted %v %v, want %v %v", step, gotEv, evMatched, wantEv, wantEvM)
			}
			if evRec != nil {
				evRec.Release()
			}
		}
		if buf.Rows() != len(oracle) {
			t.Fatalf("step %d: buffer has %d rows, oracle %d", step, buf.Rows(), len(oracle))
		}

		// Durability: a replica follows by snapshots and changes.
		switch rng.IntN(6) {
		case 0:
			snap, err := buf.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			replica.Release()
			replica, _ = NewBuffer(mem, schema, keyCols, tcol)
			if err := replica.Load(snap); err != nil {
				t.Fatal(err)
			}
		case 1, 2:
			ch, err := buf.Changes()
			if err != nil {
				t.Fatal(err)
			}
			if err := replica.ApplyChanges(ch); err != nil {
				t.Fatal(err)
			}
		}
	}
	ch, err := buf.Changes()
	if err != nil {
		t.Fatal(err)
	}
	if err := replica.ApplyChanges(ch); err != nil {
		t.Fatal(err)
	}
	checkSameBuffer(t, mem, buf, replica, idcol)
	if buf.MemoryUsage() <= 0 {
		t.Fatal("no memory usage")
	}
}

// genTimes returns n timestamps around base, null with probability nullP.
func genTimes(mem memory.Allocator, rng *rand.Rand, n int, base int64, nullP float64) arrow.Array {
	b := array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		b.Append(arrow.Timestamp(base + rng.Int64N(200) - 100))
	}
	return b.NewArray()
}

// buildIDs returns the id column of buffered rows rows.
func buildIDs(t *testing.T, mem memory.Allocator, b *Buffer, rows []int32, idcol int) []int64 {
	t.Helper()
	cols := b.GatherColumns(mem, rows, []int{idcol})
	defer testutil.ReleaseAll(cols)
	return slices.Clone(cols[0].(*array.Int64).Int64Values())
}

func checkSameBuffer(t *testing.T, mem memory.Allocator, a, b *Buffer, idcol int) {
	t.Helper()
	if a.Rows() != b.Rows() || a.Keys() != b.Keys() || a.Seq() != b.Seq() {
		t.Fatalf("replica has %d rows %d keys seq %d, want %d %d %d", b.Rows(), b.Keys(), b.Seq(), a.Rows(), a.Keys(), a.Seq())
	}
	all := columnar.Identity(nil, a.Rows())
	ra, rb := a.Gather(mem, all), b.Gather(mem, all)
	defer ra.Release()
	defer rb.Release()
	if !array.RecordApproxEqual(ra, rb, array.WithNaNsEqual(true)) {
		t.Fatal("replica rows differ")
	}
	for r := range all {
		if a.Matched(int32(r)) != b.Matched(int32(r)) {
			t.Fatalf("row %d matched %v in the replica, %v in the original", r, b.Matched(int32(r)), a.Matched(int32(r)))
		}
	}
}
