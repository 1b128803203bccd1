package functions

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encode(s, charset) and decode(bin, charset): Spark's conversions between
// strings and bytes in the charsets Spark 4 allows (utf-8, us-ascii,
// iso-8859-1, utf-16, utf-16be, utf-16le, utf-32). A character the charset
// cannot hold, or bytes that are not valid in it, fail the query, as
// Spark's MALFORMED_CHARACTER_CODING. decode(value, 'UTF-8') reads a
// binary Kafka value as a string.
func init() {
	register(&Func{Name: "encode", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindCharset(args, true) }})
	register(&Func{Name: "decode", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindCharset(args, false) }})
}

var charsets = []string{"iso-8859-1", "us-ascii", "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-8"}

func checkCharset(name, cs string) (string, error) {
	l := strings.ToLower(cs)
	for _, c := range charsets {
		if l == c {
			return l, nil
		}
	}
	return "", fmt.Errorf("%s: the charset %s is not one of %s", name, strconv.Quote(cs), strings.Join(charsets, ", "))
}

func bindCharset(args []Arg, encode bool) (Bound, error) {
	name := "decode"
	if encode {
		name = "encode"
		if !isStringLike(args[0].Type) {
			return Bound{}, typeErr(0, "a string", args[0].Type)
		}
	} else if err := checkBytes(args, 0); err != nil {
		return Bound{}, err
	}
	if err := checkArgs(args[1:], "s"); err != nil {
		return Bound{}, err
	}
	if cs, ok := args[1].Value.(string); ok && args[1].Const {
		if _, err := checkCharset(name, cs); err != nil {
			return Bound{}, err
		}
	}
	out := arrow.DataType(arrow.BinaryTypes.String)
	if encode {
		out = arrow.BinaryTypes.Binary
	}
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		in, err := bytesColumn(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer in.s.release()
		csCol, err := strColumn(mem, args, cols, 1, n)
		if err != nil {
			return nil, err
		}
		defer csCol.release()
		var bld array.Builder
		var b *array.BinaryBuilder
		if encode {
			b = array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
			bld = b
		} else {
			sb := array.NewStringBuilder(mem) // its NewArray is an *array.String
			b, bld = sb.BinaryBuilder, sb
		}
		defer bld.Release()
		b.Reserve(n)
		var buf []byte
		for i := range n {
			if in.isNull(i) || csCol.isNull(i) {
				b.AppendNull()
				continue
			}
			cs, err := checkCharset(name, csCol.value(i))
			if err != nil {
				return nil, err
			}
			var ok bool
			if encode {
				buf, ok = encodeCharset(buf[:0], in.value(i), cs)
			} else {
				buf, ok = decodeCharset(buf[:0], in.value(i), cs)
			}
			if !ok {
				return nil, fmt.Errorf("%s: a value is not valid in %s (row %d); Spark fails the same way (MALFORMED_CHARACTER_CODING)", name, strings.ToUpper(cs), i)
			}
			b.Append(buf)
		}
		return bld.NewArray(), nil
	}}, nil
}

// encodeCharset appends the UTF-8 text s in charset cs; false when a
// character does not fit it.
func encodeCharset(dst, s []byte, cs string) ([]byte, bool) {
	switch cs {
	case "utf-8":
		return append(dst, s...), utf8.Valid(s)
	case "us-ascii", "iso-8859-1":
		limit := rune(0x7f)
		if cs == "iso-8859-1" {
			limit = 0xff
		}
		for _, r := range string(s) {
			if r > limit {
				return dst, false
			}
			dst = append(dst, byte(r))
		}
		return dst, true
	case "utf-32":
		for _, r := range string(s) {
			dst = binary.BigEndian.AppendUint32(dst, uint32(r))
		}
		return dst, true
	}
	order := binary.AppendByteOrder(binary.BigEndian)
	switch cs {
	case "utf-16":
		if len(s) > 0 {
			dst = append(dst, 0xfe, 0xff) // Java writes a big-endian BOM
		}
	case "utf-16le":
		order = binary.LittleEndian
	}
	for _, r := range string(s) {
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			dst = order.AppendUint16(order.AppendUint16(dst, uint16(r1)), uint16(r2))
		} else {
			dst = order.AppendUint16(dst, uint16(r))
		}
	}
	return dst, true
}

// decodeCharset appends the text of the bytes b in charset cs as UTF-8;
// false when b is not valid in cs.
func decodeCharset(dst, b []byte, cs string) ([]byte, bool) {
	switch cs {
	case "utf-8":
		return append(dst, b...), utf8.Valid(b)
	case "us-ascii":
		for _, c := range b {
			if c > 0x7f {
				return dst, false
			}
		}
		return append(dst, b...), true
	case "iso-8859-1":
		for _, c := range b {
			dst = utf8.AppendRune(dst, rune(c))
		}
		return dst, true
	case "utf-32":
		if len(b)%4 != 0 {
			return dst, false
		}
		order := binary.ByteOrder(binary.BigEndian)
		switch {
		case len(b) >= 4 && binary.BigEndian.Uint32(b) == 0xfeff:
			b = b[4:]
		case len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0xfeff:
			b, order = b[4:], binary.LittleEndian
		}
		for k := 0; k < len(b); k += 4 {
			r := rune(order.Uint32(b[k:]))
			if !utf8.ValidRune(r) {
				return dst, false
			}
			dst = utf8.AppendRune(dst, r)
		}
		return dst, true
	}
	if len(b)%2 != 0 {
		return dst, false
	}
	order := binary.ByteOrder(binary.BigEndian)
	switch {
	case cs == "utf-16le":
		order = binary.LittleEndian
	case cs == "utf-16" && len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		b = b[2:]
	case cs == "utf-16" && len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe:
		b, order = b[2:], binary.LittleEndian
	}
	for k := 0; k < len(b); k += 2 {
		r := rune(order.Uint16(b[k:]))
		if utf16.IsSurrogate(r) {
			if r >= 0xdc00 || k+3 >= len(b) {
				return dst, false
			}
			r2 := rune(order.Uint16(b[k+2:]))
			if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
				return dst, false
			}
			k += 2
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, true
}
