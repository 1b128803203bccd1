package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

func sameValue(a arrow.Array, i int, b arrow.Array, j int) bool {
	if a.IsNull(i) || b.IsNull(j) {
		return a.IsNull(i) == b.IsNull(j)
	}
	if s, ok := a.(*array.Struct); ok {
		bs := b.(*array.Struct)
		for k := 0; k < s.NumField(); k++ {
			if !sameValue(s.Field(k), i, bs.Field(k), j) {
				return false
			}
		}
		return true
	}
	x, y := oracleValue(a, i), oracleValue(b, j)
	if xf, ok := x.(float64); ok {
		return sparkFloatCmp(xf, y.(float64)) == 0
	}
	return x == y
}

func randIdx(rng *rand.Rand, n int) []int32 {
	k := rng.IntN(n + 1)
	idx := make([]int32, k)
	for i := range idx {
		idx[i] = int32(rng.IntN(n))
	}
	return idx
}

func TestTake(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		var idx []int32
		if c.withSel {
			idx = randSel(rng, c.n, true)
		} else {
			idx = randIdx(rng, c.n) // repeats and any order
		}
		cols := []arrow.Array{}
		for _, dt := range cmpTypes {
			cols = append(cols, genArray(mem, rng, dt, c.n, c.nullProb, c.sliced))
		}
		// A struct of an int64 and a string, with its own nulls.
		fields := []arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}}
		bm := make([]byte, bitmapBytes(c.n))
		nulls := 0
		for i := 0; i < c.n; i++ {
			if rng.Float64() >= c.nullProb {
				bm[i/8] |= 1 << (i % 8)
			} else {
				nulls++
			}
		}
		sd := array.NewData(arrow.StructOf(fields...), c.n, []*memory.Buffer{memory.NewBufferBytes(bm)}, []arrow.ArrayData{cols[1].Data(), cols[3].Data()}, nulls, 0)
		st := array.NewStructData(sd)
		sd.Release()
		cols = append(cols, st)
		for _, col := range cols {
			got := Take(mem, col, idx)
			if got.Len() != len(idx) || !arrow.TypeEqual(got.DataType(), col.DataType()) {
				t.Fatalf("%s: len %d type %s", col.DataType(), got.Len(), got.DataType())
			}
			for i, r := range idx {
				if !sameValue(got, i, col, int(r)) {
					t.Fatalf("%s row %d (src %d) differs", col.DataType(), i, r)
				}
			}
			if countNulls(got) != got.NullN() {
				t.Fatalf("%s: NullN %d counted %d", col.DataType(), got.NullN(), countNulls(got))
			}
			if v, ok := got.(interface{ ValidateFull() error }); ok {
				if err := v.ValidateFull(); err != nil {
					t.Fatalf("%s: %v", col.DataType(), err)
				}
			}
			got.Release()
		}
		for _, col := range cols {
			col.Release()
		}
	})
}

func TestCompact(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		var cols []arrow.Array
		var fields []arrow.Field
		for i, dt := range cmpTypes {
			cols = append(cols, genArray(mem, rng, dt, c.n, c.nullProb, c.sliced))
			fields = append(fields, arrow.Field{Name: string(rune('a' + i)), Type: dt, Nullable: true})
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
		if sel == nil && got != rec {
			t.Fatal("Compact without selection must return the record itself")
		}
		for k := range cols {
			for i, r := range live(sel, c.n) {
				if !sameValue(got.Column(k), i, rec.Column(k), int(r)) {
					t.Fatalf("col %d row %d differs", k, i)
				}
			}
		}
		got.Release()
		b.Release()
	})
}
