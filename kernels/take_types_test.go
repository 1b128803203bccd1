package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/internal/arrowgen"
)

// typeCaseMaxRows caps the batch size of the every-type replays: the
// oracle renders each value as text, and the large batches add no new
// shape (the flat fast paths are replayed at 65536 rows by TestTake).
const typeCaseMaxRows = 1024

// checkMoved checks that got holds, row by row, the rows idx of src
// (idx[i] < 0 meaning a null row), by rendering both value by value with
// arrowgen.Render, the naive oracle; and that got is valid at every level.
func checkMoved(t *testing.T, what string, got arrow.Array, src func(i int) (arrow.Array, int)) {
	t.Helper()
	if err := arrowgen.Validate(got); err != nil {
		t.Fatalf("%s: invalid result: %v", what, err)
	}
	for i := 0; i < got.Len(); i++ {
		a, r := src(i)
		want := "null"
		if r >= 0 {
			want = arrowgen.Render(a, r)
		}
		if g := arrowgen.Render(got, i); g != want {
			t.Fatalf("%s: row %d (from %d): got %s, want %s", what, i, r, g, want)
		}
	}
}

// TestTakeEveryType replays Take over every type a source can produce
// (arrowgen.AllTypes: primitives, strings and binary and their large
// variants, fixed-size binary, decimals, temporal types, lists, large
// lists, fixed-size lists, structs, maps, dictionaries, nested
// combinations), with nulls at every level and offsets at every level,
// selections (increasing) and gathers (any order, repeats), against the
// value-by-value oracle. Before issue 10 item 12 was fixed, Take panicked on
// every list, map and dictionary type.
func TestTakeEveryType(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.n > typeCaseMaxRows {
			t.Skip("flat types are replayed at this size by TestTake")
		}
		for _, dt := range arrowgen.AllTypes() {
			col := arrowgen.Array(mem, rng, dt, c.n, c.nullProb, c.sliced)
			var idx []int32
			if c.withSel {
				idx = randSel(rng, c.n, true)
			} else {
				idx = randIdx(rng, c.n)
			}
			got := Take(mem, col, idx)
			if got.Len() != len(idx) || !arrow.TypeEqual(got.DataType(), dt) {
				t.Fatalf("%s: len %d type %s", dt, got.Len(), got.DataType())
			}
			checkMoved(t, dt.String(), got, func(i int) (arrow.Array, int) { return col, int(idx[i]) })
			got.Release()
			col.Release()
		}
	})
}

// TestCompactEveryType compacts a record holding a column of every type
// (the Kafka source's headers among them).
func TestCompactEveryType(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.n > typeCaseMaxRows {
			t.Skip("flat types are replayed at this size by TestCompact")
		}
		var cols []arrow.Array
		var fields []arrow.Field
		for i, dt := range arrowgen.AllTypes() {
			cols = append(cols, arrowgen.Array(mem, rng, dt, c.n, c.nullProb, c.sliced))
			fields = append(fields, arrow.Field{Name: "c" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Type: dt, Nullable: true})
		}
		rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(c.n))
		for _, col := range cols {
			col.Release()
		}
		sel := randSel(rng, c.n, c.withSel)
		b := columnar.NewBatch(rec, sel)
		got := Compact(mem, b)
		if got.NumRows() != int64(b.NumRows()) {
			t.Fatalf("rows %d want %d", got.NumRows(), b.NumRows())
		}
		rows := live(sel, c.n)
		for k := range cols {
			checkMoved(t, fields[k].Type.String(), got.Column(k), func(i int) (arrow.Array, int) { return rec.Column(k), int(rows[i]) })
		}
		got.Release()
		b.Release()
	})
}

// TestTakeChunksEveryType gathers from a column split into chunks of
// uneven sizes (some empty), with null rows (index -1), as the joins do.
func TestTakeChunksEveryType(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.n > typeCaseMaxRows {
			t.Skip("the joins' own flat loops are replayed at this size in package join")
		}
		for _, dt := range arrowgen.AllTypes() {
			chunks := make([]arrow.Array, 1+rng.IntN(4))
			for k := range chunks {
				size := c.n
				if k > 0 {
					size = rng.IntN(c.n + 1)
				}
				chunks[k] = arrowgen.Array(mem, rng, dt, size, c.nullProb, c.sliced)
			}
			out := rng.IntN(2 * c.n)
			var ch []uint32
			if len(chunks) > 1 || rng.IntN(2) == 0 {
				ch = make([]uint32, out)
			}
			idx := make([]int32, out)
			for i := range idx {
				k := 0
				if ch != nil {
					k = rng.IntN(len(chunks))
					ch[i] = uint32(k)
				}
				if chunks[k].Len() == 0 || (c.withSel && rng.IntN(5) == 0) {
					idx[i] = -1
					continue
				}
				idx[i] = int32(rng.IntN(chunks[k].Len()))
			}
			got := TakeChunks(mem, dt, chunks, ch, idx)
			if got.Len() != out || !arrow.TypeEqual(got.DataType(), dt) {
				t.Fatalf("%s: len %d (want %d) type %s", dt, got.Len(), out, got.DataType())
			}
			checkMoved(t, dt.String(), got, func(i int) (arrow.Array, int) {
				k := 0
				if ch != nil {
					k = int(ch[i])
				}
				return chunks[k], int(idx[i])
			})
			got.Release()
			for _, a := range chunks {
				a.Release()
			}
		}
	})
}

// TestConcatEveryType concatenates 1 to 4 arrays of every type, empty ones
// among them (arrow-go's array.Concatenate alone fails on an empty
// dictionary array and on list<dictionary> with an empty child).
func TestConcatEveryType(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.n > typeCaseMaxRows || c.withSel {
			t.Skip("no selection; flat types are covered at large sizes by arrow's own tests")
		}
		for _, dt := range arrowgen.AllTypes() {
			parts := make([]arrow.Array, 1+rng.IntN(4))
			for k := range parts {
				parts[k] = arrowgen.Array(mem, rng, dt, rng.IntN(c.n+1), c.nullProb, c.sliced)
			}
			var from [][2]int // part, row of each output row
			for k, p := range parts {
				for r := 0; r < p.Len(); r++ {
					from = append(from, [2]int{k, r})
				}
			}
			got := Concat(mem, dt, parts)
			if got.Len() != len(from) || !arrow.TypeEqual(got.DataType(), dt) {
				t.Fatalf("%s: len %d (want %d) type %s", dt, got.Len(), len(from), got.DataType())
			}
			checkMoved(t, dt.String(), got, func(i int) (arrow.Array, int) { return parts[from[i][0]], from[i][1] })
			got.Release()
			for _, p := range parts {
				p.Release()
			}
		}
	})
}
