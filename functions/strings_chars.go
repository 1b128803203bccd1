package functions

import (
	"strings"
	"unicode/utf8"
)

// Spark counts and indexes strings in characters (code points, as
// UTF8String does), not bytes; these helpers do so without allocating,
// with a fast path for ASCII.

// numChars is the number of code points of s.
func numChars(s string) int {
	if isASCII(s) {
		return len(s)
	}
	return utf8.RuneCountInString(s)
}

// byteOffset is the byte offset of code point k (k >= 0) of s, or len(s)
// when s has k code points or fewer.
func byteOffset(s string, k int) int {
	if k >= len(s) {
		return len(s)
	}
	if isASCII(s[:k]) {
		return k
	}
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return len(s)
}

// charSlice is code points [start, end) of s (0 <= start; end may run
// past the end; end <= start is "").
func charSlice(s string, start, end int) string {
	if end <= start {
		return ""
	}
	b := byteOffset(s, start)
	if b == len(s) {
		return ""
	}
	return s[b : b+byteOffset(s[b:], end-start)]
}

// substringSQL is Spark's UTF8String.substringSQL: 1-based pos, negative
// pos counts from the end, pos 0 is the first character; the arithmetic is
// Java's int arithmetic, clamped as Spark clamps it.
func substringSQL(s string, pos, length int32) string {
	var start int64
	switch {
	case pos > 0:
		start = int64(pos) - 1
	case pos < 0:
		start = int64(numChars(s)) + int64(pos)
	}
	end := start + int64(length)
	if end > 1<<31-1 {
		end = 1<<31 - 1
	}
	start = max(start, 0)
	if start >= end {
		return ""
	}
	return charSlice(s, int(start), int(end))
}

// indexOf is Spark's UTF8String.indexOf(v, start): the code point index
// of the first v in s at or after code point start, or -1; "" is at 0.
func indexOf(s, v string, start int) int {
	if v == "" {
		return 0
	}
	off := byteOffset(s, start)
	if off == len(s) {
		return -1
	}
	j := strings.Index(s[off:], v)
	if j < 0 {
		return -1
	}
	return start + numChars(s[off:off+j])
}

// appendPad is Spark's lpad/rpad: s padded with pad to n code points, or
// cut to n.
func appendPad(dst []byte, s string, n int32, pad string, left bool) []byte {
	chars := numChars(s)
	spaces := int(n) - chars
	if spaces <= 0 || pad == "" {
		return append(dst, charSlice(s, 0, int(n))...)
	}
	if !left {
		dst = append(dst, s...)
	}
	padChars := numChars(pad)
	for range spaces / padChars {
		dst = append(dst, pad...)
	}
	dst = append(dst, charSlice(pad, 0, spaces%padChars)...)
	if left {
		dst = append(dst, s...)
	}
	return dst
}

// trimSet trims the code points of set from s: from the left, the right,
// or both.
func trimSet(s, set string, left, right bool) string {
	if left {
		for s != "" {
			r, n := utf8.DecodeRuneInString(s)
			if !strings.ContainsRune(set, r) {
				break
			}
			s = s[n:]
		}
	}
	if right {
		for s != "" {
			r, n := utf8.DecodeLastRuneInString(s)
			if !strings.ContainsRune(set, r) {
				break
			}
			s = s[:len(s)-n]
		}
	}
	return s
}
