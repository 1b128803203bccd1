package pqread

import (
	"errors"
	"fmt"
)

// A page header is Thrift's compact encoding of parquet.thrift's
// PageHeader. arrow-go's generated Thrift types are internal to it, so the
// pages of a mapped file (chunkPages) have their headers read here: the
// fields pageCol needs, every other field skipped by its type.

// Page types (parquet.thrift's PageType).
const (
	pageData   = 0
	pageIndex  = 1
	pageDict   = 2
	pageDataV2 = 3
)

// pageHeader holds the fields of a PageHeader and of its data, dictionary
// or V2 data page header that pageCol reads.
type pageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	numValues    int32
	encoding     int32
	numNulls     int32 // V2
	numRows      int32 // V2
	defLen       int32 // V2: the definition levels' bytes
	repLen       int32 // V2: the repetition levels' bytes
	isCompressed bool  // V2: whether the values are compressed (default true)
	sub          bool  // whether the page type's own header was present
}

var errPageHeader = errors.New("corrupt page header")

// compact reads Thrift's compact protocol from b; the first error sticks
// and reads after it return zeros.
type compact struct {
	b   []byte
	i   int
	err error
}

func (c *compact) fail() {
	if c.err == nil {
		c.err = errPageHeader
	}
	c.i = len(c.b)
}

func (c *compact) byte() byte {
	if c.i >= len(c.b) {
		c.fail()
		return 0
	}
	v := c.b[c.i]
	c.i++
	return v
}

func (c *compact) uvarint() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b := c.byte()
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	c.fail()
	return 0
}

// int reads a zig-zag varint (i16, i32, i64).
func (c *compact) int() int64 {
	u := c.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

// i32 reads an i32 field's value, failing for one out of range.
func (c *compact) i32() int32 {
	v := c.int()
	if v != int64(int32(v)) {
		c.fail()
	}
	return int32(v)
}

// Compact protocol types of a field.
const (
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// field reads a field header after the field last, returning its type and
// id; stop is the struct's end.
func (c *compact) field(last int16) (typ byte, id int16, stop bool) {
	h := c.byte()
	if h == 0 || c.err != nil {
		return 0, 0, true
	}
	typ = h & 0x0f
	if d := int16(h >> 4); d != 0 {
		id = last + d
	} else {
		id = int16(c.int())
	}
	return typ, id, false
}

// skip passes over a value of type typ (inField: a field's bool, which has
// no bytes of its own; a list's elements are one byte each).
func (c *compact) skip(typ byte, inField bool, depth int) {
	if depth > 32 {
		c.fail()
		return
	}
	switch typ {
	case ctTrue, ctFalse:
		if !inField {
			c.byte()
		}
	case ctByte:
		c.byte()
	case ctI16, ctI32, ctI64:
		c.uvarint()
	case ctDouble:
		c.bytes(8)
	case ctBinary:
		c.bytes(c.uvarint())
	case ctList, ctSet:
		h := c.byte()
		n := uint64(h >> 4)
		if n == 15 {
			n = c.uvarint()
		}
		for ; n > 0 && c.err == nil; n-- {
			c.skip(h&0x0f, false, depth+1)
		}
	case ctMap:
		n := c.uvarint()
		if n == 0 {
			return
		}
		kv := c.byte()
		for ; n > 0 && c.err == nil; n-- {
			c.skip(kv>>4, false, depth+1)
			c.skip(kv&0x0f, false, depth+1)
		}
	case ctStruct:
		var last int16
		for c.err == nil {
			t, id, stop := c.field(last)
			if stop {
				return
			}
			c.skip(t, true, depth+1)
			last = id
		}
	default:
		c.fail()
	}
}

// bytes passes over n bytes.
func (c *compact) bytes(n uint64) {
	if n > uint64(len(c.b)-c.i) {
		c.fail()
		return
	}
	c.i += int(n)
}

// parsePageHeader reads the page header at the start of b, returning it
// and its length in bytes.
func parsePageHeader(b []byte) (pageHeader, int, error) {
	c := compact{b: b}
	h := pageHeader{isCompressed: true}
	var seen uint8 // the required fields: type, sizes
	var last int16
	for {
		t, id, stop := c.field(last)
		if stop {
			break
		}
		last = id
		switch {
		case id == 1 && t == ctI32:
			h.typ, seen = c.i32(), seen|1
		case id == 2 && t == ctI32:
			h.uncompressed, seen = c.i32(), seen|2
		case id == 3 && t == ctI32:
			h.compressed, seen = c.i32(), seen|4
		case (id == 5 || id == 7 || id == 8) && t == ctStruct:
			c.subHeader(&h, id)
		default:
			c.skip(t, true, 0)
		}
	}
	if c.err != nil {
		return h, 0, c.err
	}
	if seen != 7 {
		return h, 0, fmt.Errorf("%w: no page type or size", errPageHeader)
	}
	return h, c.i, nil
}

// subHeader reads the page type's own header (id 5: data page, 7:
// dictionary page, 8: V2 data page).
func (c *compact) subHeader(h *pageHeader, kind int16) {
	h.sub = true
	var last int16
	for c.err == nil {
		t, id, stop := c.field(last)
		if stop {
			return
		}
		last = id
		switch {
		case id == 1 && t == ctI32:
			h.numValues = c.i32()
		case kind == 8 && id == 2 && t == ctI32:
			h.numNulls = c.i32()
		case kind == 8 && id == 3 && t == ctI32:
			h.numRows = c.i32()
		case (kind != 8 && id == 2 || kind == 8 && id == 4) && t == ctI32:
			h.encoding = c.i32()
		case kind == 8 && id == 5 && t == ctI32:
			h.defLen = c.i32()
		case kind == 8 && id == 6 && t == ctI32:
			h.repLen = c.i32()
		case kind == 8 && id == 7 && (t == ctTrue || t == ctFalse):
			h.isCompressed = t == ctTrue
		default:
			c.skip(t, true, 0)
		}
	}
}
