package snappy

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

var (
	// ErrCorrupt reports input that is not a valid snappy block.
	ErrCorrupt = errors.New("snappy: corrupt input")
	// ErrTooLarge reports a block that claims more than 4 GiB.
	ErrTooLarge = errors.New("snappy: decoded block is too large")
)

// DecodedLen returns the decoded length of the block src, and the length
// of its header. A length no block of len(src) bytes can decode to (a
// 3-byte copy makes at most 64 bytes) is an error, not an allocation.
func DecodedLen(src []byte) (int, int, error) {
	v, n := binary.Uvarint(src)
	if n <= 0 || n > 5 { // a uint32 takes at most 5 bytes
		return 0, 0, ErrCorrupt
	}
	if v > 1<<32-1 {
		return 0, 0, ErrTooLarge
	}
	if v > 22*uint64(len(src)) {
		return 0, 0, ErrCorrupt
	}
	return int(v), n, nil
}

// load64 and store64 move eight unaligned bytes; the callers have checked
// the bounds.
func load64(b []byte, i int) uint64 {
	return *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))
}

func store64(b []byte, i int, v uint64) {
	*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)) = v
}

// Decode returns the decoded form of the snappy block src, in dst when it
// is large enough (cap(dst) at least the decoded length).
//
// A block this decoder rejects is decoded again by klauspost's s2, which
// also reads S2's extensions of the format, so that the two can only
// differ in speed: its answer (data or error) is returned.
//
// A block that claims more than dst holds and more than its length can
// decode to is corrupt: s2 would allocate (and zero) what it claims, up to
// 4 GiB, before finding that out (FuzzReadBytes in internal/pqread).
func Decode(dst, src []byte) ([]byte, error) {
	out, err := decode(dst, src)
	if err != nil {
		if v, n := binary.Uvarint(src); n > 0 && v > uint64(cap(dst)) && v > 22*uint64(len(src)) {
			return nil, ErrCorrupt
		}
		return s2.Decode(dst, src)
	}
	return out, nil
}

// decode is Decode without the second opinion.
func decode(dst, src []byte) ([]byte, error) {
	n, s, err := DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	d := 0
	for s < len(src) {
		if s+24 <= len(src) && d+64 <= len(dst) {
			// the fast path (24 bytes of src and 64 of dst are left): a
			// literal of up to 16 bytes, or a copy of up to 64 from at
			// least 8 bytes back, moved with unconditional 16- and 8-byte
			// loads and stores; anything else goes on to the careful path.
			// A literal is told by its tag's low bits alone; a copy's
			// length, offset bytes and offset high bits come from
			// copyTable, its offset from one masked load
			dp := unsafe.Pointer(unsafe.SliceData(dst))
			x := load64(src, s)
			t := byte(x)
			if t&3 == 0 {
				l := int(t>>2) + 1
				if l > 16 {
					goto careful
				}
				*(*[16]byte)(unsafe.Add(dp, d)) = *(*[16]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(src)), s+1))
				d += l
				s += 1 + l
				continue
			}
			// the offset's bytes after the tag (1, 2 or 4) come from the
			// tag by arithmetic, not from copyTable: the next tag's
			// position waits on them, and a shift is quicker than a load
			extra := int(0x4210 >> (uint(t&3) * 4) & 0xf)
			e := copyTable[t]
			l := int(e & 0xff)
			off := int(uint32(e)>>8) | int(uint32(x>>8)&uint32(e>>32))
			if off > d || off < 8 {
				goto careful
			}
			from := d - off
			if off >= 16 && l <= 16 { // no overlap: one 16-byte move
				*(*[16]byte)(unsafe.Add(dp, d)) = *(*[16]byte)(unsafe.Add(dp, from))
			} else {
				// in order, each load reads bytes at least 8 behind, so
				// already final; bytes past l are overwritten later
				store64(dst, d, load64(dst, from))
				store64(dst, d+8, load64(dst, from+8))
				if l > 16 {
					store64(dst, d+16, load64(dst, from+16))
					store64(dst, d+24, load64(dst, from+24))
					if l > 32 {
						store64(dst, d+32, load64(dst, from+32))
						store64(dst, d+40, load64(dst, from+40))
						store64(dst, d+48, load64(dst, from+48))
						store64(dst, d+56, load64(dst, from+56))
					}
				}
			}
			d += l
			s += 1 + extra
			continue
		}
	careful:
		t := src[s]
		var l, off int
		switch t & 3 {
		case 0: // a literal
			l = int(t >> 2)
			if l < 60 {
				s++
				l++
				if l <= 16 && s+16 <= len(src) && d+16 <= len(dst) {
					store64(dst, d, load64(src, s))
					store64(dst, d+8, load64(src, s+8))
					d += l
					s += l
					continue
				}
			} else {
				k := l - 59 // 1-4 length bytes
				if s+1+k > len(src) {
					return nil, ErrCorrupt
				}
				var x uint32
				for i := 0; i < k; i++ {
					x |= uint32(src[s+1+i]) << (8 * i)
				}
				l = int(x) + 1
				s += 1 + k
				if l <= 0 {
					return nil, ErrCorrupt
				}
			}
			if l > len(src)-s || l > len(dst)-d {
				return nil, ErrCorrupt
			}
			copy(dst[d:d+l], src[s:s+l])
			d += l
			s += l
			continue
		case 1:
			if s+2 > len(src) {
				return nil, ErrCorrupt
			}
			l = 4 + int(t>>2)&7
			off = int(t&0xe0)<<3 | int(src[s+1])
			s += 2
		case 2:
			if s+3 > len(src) {
				return nil, ErrCorrupt
			}
			l = 1 + int(t>>2)
			off = int(src[s+1]) | int(src[s+2])<<8
			s += 3
		default:
			if s+5 > len(src) {
				return nil, ErrCorrupt
			}
			l = 1 + int(t>>2)
			off = int(binary.LittleEndian.Uint32(src[s+1:]))
			s += 5
		}
		if off <= 0 || off > d || l > len(dst)-d {
			return nil, ErrCorrupt
		}
		from := d - off
		switch {
		case off >= 8 && l <= 16 && d+16 <= len(dst):
			// the second load follows the first store, so a source that
			// overlaps the destination (off < 16) reads what the copy wrote
			store64(dst, d, load64(dst, from))
			store64(dst, d+8, load64(dst, from+8))
		case off >= l:
			copy(dst[d:d+l], dst[from:from+l])
		default:
			for i := 0; i < l; i++ {
				dst[d+i] = dst[from+i]
			}
		}
		d += l
	}
	if d != len(dst) {
		return nil, ErrCorrupt
	}
	return dst, nil
}

// copyTable describes each copy tag byte: bits 0-7 the length, bits 8-31
// the offset's high bits (a 1-byte-offset copy's three, in place), bits
// 32-63 the mask of the offset bytes after the tag (1, 2 or 4 of them).
var copyTable = func() (t [256]uint64) {
	for i := range t {
		switch i & 3 {
		case 1:
			t[i] = (4 + uint64(i>>2)&7) | uint64(i&0xe0)<<3<<8 | 0xff<<32
		case 2:
			t[i] = (1 + uint64(i>>2)) | 0xffff<<32
		case 3:
			t[i] = (1 + uint64(i>>2)) | 0xffffffff<<32
		}
	}
	return
}()
