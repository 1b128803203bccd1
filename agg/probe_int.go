package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// The single integer key path: the key sits inline in its slot, so a hit
// costs one hash multiply, one slot load and one compare.

func (h *HashTable) lookupInt(arr arrow.Array, sel []int32, groups []uint32, insert bool) {
	switch a := arr.(type) {
	case *array.Int64:
		probeInt(h, a.Int64Values(), arr, sel, groups, insert)
	case *array.Timestamp:
		probeInt(h, a.TimestampValues(), arr, sel, groups, insert)
	case *array.Int32:
		probeInt(h, a.Int32Values(), arr, sel, groups, insert)
	case *array.Date32:
		probeInt(h, a.Date32Values(), arr, sel, groups, insert)
	}
}

func probeInt[T ~int32 | ~int64](h *HashTable, vals []T, arr arrow.Array, sel []int32, groups []uint32, insert bool) {
	if arr.NullN() > 0 {
		probeIntNulls(h, vals, arr, sel, groups, insert)
		return
	}
	slots, shift, mask := h.islots, h.shift, h.mask
	if sel == nil {
		vals = vals[:len(groups)]
		for i, v := range vals {
			k := int64(v)
			p := hashInt64(k) >> shift
			for {
				s := &slots[p]
				if s.key == k && s.g != 0 {
					groups[i] = s.g - 1
					break
				}
				if s.g == 0 {
					groups[i] = h.insertInt(k, insert)
					slots, shift, mask = h.islots, h.shift, h.mask
					break
				}
				p = (p + 1) & mask
			}
		}
		return
	}
	groups = groups[:len(sel)]
	for i, r := range sel {
		k := int64(vals[r])
		p := hashInt64(k) >> shift
		for {
			s := &slots[p]
			if s.key == k && s.g != 0 {
				groups[i] = s.g - 1
				break
			}
			if s.g == 0 {
				groups[i] = h.insertInt(k, insert)
				slots, shift, mask = h.islots, h.shift, h.mask
				break
			}
			p = (p + 1) & mask
		}
	}
}

func probeIntNulls[T ~int32 | ~int64](h *HashTable, vals []T, arr arrow.Array, sel []int32, groups []uint32, insert bool) {
	bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
	slots, shift, mask := h.islots, h.shift, h.mask
	for i := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if !bitutil.BitIsSet(bm, off+r) {
			groups[i] = h.nullKeyGroup(insert)
			continue
		}
		k := int64(vals[r])
		p := hashInt64(k) >> shift
		for {
			s := &slots[p]
			if s.key == k && s.g != 0 {
				groups[i] = s.g - 1
				break
			}
			if s.g == 0 {
				groups[i] = h.insertInt(k, insert)
				slots, shift, mask = h.islots, h.shift, h.mask
				break
			}
			p = (p + 1) & mask
		}
	}
}

// insertInt adds the absent key k as a new group (growing the slot array
// first when it is full) and returns its id; NoGroup when !insert.
func (h *HashTable) insertInt(k int64, insert bool) uint32 {
	if !insert {
		return NoGroup
	}
	if h.n >= h.limit {
		h.grow()
	}
	p := hashInt64(k) >> h.shift
	for h.islots[p].g != 0 {
		p = (p + 1) & h.mask
	}
	g := uint32(h.n)
	h.islots[p] = intSlot{key: k, g: g + 1}
	h.n++
	c := &h.cols[0]
	c.vals = append(c.vals, k)
	c.nulls = append(c.nulls, false)
	return g
}
