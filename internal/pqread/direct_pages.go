package pqread

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// A required fixed-width column is decoded page by page here rather than
// by the column chunk reader when its pages are plain or dictionary
// encoded (the common writers' output). arrow-go decodes a dictionary
// lazily, growing it as larger indices show up (a fresh, zeroed slice and
// an append each time: 10 % of Nexmark q2's CPU from Parquet), and walks
// its per-batch level and decoder machinery; here the dictionary page is
// copied once per row group into a buffer reused across row groups, the
// indices are unpacked from the RLE/bit-packed hybrid and gathered
// straight into the record's buffer, and plain pages are copied. Other
// encodings (delta, byte-stream-split) go through the column chunk reader.

// pagedChunk reports whether row group rg's chunk of column leaf uses only
// encodings pageCol decodes.
func pagedChunk(pf *file.Reader, rg, leaf int) bool {
	md, err := pf.MetaData().RowGroup(rg).ColumnChunk(leaf)
	if err != nil {
		return false
	}
	for _, e := range md.Encodings() {
		switch e {
		case parquet.Encodings.Plain, parquet.Encodings.PlainDict, parquet.Encodings.RLEDict,
			parquet.Encodings.RLE, parquet.Encodings.BitPacked: // the last two: levels
		default:
			return false
		}
	}
	return true
}

// pageCol decodes one required column chunk page by page: fixed-width
// values (width bytes each) or, with width 0, byte arrays.
type pageCol struct {
	width int
	src   pageSource
	page  rawPage
	buf   []byte // decompressed pages of a mapped chunk (chunkPages)
	dict  []byte // the dictionary's values: width bytes each, or byte arrays with lengths
	// a byte-array dictionary: value i is dict[dictAt[i]:dictAt[i]+dictLen[i]]
	dictAt, dictLen []uint32
	dictGen         int // counts the dictionaries taken in (rowFilter.table)
	// the current data page
	left  int    // values not yet read
	plain []byte // a plain page's values not yet read
	idx   rleDec // a dictionary page's indices
	ids   []uint32
}

// reset starts the chunk read by src.
func (c *pageCol) reset(src pageSource, width int) {
	c.src, c.width, c.left, c.plain = src, width, 0, nil
	c.dict = c.dict[:0]
}

var errPagesEnd = errors.New("the column chunk's pages end before its rows")

// chunkEnd is nextPage's error for a reader: nil at the chunk's end (the
// reader returns what it read), the error otherwise.
func chunkEnd(err error) error {
	if err == errPagesEnd {
		return nil
	}
	return err
}

// read fills out (a multiple of width bytes) with the next values; it
// returns how many it read, fewer only at the chunk's end.
func (c *pageCol) read(out []byte) (int, error) {
	n := len(out) / c.width
	got := 0
	for got < n {
		if c.left == 0 {
			if err := c.nextPage(); err != nil {
				return got, chunkEnd(err)
			}
			continue
		}
		k := min(c.left, n-got)
		dst := out[got*c.width : (got+k)*c.width]
		if c.plain != nil {
			copy(dst, c.plain[:k*c.width])
			c.plain = c.plain[k*c.width:]
		} else if err := c.gather(dst, k); err != nil {
			return got, err
		}
		c.left -= k
		got += k
	}
	return got, nil
}

// nextPage moves to the next data page, taking in a dictionary page on
// the way.
func (c *pageCol) nextPage() error {
	p := &c.page
	for {
		ok, err := c.src.next(p)
		if err != nil {
			return err
		}
		if !ok {
			return errPagesEnd
		}
		switch {
		case p.dict:
			if e := p.encoding; e != parquet.Encodings.Plain && e != parquet.Encodings.PlainDict {
				return fmt.Errorf("dictionary page encoded %s", e)
			}
			if c.width == 0 {
				if err := c.binaryDict(p.data, p.numValues); err != nil {
					return err
				}
				continue
			}
			size := p.numValues * c.width
			if size < 0 || size > len(p.data) {
				return fmt.Errorf("dictionary page of %d values holds %d bytes", p.numValues, len(p.data))
			}
			c.dict = pageBytes(c.dict, p.data[:size])
			c.dictGen++
		case p.v2:
			if p.numNulls != 0 {
				return fmt.Errorf("a page of a required column has %d nulls", p.numNulls)
			}
			if p.levels > len(p.data) {
				return fmt.Errorf("page levels of %d bytes past its end", p.levels)
			}
			return c.startData(p.encoding, p.data[p.levels:], p.numValues)
		default:
			return c.startData(p.encoding, p.data, p.numValues)
		}
	}
}

// pageBytes returns a copy of b in buf, or in a larger buffer from pageMem
// (buf, if any, given back): a dictionary is copied once per row group,
// and a buffer of Go's would be a fresh megabyte of garbage per file.
func pageBytes(buf, b []byte) []byte {
	if cap(buf) < len(b) {
		mem := pageMem.Unzeroed()
		if buf != nil {
			mem.Free(buf[:cap(buf)])
		}
		buf = mem.Allocate(len(b))
	}
	buf = buf[:len(b)]
	copy(buf, b)
	return buf
}

// startData sets up the decoding of a data page of nvals values.
func (c *pageCol) startData(enc parquet.Encoding, data []byte, nvals int) error {
	c.left = nvals
	switch enc {
	case parquet.Encodings.Plain:
		if c.width == 0 { // byte arrays, each after its 4-byte length
			c.plain = data
			return nil
		}
		if len(data) < nvals*c.width {
			return fmt.Errorf("plain page of %d values holds %d bytes", nvals, len(data))
		}
		c.plain = data[:nvals*c.width]
		return nil
	case parquet.Encodings.RLEDict, parquet.Encodings.PlainDict:
		if len(data) < 1 || data[0] > 32 {
			return errors.New("dictionary indices without a valid bit width")
		}
		c.plain = nil
		c.idx = rleDec{data: data[1:], width: uint(data[0])}
		return nil
	}
	return fmt.Errorf("data page encoded %s", enc)
}

// gather decodes k indices and copies their dictionary values to dst.
func (c *pageCol) gather(dst []byte, k int) error {
	if cap(c.ids) < k {
		c.ids = make([]uint32, k)
	}
	ids := c.ids[:k]
	if err := c.idx.read(ids); err != nil {
		return err
	}
	switch c.width {
	case 8:
		return gatherAs[uint64](c.dict, dst, ids)
	case 4:
		return gatherAs[uint32](c.dict, dst, ids)
	}
	return fmt.Errorf("value width %d", c.width)
}

// gatherAs copies dictionary values (T-sized, packed in dict) to dst, one
// per index of ids.
func gatherAs[T uint32 | uint64](dict, dst []byte, ids []uint32) error {
	var zero T
	w := int(unsafe.Sizeof(zero))
	dn := uint32(len(dict) / w)
	d := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(dict))), dn)
	o := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(dst))), len(ids))
	for i, id := range ids {
		if id >= dn {
			return fmt.Errorf("dictionary index %d past the dictionary's %d values", id, dn)
		}
		o[i] = d[id]
	}
	return nil
}

// binaryDict takes in a plain dictionary page of n byte arrays.
func (c *pageCol) binaryDict(data []byte, n int) error {
	c.dict = pageBytes(c.dict, data)
	c.dictAt, c.dictLen = c.dictAt[:0], c.dictLen[:0]
	at := 0
	for i := 0; i < n; i++ {
		if at+4 > len(c.dict) {
			return fmt.Errorf("dictionary page ends at value %d of %d", i, n)
		}
		l := int(binary.LittleEndian.Uint32(c.dict[at:]))
		at += 4
		if l < 0 || l > len(c.dict)-at {
			return fmt.Errorf("dictionary value %d of %d bytes past the page's end", i, l)
		}
		c.dictAt = append(c.dictAt, uint32(at))
		c.dictLen = append(c.dictLen, uint32(l))
		at += l
	}
	return nil
}

// readBinary appends the next byte arrays (up to len(offs)) to data from
// byte pos, setting each one's start offset in offs; it returns the new
// end, how many it read (fewer only at the chunk's end).
func (c *pageCol) readBinary(data *memory.Buffer, offs []int32, pos int) (int, int, error) {
	n := len(offs)
	got := 0
	buf := data.Buf()
	// grow makes room for l more bytes
	grow := func(l int) error {
		if pos+l > math.MaxInt32 {
			return errors.New("over 2 GiB of values in one batch; read the file in smaller batches")
		}
		if pos+l > len(buf) {
			data.Reserve(max(pos+l, 2*len(buf)))
			buf = data.Buf()
		}
		return nil
	}
	for got < n {
		if c.left == 0 {
			if err := c.nextPage(); err != nil {
				return pos, got, chunkEnd(err)
			}
			continue
		}
		k := min(c.left, n-got)
		if c.plain != nil {
			p := c.plain
			for i := range k {
				if len(p) < 4 {
					return pos, got, errors.New("plain page ends before its values")
				}
				l := int(binary.LittleEndian.Uint32(p))
				if l < 0 || l > len(p)-4 {
					return pos, got, fmt.Errorf("value of %d bytes past the page's end", l)
				}
				if err := grow(l); err != nil {
					return pos, got, err
				}
				offs[got+i] = int32(pos)
				pos += copy(buf[pos:], p[4:4+l])
				p = p[4+l:]
			}
			c.plain = p
		} else {
			if cap(c.ids) < k {
				c.ids = make([]uint32, k)
			}
			ids := c.ids[:k]
			if err := c.idx.read(ids); err != nil {
				return pos, got, err
			}
			need := 0
			dn := uint32(len(c.dictAt))
			for _, id := range ids {
				if id >= dn {
					return pos, got, fmt.Errorf("dictionary index %d past the dictionary's %d values", id, dn)
				}
				need += int(c.dictLen[id])
			}
			if err := grow(need); err != nil {
				return pos, got, err
			}
			for i, id := range ids {
				offs[got+i] = int32(pos)
				at := c.dictAt[id]
				pos += copy(buf[pos:], c.dict[at:at+c.dictLen[id]])
			}
		}
		c.left -= k
		got += k
	}
	return pos, got, nil
}

// rleDec decodes Parquet's RLE/bit-packed hybrid encoding of unsigned
// integers of width bits (dictionary indices).
type rleDec struct {
	data  []byte
	width uint
	// the current run: rep values of repVal, or packed values of a
	// bit-packed run starting at bit pos of packed
	rep    int
	repVal uint32
	packed []byte
	pos    uint
	npack  int
}

var errRLEEnd = errors.New("dictionary indices end before the page's values")

// read fills out with the next values.
func (r *rleDec) read(out []uint32) error {
	for len(out) > 0 {
		switch {
		case r.rep > 0:
			k := min(r.rep, len(out))
			v := r.repVal
			for i := range out[:k] {
				out[i] = v
			}
			r.rep -= k
			out = out[k:]
		case r.npack > 0:
			k := min(r.npack, len(out))
			r.unpack(out[:k])
			r.npack -= k
			out = out[k:]
		default:
			if err := r.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextRun reads the next run's header.
func (r *rleDec) nextRun() error {
	h, n := binary.Uvarint(r.data)
	if n <= 0 {
		return errRLEEnd
	}
	r.data = r.data[n:]
	if h&1 == 0 { // a repeated run
		bytes := int(r.width+7) / 8
		if len(r.data) < bytes || h>>1 == 0 || h>>1 > 1<<31 {
			return errRLEEnd
		}
		var v uint32
		for i := 0; i < bytes; i++ {
			v |= uint32(r.data[i]) << (8 * i)
		}
		r.rep, r.repVal, r.data = int(h>>1), v, r.data[bytes:]
		return nil
	}
	groups := h >> 1 // of 8 values
	if groups == 0 || groups > 1<<28 {
		return errRLEEnd
	}
	size := int(groups) * int(r.width) // bytes: 8 values of width bits per group
	if len(r.data) < size {
		// the last run of a page may be cut short of its group's padding
		size = len(r.data)
	}
	r.packed, r.pos, r.npack = r.data[:size], 0, int(groups)*8
	if r.width == 0 {
		r.packed = nil
	} else if max := size * 8 / int(r.width); r.npack > max {
		r.npack = max
	}
	r.data = r.data[size:]
	return nil
}

// unpack decodes len(out) values of the current bit-packed run.
func (r *rleDec) unpack(out []uint32) {
	w := r.width
	if w == 0 {
		clear(out)
		return
	}
	if w%8 == 0 && r.pos%8 == 0 && w <= 32 && int(r.pos/8)+len(out)*int(w/8) <= len(r.packed) {
		r.unpackBytes(out)
		return
	}
	mask := uint64(1)<<w - 1
	p, pos := r.packed, r.pos
	// the values whose 8-byte load stays inside the run: no bounds tests
	m := r.fastValues(len(out))
	base := unsafe.Pointer(unsafe.SliceData(p))
	for i := range out[:m] {
		out[i] = uint32(*(*uint64)(unsafe.Add(base, pos>>3)) >> (pos & 7) & mask)
		pos += w
	}
	for i := m; i < len(out); i++ {
		byteAt := pos >> 3
		var word uint64
		if int(byteAt)+8 <= len(p) {
			word = binary.LittleEndian.Uint64(p[byteAt:])
		} else {
			for j, b := range p[byteAt:] {
				word |= uint64(b) << (8 * j)
			}
		}
		out[i] = uint32((word >> (pos & 7)) & mask)
		pos += w
	}
	r.pos = pos
}

// fastValues returns how many of the next n values of the current
// bit-packed run (of up to 32 bits each) can each be read with one 8-byte
// load inside r.packed.
func (r *rleDec) fastValues(n int) int {
	end := 8 * (len(r.packed) - 7) // a load may start at any bit below end
	if r.width == 0 || end <= 0 || int(r.pos) >= end {
		return 0
	}
	return min(n, (end-1-int(r.pos))/int(r.width)+1)
}

// unpackBytes is unpack for a width of whole bytes (8, 16, 24 or 32 bits:
// a dictionary of up to 256, 65536… values) starting on a byte: plain
// little-endian loads, no shifts. The run holds every value of out.
func (r *rleDec) unpackBytes(out []uint32) {
	b := r.packed[r.pos/8:]
	switch r.width {
	case 8:
		b = b[:len(out)]
		for i := range out {
			out[i] = uint32(b[i])
		}
	case 16:
		b = b[:2*len(out)]
		for i := range out {
			out[i] = uint32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	case 24:
		b = b[:3*len(out)]
		for i := range out {
			out[i] = uint32(b[3*i]) | uint32(b[3*i+1])<<8 | uint32(b[3*i+2])<<16
		}
	default:
		b = b[:4*len(out)]
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
	}
	r.pos += r.width * uint(len(out))
}
