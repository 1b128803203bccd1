package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/state"
)

// TestIntKeyEncodingMatches holds appendIntKey (the aggregation's direct
// delta encoding) to columnar.EncodeKeys, which restores decode with:
// every integer key type, nulls included.
func TestIntKeyEncodingMatches(t *testing.T) {
	mem := memory.DefaultAllocator
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, arrow.FixedWidthTypes.Date32}
	ht, err := agg.NewHashTable(types)
	if err != nil {
		t.Fatal(err)
	}
	i64 := array.NewInt64Builder(mem)
	i32 := array.NewInt32Builder(mem)
	ts := array.NewTimestampBuilder(mem, types[2].(*arrow.TimestampType))
	d32 := array.NewDate32Builder(mem)
	for i, v := range []int64{-1 << 62, -1, 0, 1, 1 << 62, 7} {
		if i == 5 {
			i64.AppendNull()
			i32.AppendNull()
			ts.AppendNull()
			d32.AppendNull()
			continue
		}
		i64.Append(v)
		i32.Append(int32(v >> 33))
		if i == 2 {
			ts.AppendNull()
		} else {
			ts.Append(arrow.Timestamp(v))
		}
		d32.Append(arrow.Date32(v >> 40))
	}
	cols := []arrow.Array{i64.NewArray(), i32.NewArray(), ts.NewArray(), d32.NewArray()}
	groups, err := ht.Lookup(cols, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeGroupKeys(ht, groups)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range groups {
		got := appendIntKey(nil, ht, len(types), g)
		n, k := binary.Uvarint(got)
		if int(n) != len(got)-k || !bytes.Equal(got[k:], want[i]) {
			t.Errorf("group %d: appendIntKey %x, EncodeKeys %x", g, got, want[i])
		}
	}
}

// TestAggregationDeltasRestore feeds a windowed aggregation batches whose
// rows fall in windows the same batch's watermark closes (updated and
// evicted at once) and in windows left open, commits each batch's deltas
// (range deletions of the closed windows, puts of the open groups only)
// and checks after every commit that a restore rebuilds exactly the
// table's groups and states.
func TestAggregationDeltasRestore(t *testing.T) {
	const parts, sec = 3, int64(1_000_000)
	old := smallDeltaBytes
	smallDeltaBytes = 2000 // deltas as files and as Pebble rows
	defer func() { smallDeltaBytes = old }()
	mem := memory.DefaultAllocator
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			Metadata: arrow.NewMetadata([]string{plan.WatermarkKey}, []string{"1000"})},
		{Name: "u", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	node, err := plan.NewAggregate(&plan.Scan{Source: schemaSource{sch}},
		[]plan.Expr{plan.Window{Time: plan.ColumnRef{Name: "t"}, Size: 10 * time.Second, Slide: 10 * time.Second}, plan.ColumnRef{Name: "u"}},
		[]plan.Expr{plan.Agg{Func: plan.AggCountAll}, plan.Agg{Func: plan.AggMax, Arg: plan.ColumnRef{Name: "v"}}})
	if err != nil {
		t.Fatal(err)
	}
	newOp := func() *aggOperator {
		a, err := newAggOperator(node, sinks.Update, parts)
		if err != nil {
			t.Fatal(err)
		}
		a.enableDurability()
		return a
	}
	live := newOp()
	store, err := state.Open(filepath.Join(t.TempDir(), "state"), state.Options{QueryID: "q", NoRowCount: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cs := newChangelogState(parts)
	rng := rand.New(rand.NewPCG(3, 4))
	tk := &task{ctx: context.Background(), mem: mem}
	ranged := 0
	for batch := int64(0); batch < 12; batch++ {
		tb := array.NewTimestampBuilder(mem, sch.Field(0).Type.(*arrow.TimestampType))
		ub, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		base := batch * 20 * sec
		for i := 0; i < 200; i++ {
			if rng.IntN(20) == 0 {
				tb.AppendNull()
			} else {
				tb.Append(arrow.Timestamp(base + rng.Int64N(40*sec)))
			}
			ub.Append(rng.Int64N(30))
			vb.Append(rng.Int64N(1000))
		}
		cols := []arrow.Array{tb.NewArray(), ub.NewArray(), vb.NewArray()}
		sh := &shuffled{}
		if err := live.prepare(tk, columnar.Batch{Rec: array.NewRecordBatch(sch, cols, 200)}, sh, nil); err != nil {
			t.Fatal(err)
		}
		for p := 0; p < parts; p++ {
			if err := live.update(p, []*shuffled{sh}); err != nil {
				t.Fatal(err)
			}
		}
		sh.release()
		tk.reset()
		// the watermark closes the windows of the batch's first 20 s:
		// groups this batch updated are evicted with it
		wm := base + 20*sec - 1
		for p := 0; p < parts; p++ {
			recs, _, _, err := live.emit(mem, p, wm)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				r.Release()
			}
			if bytes.Contains(live.changes[p].body, []byte{rowDeleteRange}) {
				ranged++
			}
		}
		txn := store.Begin(batch)
		if err := persistChangelog(txn, true, 0, batch, live, parts, cs, DefaultMinDeltasForSnapshot, 2); err != nil {
			t.Fatal(err)
		}
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
		back := newOp()
		if err := restoreChangelog(store, 0, back, parts, newChangelogState(parts)); err != nil {
			t.Fatal(err)
		}
		for p := 0; p < parts; p++ {
			wk, wv, _ := live.snapshot(p)
			gk, gv, _ := back.snapshot(p)
			if d := rowsDiff(wk, wv, gk, gv); d != "" {
				t.Fatalf("batch %d partition %d: restored state differs from the table: %s", batch, p, d)
			}
		}
	}
	if ranged == 0 {
		t.Fatal("no delta held a range deletion: the test does not test it")
	}
}

func rowsDiff(wk, wv, gk, gv [][]byte) string {
	want, got := map[string]string{}, map[string]string{}
	for i := range wk {
		want[string(wk[i])] = string(wv[i])
	}
	for i := range gk {
		got[string(gk[i])] = string(gv[i])
	}
	for k, v := range want {
		if g, ok := got[k]; !ok {
			return fmt.Sprintf("group %x missing", k)
		} else if g != v {
			return fmt.Sprintf("group %x: state %x, want %x", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("group %x restored but not in the table", k)
		}
	}
	return ""
}
