package columnar

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Key encoding, per column value:
//
//	null     0x00
//	non-null 0x01 followed by the value:
//	  bool          one byte, 0 or 1
//	  int32, int64  big endian with the sign bit flipped (8 bytes; int32 widened)
//	  timestamp     as int64
//	  date32        as int64 (days)
//	  float64       IEEE bits; sign bit flipped for positives, all bits flipped
//	                for negatives, big endian (NaN sorts last)
//	  string,binary bytes with 0x00 escaped as 0x00 0xFF, terminated by 0x00 0x01
//
// so that comparing two encodings bytewise compares the tuples column by
// column with nulls first.

const (
	keyNull    = 0x00
	keyNotNull = 0x01
)

// EncodeKeys appends the encoding of row rows[i] of cols to dst[i] for each
// i and returns dst (grown to len(rows)). rows nil means every row.
func EncodeKeys(dst [][]byte, cols []arrow.Array, rows []int32) ([][]byte, error) {
	n := 0
	if len(cols) > 0 {
		n = cols[0].Len()
	}
	if rows != nil {
		n = len(rows)
	}
	fresh := len(dst) == 0
	old := len(dst)
	if cap(dst) < n {
		grown := make([][]byte, n)
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:n]
	if old < n {
		clear(dst[old:]) // keys beyond the given ones start empty
	}
	if fresh {
		presize(dst, cols, rows)
	}
	for _, col := range cols {
		if err := encodeColumn(dst, col, rows); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// presize points every dst[i] at its own exactly sized region of one
// shared buffer, so that encoding n keys costs one allocation, not n.
func presize(dst [][]byte, cols []arrow.Array, rows []int32) {
	size := make([]int, len(dst))
	total := 0
	for _, col := range cols {
		switch c := col.(type) {
		case *array.String:
			for i := range size {
				r := rowAt(rows, i)
				if c.IsNull(r) {
					size[i]++
					continue
				}
				v := c.Value(r)
				size[i] += 3 + len(v) + strings.Count(v, "\x00")
			}
		case *array.Binary:
			for i := range size {
				r := rowAt(rows, i)
				if c.IsNull(r) {
					size[i]++
					continue
				}
				v := c.Value(r)
				size[i] += 3 + len(v) + bytes.Count(v, []byte{0})
			}
		case *array.Boolean:
			for i := range size {
				size[i] += 2
			}
		default:
			for i := range size {
				size[i] += 9
			}
		}
	}
	for _, s := range size {
		total += s
	}
	arena := make([]byte, total)
	off := 0
	for i, s := range size {
		dst[i] = arena[off : off : off+s]
		off += s
	}
}

func rowAt(rows []int32, i int) int {
	if rows == nil {
		return i
	}
	return int(rows[i])
}

func encodeColumn(dst [][]byte, col arrow.Array, rows []int32) error {
	switch c := col.(type) {
	case *array.Int64:
		v := c.Int64Values()
		if c.NullN() == 0 {
			for i := range dst {
				dst[i] = appendInt64(append(dst[i], keyNotNull), v[rowAt(rows, i)])
			}
			return nil
		}
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendInt64(append(dst[i], keyNotNull), v[r])
		}
	case *array.Timestamp:
		v := c.TimestampValues()
		if c.NullN() == 0 {
			for i := range dst {
				dst[i] = appendInt64(append(dst[i], keyNotNull), int64(v[rowAt(rows, i)]))
			}
			return nil
		}
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendInt64(append(dst[i], keyNotNull), int64(v[r]))
		}
	case *array.Date32:
		v := c.Date32Values()
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendInt64(append(dst[i], keyNotNull), int64(v[r]))
		}
	case *array.Int32:
		v := c.Int32Values()
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendInt64(append(dst[i], keyNotNull), int64(v[r]))
		}
	case *array.Float64:
		v := c.Float64Values()
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendFloat64(append(dst[i], keyNotNull), v[r])
		}
	case *array.Boolean:
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			b := byte(0)
			if c.Value(r) {
				b = 1
			}
			dst[i] = append(dst[i], keyNotNull, b)
		}
	case *array.String:
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendBytes(append(dst[i], keyNotNull), []byte(c.Value(r)))
		}
	case *array.Binary:
		for i := range dst {
			r := rowAt(rows, i)
			if c.IsNull(r) {
				dst[i] = append(dst[i], keyNull)
				continue
			}
			dst[i] = appendBytes(append(dst[i], keyNotNull), c.Value(r))
		}
	default:
		return fmt.Errorf("columnar: cannot encode key column of type %s", TypeName(col.DataType()))
	}
	return nil
}

func appendInt64(b []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(v)^(1<<63))
}

func appendFloat64(b []byte, f float64) []byte {
	bits := math.Float64bits(f)
	if f == 0 {
		bits = 0 // -0 and +0 are one key
	}
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(b, bits)
}

func appendBytes(b, v []byte) []byte {
	for _, c := range v {
		if c == 0 {
			b = append(b, 0x00, 0xFF)
			continue
		}
		b = append(b, c)
	}
	return append(b, 0x00, 0x01)
}

// DecodeInt64 decodes a non-null int64 (or timestamp) encoded at the start
// of b and returns it with the rest of b.
func DecodeInt64(b []byte) (int64, []byte, error) {
	if len(b) < 9 || b[0] != keyNotNull {
		return 0, b, fmt.Errorf("columnar: bad int64 key encoding")
	}
	return int64(binary.BigEndian.Uint64(b[1:9]) ^ (1 << 63)), b[9:], nil
}

// AppendInt64Key appends the encoding of a non-null int64 to b.
func AppendInt64Key(b []byte, v int64) []byte {
	return appendInt64(append(b, keyNotNull), v)
}

// DecodeKeys is the inverse of EncodeKeys: it parses keys (each the
// encoding of one tuple of the given types) into one array per column. The
// caller owns the arrays.
func DecodeKeys(mem memory.Allocator, keys [][]byte, types []arrow.DataType) ([]arrow.Array, error) {
	builders := make([]array.Builder, len(types))
	for i, t := range types {
		builders[i] = array.NewBuilder(mem, t)
		builders[i].Reserve(len(keys))
	}
	defer func() {
		for _, b := range builders {
			b.Release()
		}
	}()
	for k, key := range keys {
		rest := key
		for i, b := range builders {
			var err error
			if rest, err = decodeValue(rest, b); err != nil {
				return nil, fmt.Errorf("columnar: key %d column %d: %w", k, i, err)
			}
		}
		if len(rest) != 0 {
			return nil, fmt.Errorf("columnar: key %d has %d trailing bytes", k, len(rest))
		}
	}
	out := make([]arrow.Array, len(builders))
	for i, b := range builders {
		out[i] = b.NewArray()
	}
	return out, nil
}

func decodeValue(b []byte, dst array.Builder) ([]byte, error) {
	if len(b) == 0 {
		return b, fmt.Errorf("truncated")
	}
	if b[0] == keyNull {
		dst.AppendNull()
		return b[1:], nil
	}
	if b[0] != keyNotNull {
		return b, fmt.Errorf("bad null marker %#x", b[0])
	}
	b = b[1:]
	fixed := func() (uint64, error) {
		if len(b) < 8 {
			return 0, fmt.Errorf("truncated")
		}
		v := binary.BigEndian.Uint64(b[:8])
		b = b[8:]
		return v, nil
	}
	switch d := dst.(type) {
	case *array.Int64Builder:
		v, err := fixed()
		d.Append(int64(v ^ (1 << 63)))
		return b, err
	case *array.Int32Builder:
		v, err := fixed()
		d.Append(int32(int64(v ^ (1 << 63))))
		return b, err
	case *array.Date32Builder:
		v, err := fixed()
		d.Append(arrow.Date32(int64(v ^ (1 << 63))))
		return b, err
	case *array.TimestampBuilder:
		v, err := fixed()
		d.Append(arrow.Timestamp(int64(v ^ (1 << 63))))
		return b, err
	case *array.Float64Builder:
		v, err := fixed()
		if v&(1<<63) != 0 {
			v &^= 1 << 63
		} else {
			v = ^v
		}
		d.Append(math.Float64frombits(v))
		return b, err
	case *array.BooleanBuilder:
		if len(b) < 1 {
			return b, fmt.Errorf("truncated")
		}
		d.Append(b[0] == 1)
		return b[1:], nil
	case *array.StringBuilder, *array.BinaryBuilder:
		var out []byte
		for i := 0; ; i++ {
			if i >= len(b) {
				return b, fmt.Errorf("unterminated string")
			}
			if b[i] != 0 {
				out = append(out, b[i])
				continue
			}
			if i+1 >= len(b) {
				return b, fmt.Errorf("unterminated string")
			}
			if b[i+1] == 0xFF {
				out = append(out, 0)
				i++
				continue
			}
			if b[i+1] != 0x01 {
				return b, fmt.Errorf("bad string escape")
			}
			b = b[i+2:]
			break
		}
		if sb, ok := d.(*array.StringBuilder); ok {
			if !utf8.Valid(out) {
				// Only corrupt state holds such a key: every encoded
				// string came from a UTF-8 string column.
				return b, fmt.Errorf("string is not UTF-8")
			}
			sb.Append(string(out))
		} else {
			d.(*array.BinaryBuilder).Append(out)
		}
		return b, nil
	}
	return b, fmt.Errorf("cannot decode a key of type %s", dst.Type())
}
