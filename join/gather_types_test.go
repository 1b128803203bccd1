package join

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/arrowgen"
)

// everyTypeSchema is a key, an event time and one column of every type a
// source can produce (arrowgen.AllTypes).
func everyTypeSchema() *arrow.Schema {
	fields := []arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "t", Type: columnar.Timestamp}}
	for i, dt := range arrowgen.AllTypes() {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// everyTypeRecord returns n rows of everyTypeSchema with times from t0 on,
// its payload columns random (nulls at every level, sliced).
func everyTypeRecord(mem memory.Allocator, rng *rand.Rand, schema *arrow.Schema, n int, t0 int64) arrow.RecordBatch {
	kb, tb := array.NewInt64Builder(mem), array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer kb.Release()
	defer tb.Release()
	for i := 0; i < n; i++ {
		kb.Append(int64(rng.IntN(5)))
		tb.Append(arrow.Timestamp(t0 + int64(i)))
	}
	cols := []arrow.Array{kb.NewArray(), tb.NewArray()}
	for _, f := range schema.Fields()[2:] {
		cols = append(cols, arrowgen.Array(mem, rng, f.Type, n, 0.2, rng.IntN(2) == 0))
	}
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// checkGathered checks every column of got against the source rows
// (nil for a null row), rendering values one by one (arrowgen.Render).
func checkGathered(t *testing.T, what string, got []arrow.Array, from []srcRow) {
	t.Helper()
	for c, col := range got {
		if err := arrowgen.Validate(col); err != nil {
			t.Fatalf("%s: column %d: %v", what, c, err)
		}
		for i, f := range from {
			want := "null"
			if f.rec != nil {
				want = arrowgen.Render(f.rec.Column(c), f.row)
			}
			if g := arrowgen.Render(col, i); g != want {
				t.Fatalf("%s: column %d (%s) row %d: got %s, want %s", what, c, col.DataType(), i, g, want)
			}
		}
	}
}

type srcRow struct {
	rec arrow.RecordBatch
	row int
}

// TestGatherEveryType gathers columns of every type from a stream-stream
// join Buffer (several chunks, null rows for outer joins), after a partial
// Evict (which copies chunks down with Take), after a Snapshot/Load round
// trip of the buffer's state encoding, and from a static-side Table built
// from several records (concatenated with kernels.Concat). Before issue 10
// item 12 was fixed, every list, map and dictionary column panicked here.
func TestGatherEveryType(t *testing.T) {
	for _, bs := range []int{1, 3, 50} {
		t.Run(fmt.Sprint(bs), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewPCG(uint64(bs), 12))
			schema := everyTypeSchema()
			all := make([]int, schema.NumFields())
			for i := range all {
				all[i] = i
			}
			buf, err := NewBuffer(mem, schema, []int{0}, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			var recs []arrow.RecordBatch
			var rows []srcRow // the buffer's rows, in order
			t0 := int64(0)
			for b := 0; b < 4; b++ {
				rec := everyTypeRecord(mem, rng, schema, bs, t0)
				t0 += int64(bs)
				recs = append(recs, rec)
				var sel []int32
				if b%2 == 1 {
					for r := 0; r < bs; r++ {
						if rng.IntN(3) > 0 {
							sel = append(sel, int32(r))
						}
					}
					if sel == nil {
						sel = []int32{}
					}
				}
				if _, err := buf.Add(rec, sel, nil); err != nil {
					t.Fatal(err)
				}
				for _, r := range liveRows(sel, bs) {
					rows = append(rows, srcRow{rec, int(r)})
				}
			}
			defer func() {
				for _, r := range recs {
					r.Release()
				}
			}()
			gatherRandom := func(what string, b *Buffer, rows []srcRow) {
				t.Helper()
				var idx []int32
				var from []srcRow
				for i := 0; i < 2*len(rows)+1; i++ {
					if len(rows) == 0 || rng.IntN(5) == 0 {
						idx = append(idx, -1)
						from = append(from, srcRow{})
						continue
					}
					r := rng.IntN(len(rows))
					idx = append(idx, int32(r))
					from = append(from, rows[r])
				}
				got := b.GatherColumns(mem, idx, all)
				checkGathered(t, what, got, from)
				for _, a := range got {
					a.Release()
				}
			}
			gatherRandom("buffer", buf, rows)

			// Snapshot and Load: the state encoding carries every type.
			snap, err := buf.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := NewBuffer(mem, schema, []int{0}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := loaded.Load(snap); err != nil {
				t.Fatal(err)
			}
			gatherRandom("loaded buffer", loaded, rows)
			loaded.Release()

			// Evict the first half of the times: chunks are dropped or copied.
			bound := t0 / 2
			ev, _ := buf.Evict(bound)
			var evicted, kept []srcRow
			for _, r := range rows {
				if ts := int64(r.rec.Column(1).(*array.Timestamp).Value(r.row)); ts < bound {
					evicted = append(evicted, r)
				} else {
					kept = append(kept, r)
				}
			}
			if ev != nil {
				checkGathered(t, "evicted", ev.Columns(), evicted)
				ev.Release()
			} else if len(evicted) > 0 {
				t.Fatalf("evict returned nothing, want %d rows", len(evicted))
			}
			gatherRandom("buffer after evict", buf, kept)

			// A static side built from the records.
			tab, err := Build(mem, schema, []int{0}, recs)
			if err != nil {
				t.Fatal(err)
			}
			var trows []srcRow
			for _, r := range recs {
				for i := 0; i < int(r.NumRows()); i++ {
					trows = append(trows, srcRow{r, i})
				}
			}
			var idx []int32
			var from []srcRow
			for i := 0; i < len(trows)+3; i++ {
				if rng.IntN(4) == 0 {
					idx, from = append(idx, -1), append(from, srcRow{})
					continue
				}
				r := rng.IntN(len(trows))
				idx, from = append(idx, int32(r)), append(from, trows[r])
			}
			got := tab.Gather(mem, idx, all)
			checkGathered(t, "table", got, from)
			for _, a := range got {
				a.Release()
			}
			tab.Release()
		})
	}
}

func liveRows(sel []int32, n int) []int32 {
	if sel != nil {
		return sel
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}
