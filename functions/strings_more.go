package functions

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// More of Spark's string functions that users reach for: chr, elt,
// levenshtein, find_in_set, base64/unbase64.
func init() {
	// chr(n): the character of code n mod 256 ("" for n < 0).
	register(toString("chr", 1, 1, "i", func(dst []byte, a argCols, i int) []byte {
		n := a.n[0].value(i)
		if n < 0 {
			return dst
		}
		return utf8.AppendRune(dst, rune(n&0xff))
	}), "char")
	// elt(n, s1, s2, …): the n-th string, null when n is out of range.
	register(&Func{Name: "elt", MinArgs: 2, MaxArgs: -1, Bind: bindElt})
	register(&Func{Name: "levenshtein", MinArgs: 2, MaxArgs: 3, Bind: bindLevenshtein})
	// find_in_set(s, list): the 1-based place of s among the
	// comma-separated strings of list; 0 when absent or s holds a comma.
	register(toInt("find_in_set", 2, 2, "s", func(a argCols, i int) int32 {
		s, list := a.s[0].value(i), a.s[1].value(i)
		if strings.Contains(s, ",") {
			return 0
		}
		k := int32(1)
		for {
			part, rest, more := strings.Cut(list, ",")
			if part == s {
				return k
			}
			if !more {
				return 0
			}
			list, k = rest, k+1
		}
	}))
	register(&Func{Name: "base64", MinArgs: 1, MaxArgs: 1, Bind: bindBase64})
	register(&Func{Name: "unbase64", MinArgs: 1, MaxArgs: 1, Bind: bindUnbase64})
}

func bindElt(args []Arg) (Bound, error) {
	if err := checkArgs(args, "is"); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "is")
		if err != nil {
			return nil, err
		}
		defer a.release()
		o := newStringsOut(mem, n, 0)
		defer o.release()
		for i := range n {
			if a.n[0].isNull(i) {
				o.null()
				continue
			}
			k := int(a.n[0].value(i))
			if k < 1 || k >= len(args) || a.s[k].isNull(i) {
				o.null()
				continue
			}
			o.str(a.s[k].value(i))
		}
		return o.finish(), nil
	}}, nil
}

// bindLevenshtein is levenshtein(a, b[, threshold]): the edit distance in
// characters; -1 when it is more than threshold.
func bindLevenshtein(args []Arg) (Bound, error) {
	return toIntWith("levenshtein", "ssi", args, func() func(a argCols, i int) (int32, bool) {
		var ra, rb []rune
		var row []int
		return func(a argCols, i int) (int32, bool) {
			ra = appendRunes(ra[:0], a.s[0].value(i))
			rb = appendRunes(rb[:0], a.s[1].value(i))
			row = row[:0]
			for j := 0; j <= len(rb); j++ {
				row = append(row, j)
			}
			for x := 1; x <= len(ra); x++ {
				prev := row[0]
				row[0] = x
				for y := 1; y <= len(rb); y++ {
					cur := row[y]
					cost := 1
					if ra[x-1] == rb[y-1] {
						cost = 0
					}
					row[y] = min(row[y]+1, row[y-1]+1, prev+cost)
					prev = cur
				}
			}
			d := int32(row[len(rb)])
			if len(a.n) > 2 && d > a.n[2].value(i) {
				return -1, true
			}
			return d, true
		}
	})
}

func appendRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, r)
	}
	return dst
}

// toIntWith binds a function of row-wise arguments to an INT with state
// per evaluation (newF), null where any argument is or where the function
// says (false).
func toIntWith(name, kinds string, args []Arg, newF func() func(a argCols, i int) (int32, bool)) (Bound, error) {
	if err := checkArgs(args, kinds); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, kinds)
		if err != nil {
			return nil, err
		}
		defer a.release()
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		f := newF()
		for i := range n {
			if a.null(i) {
				b.AppendNull()
				continue
			}
			if v, ok := f(a, i); ok {
				b.UnsafeAppend(v)
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray(), nil
	}}, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// bindBase64 is base64(bin): standard Base64 with padding, of a string's
// UTF-8 or binary bytes.
func bindBase64(args []Arg) (Bound, error) {
	if err := checkBytes(args, 0); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		b, err := bytesColumn(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer b.s.release()
		o := newStringsOut(mem, n, 0)
		defer o.release()
		for i := range n {
			if b.isNull(i) {
				o.null()
				continue
			}
			o.buf = base64.StdEncoding.AppendEncode(o.buf[:0], b.value(i))
			o.bytes(o.buf)
		}
		return o.finish(), nil
	}}, nil
}

// bindUnbase64 is unbase64(s): the bytes s encodes in Base64, decoded as
// Spark's (Java's MIME) decoder does: characters outside the alphabet are
// skipped, padding is optional; data after the padding, or a last unit of
// one character, fails the query, as in Spark.
func bindUnbase64(args []Arg) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.BinaryTypes.Binary, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		out := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer out.Release()
		out.Reserve(n)
		var buf, clean []byte
		for i := range n {
			if a.null(i) {
				out.AppendNull()
				continue
			}
			var ok bool
			if clean, ok = base64Alphabet(clean[:0], a.s[0].value(i)); !ok || len(clean)%4 == 1 {
				return nil, fmt.Errorf("unbase64: %s is not Base64 (data after the padding, or a last unit of one character)", strconv.Quote(a.s[0].value(i)))
			}
			if buf, err = base64.RawStdEncoding.AppendDecode(buf[:0], clean); err != nil {
				return nil, fmt.Errorf("unbase64: %s is not Base64: %w", strconv.Quote(a.s[0].value(i)), err)
			}
			out.Append(buf)
		}
		return out.NewArray(), nil
	}}, nil
}

// base64Alphabet appends the characters of s that are in the standard
// Base64 alphabet; ok is false when one follows padding (=).
func base64Alphabet(dst []byte, s string) (out []byte, ok bool) {
	padded := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '=':
			padded = true
		case 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/':
			if padded {
				return dst, false
			}
			dst = append(dst, c)
		}
	}
	return dst, true
}
