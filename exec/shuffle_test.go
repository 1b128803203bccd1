package exec

import (
	"context"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/kernels"
)

// keyRecord is a record of one nullable int64 column k with n rows.
func keyRecord(rng *rand.Rand, n int) arrow.RecordBatch {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		if rng.Intn(10) == 0 {
			b.AppendNull()
		} else {
			b.Append(rng.Int63n(50))
		}
	}
	col := b.NewArray()
	defer col.Release()
	sch := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	return array.NewRecordBatch(sch, []arrow.Array{col}, int64(n))
}

// randomSel is nil (every row) or a random sorted selection of n rows.
func randomSel(rng *rand.Rand, n int) []int32 {
	if rng.Intn(3) == 0 {
		return nil
	}
	var sel []int32
	for i := 0; i < n; i++ {
		if rng.Intn(2) == 0 {
			sel = append(sel, int32(i))
		}
	}
	if sel == nil {
		sel = []int32{}
	}
	return sel
}

// route puts every live row in exactly one partition, the one of its key's
// hash, in row order; the selections it hands out stay intact while the
// task routes more batches, and after the task's scratch is reset for the
// next trigger the shuffle starts empty.
func TestShuffleRoutesEveryLiveRowOnce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	tk := &task{ctx: context.Background(), mem: memory.DefaultAllocator}
	for trigger := 0; trigger < 3; trigger++ {
		for _, p := range []int{1, 3, 16} {
			sh := tk.shuffle()
			type routed struct {
				rec  arrow.RecordBatch
				want [][]int32 // per partition
			}
			var all []routed
			for batch := 0; batch < 4; batch++ {
				n := []int{1, 2, 7, 1024}[rng.Intn(4)]
				rec := keyRecord(rng, n)
				sel := randomSel(rng, n)
				// scratch input: route must copy what it keeps
				in := append(tk.sels.take(len(sel)), sel...)
				if sel == nil {
					in = nil
				}
				sh.route(tk, p, rec, rec.Columns(), in)
				for i := range in {
					in[i] = -1
				}
				want := make([][]int32, p)
				hashes := kernels.HashColumns(rec.Columns(), sel, nil)
				for i, h := range hashes {
					part := 0
					if p > 1 {
						part = partitionOf(h, p)
					}
					want[part] = append(want[part], rowOf(sel, i))
				}
				all = append(all, routed{rec, want})
			}
			got := make([][][]int32, p) // per partition, per batch routed there
			recs := make([][]arrow.RecordBatch, p)
			for part, bs := range sh.parts {
				for _, b := range bs {
					rows := b.Sel
					if rows == nil {
						rows = []int32{}
						for i := 0; i < int(b.Rec.NumRows()); i++ {
							rows = append(rows, int32(i))
						}
					}
					got[part] = append(got[part], slices.Clone(rows))
					recs[part] = append(recs[part], b.Rec)
				}
			}
			for part := 0; part < p; part++ {
				k := 0
				for _, r := range all {
					if len(r.want[part]) == 0 {
						continue
					}
					if k >= len(got[part]) || recs[part][k] != r.rec || !slices.Equal(got[part][k], r.want[part]) {
						t.Fatalf("trigger %d, %d partitions: partition %d, batch %d: got %v, want %v", trigger, p, part, k, got[part], r.want[part])
					}
					k++
				}
				if k != len(got[part]) {
					t.Fatalf("partition %d holds %d batches, want %d", part, len(got[part]), k)
				}
			}
			for _, r := range all {
				r.rec.Release()
			}
		}
		for _, s := range tk.shuffles[:tk.used] {
			s.release()
			for _, bs := range s.parts {
				if len(bs) != 0 {
					t.Fatal("a released shuffle holds batches")
				}
			}
		}
		tk.reset()
	}
}

// A trigger like the one before takes its selections from the arena
// without allocating.
func TestArenaReusesItsChunk(t *testing.T) {
	var a int32Arena
	cycle := func() {
		for i := 0; i < 10; i++ {
			s := a.take(3000)
			for j := 0; j < 3000; j++ {
				s = append(s, int32(j))
			}
			if cap(s) != 3000 {
				t.Fatalf("take(3000) has room for %d", cap(s))
			}
		}
		a.reset()
	}
	cycle() // grows to one chunk of the size of the trigger
	if allocs := testing.AllocsPerRun(5, cycle); allocs != 0 {
		t.Fatalf("%v allocations per trigger after the first", allocs)
	}
}
