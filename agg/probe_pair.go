package agg

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// The two integer keys path: (window start, key) and (start, end) pairs
// are the most common grouping of streaming aggregations. Both keys sit
// inline in the slot with their null flags, so a hit costs one hash, one
// slot load and two compares — no second pass over stored key columns.

// pairSlot is one slot of the two integer keys table. g is the group id
// plus one (0: empty); nulls has bit i set when key i is null (its value 0).
type pairSlot struct {
	k0, k1 int64
	g      uint32
	nulls  uint8
}

func hashPair(k0, k1 int64, nulls uint8) uint64 {
	x0, x1 := uint64(k0), uint64(k1)
	if nulls&1 != 0 {
		x0 = hashNull
	}
	if nulls&2 != 0 {
		x1 = hashNull
	}
	return fmix(combine(combine(hashSeed, x0), x1))
}

// int64View returns the values of an int32, int64 or timestamp array as
// int64s (a view for 64-bit types, a widened copy for int32).
func int64View(a arrow.Array) []int64 {
	switch a := a.(type) {
	case *array.Int64:
		return a.Int64Values()
	case *array.Timestamp:
		v := a.TimestampValues()
		if len(v) == 0 {
			return nil
		}
		return unsafe.Slice((*int64)(unsafe.Pointer(&v[0])), len(v))
	case *array.Date32:
		v := a.Date32Values()
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	case *array.Int32:
		v := a.Int32Values()
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = int64(x)
		}
		return out
	}
	return nil
}

func (h *HashTable) lookupPair(a, b arrow.Array, sel []int32, groups []uint32, insert bool) {
	va, vb := int64View(a), int64View(b)
	if a.NullN() > 0 || b.NullN() > 0 {
		h.probePairNulls(va, vb, a, b, sel, groups, insert)
		return
	}
	slots, shift, mask := h.pslots, h.shift, h.mask
	for i := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		k0, k1 := va[r], vb[r]
		p := hashPair(k0, k1, 0) >> shift
		for {
			s := &slots[p]
			if s.g == 0 {
				groups[i] = h.insertPair(k0, k1, 0, insert)
				slots, shift, mask = h.pslots, h.shift, h.mask
				break
			}
			if s.k0 == k0 && s.k1 == k1 && s.nulls == 0 {
				groups[i] = s.g - 1
				break
			}
			p = (p + 1) & mask
		}
	}
}

func (h *HashTable) probePairNulls(va, vb []int64, a, b arrow.Array, sel []int32, groups []uint32, insert bool) {
	for i := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		var k0, k1 int64
		var nulls uint8
		if a.IsNull(r) {
			nulls |= 1
		} else {
			k0 = va[r]
		}
		if b.IsNull(r) {
			nulls |= 2
		} else {
			k1 = vb[r]
		}
		p := hashPair(k0, k1, nulls) >> h.shift
		for {
			s := &h.pslots[p]
			if s.g == 0 {
				groups[i] = h.insertPair(k0, k1, nulls, insert)
				break
			}
			if s.k0 == k0 && s.k1 == k1 && s.nulls == nulls {
				groups[i] = s.g - 1
				break
			}
			p = (p + 1) & h.mask
		}
	}
}

// insertPair adds the absent key (k0, k1) as a new group (growing the slot
// array first when it is full) and returns its id; NoGroup when !insert.
func (h *HashTable) insertPair(k0, k1 int64, nulls uint8, insert bool) uint32 {
	if !insert {
		return NoGroup
	}
	if h.n >= h.limit {
		h.grow()
	}
	p := hashPair(k0, k1, nulls) >> h.shift
	for h.pslots[p].g != 0 {
		p = (p + 1) & h.mask
	}
	g := uint32(h.n)
	h.pslots[p] = pairSlot{k0: k0, k1: k1, g: g + 1, nulls: nulls}
	h.n++
	c0, c1 := &h.cols[0], &h.cols[1]
	c0.vals = append(c0.vals, k0)
	c0.nulls = append(c0.nulls, nulls&1 != 0)
	c1.vals = append(c1.vals, k1)
	c1.nulls = append(c1.nulls, nulls&2 != 0)
	return g
}

// rebuildPairs re-inserts every group into the (fresh) pair slot array.
func (h *HashTable) rebuildPairs() {
	c0, c1 := &h.cols[0], &h.cols[1]
	for g := 0; g < h.n; g++ {
		var nulls uint8
		if c0.nulls[g] {
			nulls |= 1
		}
		if c1.nulls[g] {
			nulls |= 2
		}
		k0, k1 := c0.vals[g], c1.vals[g]
		p := hashPair(k0, k1, nulls) >> h.shift
		for h.pslots[p].g != 0 {
			p = (p + 1) & h.mask
		}
		h.pslots[p] = pairSlot{k0: k0, k1: k1, g: uint32(g) + 1, nulls: nulls}
	}
}
