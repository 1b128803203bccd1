package pqread

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// readFiltered reads the next n values (fewer only at the chunk's end:
// how many is returned), appending to f.sel the row numbers base+i of
// those f keeps and to f.vals their values. A dictionary page's indices
// are looked up in f's table of the dictionary's entries; a plain page's
// values go through Keep.
func (c *pageCol) readFiltered(n int, base int32, f *rowFilter) (int, error) {
	w := c.width
	got := 0
	for got < n {
		if c.left == 0 {
			if err := c.nextPage(); err != nil {
				return got, chunkEnd(err)
			}
			continue
		}
		k := min(c.left, n-got)
		if c.plain != nil {
			f.sel = f.kept(c.plain[:k*w], base+int32(got), f.sel)
			c.plain = c.plain[k*w:]
		} else {
			var err error
			ids := c.ids[:0]
			if f.sel, ids, err = c.idx.filter(k, f.table(c), base+int32(got), f.sel, ids); err != nil {
				return got, err
			}
			for _, id := range ids { // below the dictionary's size (table)
				f.vals = append(f.vals, c.dict[int(id)*w:int(id+1)*w]...)
			}
			c.ids = ids
		}
		c.left -= k
		got += k
	}
	return got, nil
}

// readSelected reads the next n values (fewer only at the chunk's end:
// how many is returned) and copies to dst, packed, those at the row
// numbers of sel (ascending) below base+n, less base; it returns the rest
// of sel.
func (c *pageCol) readSelected(n int, base int32, sel []int32, dst []byte) (int, []int32, error) {
	w := c.width
	got, at := 0, 0
	for got < n {
		if c.left == 0 {
			if err := c.nextPage(); err != nil {
				return got, sel, chunkEnd(err)
			}
			continue
		}
		k := min(c.left, n-got)
		lo := base + int32(got)
		j := 0
		for j < len(sel) && sel[j] < lo+int32(k) {
			j++
		}
		rows := sel[:j]
		sel = sel[j:]
		if len(dst) < (at+len(rows))*w {
			return got, sel, fmt.Errorf("%d selected rows past the batch's %d", at+len(rows), len(dst)/w)
		}
		if c.plain != nil {
			for _, r := range rows {
				i := int(r - lo)
				if i < 0 {
					return got, sel, fmt.Errorf("selected row %d out of order", r)
				}
				copyValue(dst[at*w:], c.plain[i*w:], w)
				at++
			}
			c.plain = c.plain[k*w:]
		} else {
			if cap(c.ids) < len(rows) {
				c.ids = make([]uint32, len(rows))
			}
			ids := c.ids[:len(rows)]
			if err := c.idx.readAt(k, rows, lo, ids); err != nil {
				return got, sel, err
			}
			dn := uint32(len(c.dict) / w)
			for _, id := range ids {
				if id >= dn {
					return got, sel, fmt.Errorf("dictionary index %d past the dictionary's %d values", id, dn)
				}
				copyValue(dst[at*w:], c.dict[int(id)*w:], w)
				at++
			}
		}
		c.left -= k
		got += k
	}
	return got, sel, nil
}

// copyValue copies one value of w bytes (4 or 8: one move) from src to
// dst, both holding at least w bytes.
func copyValue(dst, src []byte, w int) {
	switch w {
	case 8:
		_, _ = dst[7], src[7]
		*(*uint64)(unsafe.Pointer(unsafe.SliceData(dst))) = *(*uint64)(unsafe.Pointer(unsafe.SliceData(src)))
	case 4:
		_, _ = dst[3], src[3]
		*(*uint32)(unsafe.Pointer(unsafe.SliceData(dst))) = *(*uint32)(unsafe.Pointer(unsafe.SliceData(src)))
	default:
		copy(dst[:w], src[:w])
	}
}

// readAt passes over the next n values, decoding into out only those at
// the row numbers rows (ascending, from lo to lo+n-1): a bit-packed run's
// value is read where it lies, without unpacking those before it.
func (r *rleDec) readAt(n int, rows []int32, lo int32, out []uint32) error {
	done, j := 0, 0
	for done < n {
		var k int
		switch {
		case r.rep > 0:
			k = min(r.rep, n-done)
			for ; j < len(rows) && int(rows[j]-lo) < done+k; j++ {
				out[j] = r.repVal
			}
			r.rep -= k
		case r.npack > 0:
			k = min(r.npack, n-done)
			for ; j < len(rows) && int(rows[j]-lo) < done+k; j++ {
				i := int(rows[j]-lo) - done
				if i < 0 {
					return fmt.Errorf("selected row %d out of order", rows[j])
				}
				out[j] = r.valueAt(r.pos + uint(i)*r.width)
			}
			r.pos += r.width * uint(k)
			r.npack -= k
		default:
			if err := r.nextRun(); err != nil {
				return err
			}
		}
		done += k
	}
	if j < len(rows) {
		return fmt.Errorf("selected row %d past the values read", rows[j])
	}
	return nil
}

// valueAt returns the value of the current bit-packed run at bit (bits
// past the run's end read as zeros).
func (r *rleDec) valueAt(bit uint) uint32 {
	b := int(bit >> 3)
	var word uint64
	if b+8 <= len(r.packed) {
		word = binary.LittleEndian.Uint64(r.packed[b:])
	} else if b < len(r.packed) {
		for i, v := range r.packed[b:] {
			word |= uint64(v) << (8 * i)
		}
	}
	return uint32(word >> (bit & 7) & (1<<r.width - 1))
}

var errPastDict = errors.New("a dictionary index past the dictionary's values")

// filter decodes the next k indices, appending to sel the row numbers at+i
// of those whose rows set keeps and to ids the indices; an index past the
// dictionary is an error. 8- and 16-bit indices are looked up as they are
// loaded, other widths as they are unpacked.
func (r *rleDec) filter(k int, set *idSet, at int32, sel []int32, ids []uint32) ([]int32, []uint32, error) {
	for k > 0 {
		switch {
		case r.rep > 0:
			n := min(r.rep, k)
			v := r.repVal
			if v >= set.n {
				return sel, ids, errPastDict
			}
			if set.marked(v) {
				for i := range n {
					sel = append(sel, at+int32(i))
					ids = append(ids, v)
				}
			}
			r.rep -= n
			k -= n
			at += int32(n)
		case r.npack > 0:
			n := min(r.npack, k)
			var err error
			if sel, ids, err = r.filterPacked(n, set, at, sel, ids); err != nil {
				return sel, ids, err
			}
			r.npack -= n
			k -= n
			at += int32(n)
		default:
			if err := r.nextRun(); err != nil {
				return sel, ids, err
			}
		}
	}
	return sel, ids, nil
}

// filterPacked is filter over n indices of the current bit-packed run.
// 8- and 16-bit indices and, up to 16 bits, those each of which one 8-byte
// load inside the run reads (rleDec.fastValues) are looked up 256 at a
// time as they are loaded (markedAt); the others unpacked first.
func (r *rleDec) filterPacked(n int, set *idSet, at int32, sel []int32, ids []uint32) ([]int32, []uint32, error) {
	bits := (*[1 << 16 / 64]uint64)(set.bits)
	w := r.width
	fast := 0
	switch {
	case r.pos%8 == 0 && (w == 8 || w == 16) && int(r.pos/8)+n*int(w/8) <= len(r.packed):
		fast = n
	case w <= 16:
		fast = r.fastValues(n)
	}
	var hits [256]int32
	for done := 0; done < fast; {
		m := min(len(hits), fast-done)
		k := markedAt(r.packed, r.pos, w, m, bits, &hits)
		for _, i := range hits[:k] {
			bit := r.pos + uint(i)*w
			var id uint32
			if b := int(bit >> 3); b+8 <= len(r.packed) {
				id = uint32(binary.LittleEndian.Uint64(r.packed[b:]) >> (bit & 7) & (1<<w - 1))
			} else { // a byte-width index near the run's end
				id = uint32(r.packed[b])
				if w == 16 {
					id |= uint32(r.packed[b+1]) << 8
				}
			}
			if id >= set.n {
				return sel, ids, errPastDict
			}
			sel = append(sel, at+int32(done)+i)
			ids = append(ids, id)
		}
		r.pos += w * uint(m)
		done += m
	}
	n -= fast
	at += int32(fast)
	var buf [64]uint32
	for done := 0; done < n; {
		m := min(len(buf), n-done)
		r.unpack(buf[:m])
		for i, id := range buf[:m] {
			if id >= set.n {
				return sel, ids, errPastDict
			}
			if set.marked(id) {
				sel = append(sel, at+int32(done+i))
				ids = append(ids, id)
			}
		}
		done += m
	}
	return sel, ids, nil
}

// markedAt writes to hits the positions i < m of the indices of width
// bits (at most 16) from bit pos of p whose bits are set, returning how
// many: an 8- or 16-bit index is loaded as such, starting on a byte;
// another one by an 8-byte load that must lie inside p. The loop has no
// branch: every position is stored, and the count moves on by the bit.
func markedAt(p []byte, pos, width uint, m int, bits *[1 << 16 / 64]uint64, hits *[256]int32) int {
	base := unsafe.Pointer(unsafe.SliceData(p))
	k := 0
	switch width {
	case 16:
		q := unsafe.Add(base, pos>>3)
		for i := range m {
			id := uint32(*(*uint16)(unsafe.Add(q, 2*i)))
			hits[k&255] = int32(i)
			k += int(bits[id>>6] >> (id & 63) & 1)
		}
	case 8:
		q := unsafe.Add(base, pos>>3)
		for i := range m {
			id := uint32(*(*uint8)(unsafe.Add(q, i)))
			hits[k&255] = int32(i)
			k += int(bits[id>>6] >> (id & 63) & 1)
		}
	default:
		mask := uint64(1)<<width - 1
		for i := range m {
			id := uint16(*(*uint64)(unsafe.Add(base, pos>>3)) >> (pos & 7) & mask) // width <= 16
			pos += width
			hits[k&255] = int32(i)
			k += int(bits[id>>6] >> (id & 63) & 1)
		}
	}
	return k
}
