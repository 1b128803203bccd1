package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// countDistinctAcc is count(distinct col): a second hash table keyed on
// (group id, value) holds every pair seen; a group's count grows when one of
// its pairs is new. Nulls are not counted.
type countDistinctAcc struct {
	pairs  *HashTable
	counts []int64
	gids   []int64 // group id per row of the current batch
	sel    []int32 // live non-null rows
	pg     []uint32
}

func newCountDistinct(argType arrow.DataType) (*countDistinctAcc, error) {
	pairs, err := NewHashTable([]arrow.DataType{arrow.PrimitiveTypes.Int64, argType})
	if err != nil {
		return nil, err
	}
	return &countDistinctAcc{pairs: pairs}, nil
}

func (a *countDistinctAcc) resize(n int) { a.counts = growTo(a.counts, n, 0) }

func (a *countDistinctAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	n := arg.Len()
	a.gids = growI64(a.gids, n)
	live := sel
	if arg.NullN() > 0 {
		bm, off := validity(arg)
		if a.sel == nil {
			a.sel = make([]int32, 0, n) // non-nil: nil would mean every row
		}
		a.sel = a.sel[:0]
		for i, g := range groups {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			if bitutil.BitIsSet(bm, off+r) {
				a.sel = append(a.sel, int32(r))
				a.gids[r] = int64(g)
			}
		}
		live = a.sel
	} else if sel == nil {
		for i, g := range groups {
			a.gids[i] = int64(g)
		}
	} else {
		for i, g := range groups {
			a.gids[sel[i]] = int64(g)
		}
	}
	buf := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(a.gids[:n]))
	data := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{nil, buf}, nil, 0, 0)
	gidArr := array.NewInt64Data(data)
	data.Release()
	defer gidArr.Release()
	before := a.pairs.Len()
	var err error
	a.pg, err = a.pairs.Lookup([]arrow.Array{gidArr, arg}, live, a.pg, true)
	if err != nil {
		return err
	}
	for p := before; p < a.pairs.Len(); p++ {
		a.counts[a.pairs.KeyInt64(0, uint32(p))]++
	}
	return nil
}

func (a *countDistinctAcc) compact(keep []bool, remap []uint32) {
	a.counts = compactSlice(a.counts, keep)
	a.pairs.remapGroupColumn(remap)
}

func (a *countDistinctAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	return buildNumbers(mem, arrow.PrimitiveTypes.Int64, a.counts, nil, groups)
}

func (a *countDistinctAcc) resultType() (arrow.DataType, bool) {
	return arrow.PrimitiveTypes.Int64, false
}

func (a *countDistinctAcc) memory() int64 {
	return int64(cap(a.counts)+cap(a.gids))*8 + int64(cap(a.sel)+cap(a.pg))*4 + a.pairs.MemoryUsage()
}

// remapGroupColumn rewrites key column 0 (an int64 group id of another
// table) through remap, dropping entries whose group maps to NoGroup, and
// rehashes. Relative order of the kept entries is preserved.
func (h *HashTable) remapGroupColumn(remap []uint32) {
	c := &h.cols[0]
	keep := make([]bool, h.n)
	for p, g := range c.vals {
		keep[p] = remap[g] != NoGroup
	}
	h.Compact(keep) // drops the entries; hashes are rebuilt below
	for p, g := range c.vals {
		c.vals[p] = int64(remap[g])
	}
	h.rehashStored()
}

// rehashStored recomputes every group's hash from its stored key (the same
// function hashRows applies to a batch) and rebuilds the slot array.
func (h *HashTable) rehashStored() {
	if h.mode == modeInt || h.mode == modePair {
		h.rebuild(slotsFor(h.n))
		return
	}
	h.hashes = growU64(h.hashes, h.n)
	for g := range h.hashes {
		hv := uint64(hashSeed)
		for j := range h.cols {
			c := &h.cols[j]
			var x uint64
			switch {
			case c.nulls[g]:
				x = hashNull
			case c.bytes:
				x = hashBytes(c.bytesOf(uint32(g)))
			default:
				x = uint64(c.vals[g])
			}
			hv = combine(hv, x)
		}
		h.hashes[g] = fmix(hv)
	}
	if h.mode == modeBytes {
		// The single-key path hashes the bytes alone.
		for g := range h.hashes {
			h.hashes[g] = hashBytes(h.cols[0].bytesOf(uint32(g)))
		}
	}
	h.rebuild(slotsFor(h.n))
}
