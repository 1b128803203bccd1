package functions

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Spark's string functions of characters: lengths, cuts, pads, searches.
// Positions and lengths are in characters (code points); a null argument
// gives null unless said otherwise.
func init() {
	register(toInt("length", 1, 1, "s", func(a argCols, i int) int32 { return int32(numChars(a.s[0].value(i))) }),
		"char_length", "character_length", "len")
	register(toInt("octet_length", 1, 1, "s", func(a argCols, i int) int32 { return int32(len(a.s[0].value(i))) }))
	register(toInt("bit_length", 1, 1, "s", func(a argCols, i int) int32 { return int32(len(a.s[0].value(i)) * 8) }))

	// substring(s, pos[, len]): Spark's substringSQL.
	register(toString("substring", 2, 3, "sii", func(dst []byte, a argCols, i int) []byte {
		length := int32(1<<31 - 1)
		if len(a.n) > 2 {
			length = a.n[2].value(i)
		}
		return append(dst, substringSQL(a.s[0].value(i), a.n[1].value(i), length)...)
	}), "substr")
	// left(s, n) is substring(s, 1, n); right(s, n) the last n characters
	// ("" for n <= 0).
	register(toString("left", 2, 2, "si", func(dst []byte, a argCols, i int) []byte {
		return append(dst, substringSQL(a.s[0].value(i), 1, a.n[1].value(i))...)
	}))
	register(toString("right", 2, 2, "si", func(dst []byte, a argCols, i int) []byte {
		n := a.n[1].value(i)
		if n <= 0 {
			return dst
		}
		return append(dst, substringSQL(a.s[0].value(i), -n, 1<<31-1)...)
	}))
	register(toString("substring_index", 3, 3, "ssi", func(dst []byte, a argCols, i int) []byte {
		return append(dst, substringIndex(a.s[0].value(i), a.s[1].value(i), a.n[2].value(i))...)
	}))

	register(toString("lpad", 2, 3, "sis", func(dst []byte, a argCols, i int) []byte {
		return appendPadChecked(dst, a, i, true)
	}))
	register(toString("rpad", 2, 3, "sis", func(dst []byte, a argCols, i int) []byte {
		return appendPadChecked(dst, a, i, false)
	}))

	// trim(s) trims spaces (U+0020 only); trim(chars, s) the characters
	// of chars, as Spark's function form (note the order); btrim(s[,
	// chars]) takes them the other way round.
	for _, t := range []struct {
		name        string
		left, right bool
	}{{"trim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		register(toString(t.name, 1, 2, "s", func(dst []byte, a argCols, i int) []byte {
			if len(a.s) == 1 {
				return append(dst, trimSet(a.s[0].value(i), " ", t.left, t.right)...)
			}
			return append(dst, trimSet(a.s[1].value(i), a.s[0].value(i), t.left, t.right)...)
		}))
	}
	register(toString("btrim", 1, 2, "s", func(dst []byte, a argCols, i int) []byte {
		set := " "
		if len(a.s) == 2 {
			set = a.s[1].value(i)
		}
		return append(dst, trimSet(a.s[0].value(i), set, true, true)...)
	}))

	register(toInt("instr", 2, 2, "s", func(a argCols, i int) int32 {
		return int32(indexOf(a.s[0].value(i), a.s[1].value(i), 0) + 1)
	}))
	register(locateFunc(), "position")

	register(toBool("startswith", 2, 2, "s", func(a argCols, i int) bool {
		return strings.HasPrefix(a.s[0].value(i), a.s[1].value(i))
	}))
	register(toBool("endswith", 2, 2, "s", func(a argCols, i int) bool {
		return strings.HasSuffix(a.s[0].value(i), a.s[1].value(i))
	}))
	register(toBool("contains", 2, 2, "s", func(a argCols, i int) bool {
		return strings.Contains(a.s[0].value(i), a.s[1].value(i))
	}))

	register(toString("reverse", 1, 1, "s", func(dst []byte, a argCols, i int) []byte {
		s := a.s[0].value(i)
		if isASCII(s) {
			for j := len(s) - 1; j >= 0; j-- {
				dst = append(dst, s[j])
			}
			return dst
		}
		for j := len(s); j > 0; {
			_, n := utf8.DecodeLastRuneInString(s[:j])
			dst = append(dst, s[j-n:j]...)
			j -= n
		}
		return dst
	}))
	register(toString("repeat", 2, 2, "si", func(dst []byte, a argCols, i int) []byte {
		s, k := a.s[0].value(i), a.n[1].value(i)
		if int64(k)*int64(len(s)) > maxResultBytes {
			return a.tooLarge("repeat", dst)
		}
		for range k {
			dst = append(dst, s...)
		}
		return dst
	}))
	register(toString("space", 1, 1, "i", func(dst []byte, a argCols, i int) []byte {
		k := a.n[0].value(i)
		if k > maxResultBytes {
			return a.tooLarge("space", dst)
		}
		for range k {
			dst = append(dst, ' ')
		}
		return dst
	}))
	// ascii is the code point of the first character, 0 for "".
	register(toInt("ascii", 1, 1, "s", func(a argCols, i int) int32 {
		s := a.s[0].value(i)
		if s == "" {
			return 0
		}
		r, _ := utf8.DecodeRuneInString(s)
		return r
	}))
	register(initcapFunc())
	register(translateFunc())
}

// appendPadChecked is lpad/rpad of row i, refusing a result of more than
// maxResultBytes (n characters of up to 4 bytes).
func appendPadChecked(dst []byte, a argCols, i int, left bool) []byte {
	n, pad := a.n[1].value(i), padOf(a, i)
	if int64(n)*4 > maxResultBytes && pad != "" {
		return a.tooLarge("lpad/rpad", dst)
	}
	return appendPad(dst, a.s[0].value(i), n, pad, left)
}

func padOf(a argCols, i int) string {
	if len(a.s) > 2 {
		return a.s[2].value(i)
	}
	return " "
}

// substringIndex is Spark's UTF8String.subStringIndex: s before the
// count-th delim (from the end for a negative count); the delimiters are
// found in bytes, overlapping.
func substringIndex(s, delim string, count int32) string {
	if delim == "" || count == 0 {
		return ""
	}
	if count > 0 {
		idx := -1
		for ; count > 0; count-- {
			j := strings.Index(s[idx+1:], delim)
			if j < 0 {
				return s
			}
			idx += 1 + j
		}
		return s[:idx]
	}
	idx := len(s) - len(delim) + 1
	for ; count < 0; count++ {
		if idx-1 < 0 {
			return s
		}
		j := strings.LastIndex(s[:min(len(s), idx-1+len(delim))], delim)
		if j < 0 {
			return s
		}
		idx = j
	}
	return s[idx+len(delim):]
}

// locateFunc is Spark's locate(substr, str[, pos]): the 1-based position
// of substr in str at or after pos (in characters), 0 when not found or
// pos < 1; a null pos gives 0 (as Hive), else a null argument null.
func locateFunc() *Func {
	return &Func{Name: "locate", MinArgs: 2, MaxArgs: 3, Bind: func(args []Arg) (Bound, error) {
		if err := checkArgs(args, "ssi"); err != nil {
			return Bound{}, err
		}
		return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			a, err := loadArgs(mem, args, cols, n, "ssi")
			if err != nil {
				return nil, err
			}
			defer a.release()
			b := array.NewInt32Builder(mem)
			defer b.Release()
			b.Reserve(n)
			for i := range n {
				start := int32(1)
				if len(a.n) > 2 {
					if a.n[2].isNull(i) {
						b.UnsafeAppend(0)
						continue
					}
					start = a.n[2].value(i)
				}
				switch {
				case a.s[0].isNull(i) || a.s[1].isNull(i):
					b.AppendNull()
				case start < 1:
					b.UnsafeAppend(0)
				default:
					b.UnsafeAppend(int32(indexOf(a.s[1].value(i), a.s[0].value(i), int(start)-1) + 1))
				}
			}
			return b.NewArray(), nil
		}}, nil
	}}
}

// initcapFunc is Spark's initcap: the string in lower case, then each
// character at the start or after a space (U+0020 only) in title case.
func initcapFunc() *Func {
	return toStringWith("initcap", 1, 1, "s", func() func([]byte, argCols, int) []byte {
		lowerC, titleC := cases.Lower(language.Und), cases.Title(language.Und)
		return func(dst []byte, a argCols, i int) []byte {
			s := a.s[0].value(i)
			if isASCII(s) {
				up := true
				for j := 0; j < len(s); j++ {
					c := s[j]
					switch {
					case up && 'a' <= c && c <= 'z':
						c -= 'a' - 'A'
					case !up && 'A' <= c && c <= 'Z':
						c += 'a' - 'A'
					}
					up = c == ' '
					dst = append(dst, c)
				}
				return dst
			}
			lower := lowerC.String(s)
			up := true
			for j, r := range lower {
				_, n := utf8.DecodeRuneInString(lower[j:]) // 1 for an invalid byte
				if up && r != ' ' {
					dst = append(dst, titleC.String(lower[j:j+n])...)
				} else {
					dst = append(dst, lower[j:j+n]...)
				}
				up = r == ' '
			}
			return dst
		}
	})
}

// translateFunc is Spark's translate(s, from, to): each character of from
// in s becomes the character at its place in to, or is removed when to is
// shorter; the first of repeated characters of from counts.
func translateFunc() *Func {
	return toStringWith("translate", 3, 3, "s", func() func([]byte, argCols, int) []byte {
		var lastFrom, lastTo string
		var dict map[rune]rune
		return func(dst []byte, a argCols, i int) []byte {
			from, to := a.s[1].value(i), a.s[2].value(i)
			if dict == nil || from != lastFrom || to != lastTo {
				dict, lastFrom, lastTo = map[rune]rune{}, from, to
				rs := []rune(to)
				k := 0
				for _, r := range from {
					rep := rune(-1)
					if k < len(rs) {
						rep = rs[k]
					}
					k++
					if _, ok := dict[r]; !ok {
						dict[r] = rep
					}
				}
			}
			for _, r := range a.s[0].value(i) {
				rep, ok := dict[r]
				switch {
				case !ok:
					dst = utf8.AppendRune(dst, r)
				case rep >= 0:
					dst = utf8.AppendRune(dst, rep)
				}
			}
			return dst
		}
	})
}
