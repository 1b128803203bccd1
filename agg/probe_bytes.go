package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// The single string/binary key path: a slot holds 32 bits of the key's hash
// next to the group id, so the bytes are compared only on a tag match.

func (h *HashTable) lookupBytes(arr arrow.Array, sel []int32, groups []uint32, insert bool) {
	var offs []int32
	switch a := arr.(type) {
	case *array.String:
		offs = a.ValueOffsets()
	case *array.Binary:
		offs = a.ValueOffsets()
	}
	var data []byte
	if b := arr.Data().Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	var bm []byte
	off := arr.Data().Offset()
	if arr.NullN() > 0 {
		bm = arr.NullBitmapBytes()
	}
	c := &h.cols[0]
	slots, shift, mask := h.slots, h.shift, h.mask
	for i := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			groups[i] = h.nullKeyGroup(insert)
			continue
		}
		b := data[offs[r]:offs[r+1]]
		hv := hashBytes(b)
		tag := uint32(hv)
		p := hv >> shift
		for {
			s := slots[p]
			if s == 0 {
				groups[i] = h.insertBytes(b, hv, insert)
				slots, shift, mask = h.slots, h.shift, h.mask
				break
			}
			if uint32(s>>32) == tag {
				g := uint32(s) - 1
				if string(c.arena[c.offs[g]:c.offs[g+1]]) == string(b) {
					groups[i] = g
					break
				}
			}
			p = (p + 1) & mask
		}
	}
}

// insertBytes adds the absent key b (hash hv) as a new group and returns its
// id; NoGroup when !insert.
func (h *HashTable) insertBytes(b []byte, hv uint64, insert bool) uint32 {
	if !insert {
		return NoGroup
	}
	if h.n >= h.limit {
		h.grow()
	}
	p := hv >> h.shift
	for h.slots[p] != 0 {
		p = (p + 1) & h.mask
	}
	g := uint32(h.n)
	h.slots[p] = hv<<32 | uint64(g+1)
	h.n++
	h.hashes = append(h.hashes, hv)
	c := &h.cols[0]
	c.arena = append(c.arena, b...)
	c.offs = append(c.offs, len(c.arena))
	c.nulls = append(c.nulls, false)
	return g
}
