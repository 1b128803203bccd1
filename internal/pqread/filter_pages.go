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
				if err == errPagesEnd {
					return got, nil
				}
				return got, err
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
				if err == errPagesEnd {
					return got, sel, nil
				}
				return got, sel, err
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
		} else if len(rows) == 0 {
			if err := c.idx.skip(k); err != nil {
				return got, sel, err
			}
		} else {
			if cap(c.ids) < k {
				c.ids = make([]uint32, k)
			}
			ids := c.ids[:k]
			if err := c.idx.read(ids); err != nil {
				return got, sel, err
			}
			dn := uint32(len(c.dict) / w)
			for _, r := range rows {
				i := int(r - lo)
				if i < 0 {
					return got, sel, fmt.Errorf("selected row %d out of order", r)
				}
				id := ids[i]
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

// skip passes over the next n values without decoding them.
func (r *rleDec) skip(n int) error {
	for n > 0 {
		switch {
		case r.rep > 0:
			k := min(r.rep, n)
			r.rep -= k
			n -= k
		case r.npack > 0:
			k := min(r.npack, n)
			r.pos += r.width * uint(k)
			r.npack -= k
			n -= k
		default:
			if err := r.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

var errPastDict = errors.New("a dictionary index past the dictionary's values")

// filter decodes the next k indices, appending to sel the row numbers at+i
// of those whose rows tbl keeps (idKeep) and to ids the indices. tbl
// (rowFilter.table) has an entry for every index of up to 16 bits; an
// index past the dictionary is an error. 8- and 16-bit indices are looked
// up as they are loaded, others unpacked first.
func (r *rleDec) filter(k int, tbl []byte, at int32, sel []int32, ids []uint32) ([]int32, []uint32, error) {
	for k > 0 {
		switch {
		case r.rep > 0:
			n := min(r.rep, k)
			v := r.repVal
			if int(v) >= len(tbl) || tbl[v] == idPast {
				return sel, ids, errPastDict
			}
			if tbl[v] == idKeep {
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
			if sel, ids, err = r.filterPacked(n, tbl, at, sel, ids); err != nil {
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
func (r *rleDec) filterPacked(n int, tbl []byte, at int32, sel []int32, ids []uint32) ([]int32, []uint32, error) {
	from := int(r.pos / 8)
	if r.pos%8 == 0 && (r.width == 8 || r.width == 16) && from+n*int(r.width/8) <= len(r.packed) {
		t := (*[1 << 16]byte)(tbl)
		if r.width == 16 {
			b := r.packed[from : from+2*n]
			for i := range n {
				id := binary.LittleEndian.Uint16(b[2*i:])
				if e := t[id]; e != idDrop {
					if e == idPast {
						return sel, ids, errPastDict
					}
					sel = append(sel, at+int32(i))
					ids = append(ids, uint32(id))
				}
			}
		} else {
			b := r.packed[from : from+n]
			for i, id := range b {
				if e := t[id]; e != idDrop {
					if e == idPast {
						return sel, ids, errPastDict
					}
					sel = append(sel, at+int32(i))
					ids = append(ids, uint32(id))
				}
			}
		}
		r.pos += r.width * uint(n)
		return sel, ids, nil
	}
	var buf [256]uint32
	for done := 0; done < n; {
		m := min(len(buf), n-done)
		r.unpack(buf[:m])
		for i, id := range buf[:m] {
			if int(id) >= len(tbl) || tbl[id] == idPast {
				return sel, ids, errPastDict
			}
			if tbl[id] == idKeep {
				sel = append(sel, at+int32(done+i))
				ids = append(ids, id)
			}
		}
		done += m
	}
	return sel, ids, nil
}
