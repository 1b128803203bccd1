package functions

import (
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func init() {
	// Full Unicode case mapping, as Java's String.toUpperCase that Spark
	// uses: ß becomes SS, which strings.ToUpper leaves alone.
	// A Caser keeps state, so each evaluation makes its own.
	register(stringMap("lower", func() func(string) string { return cases.Lower(language.Und).String }, asciiLower), "lcase")
	register(stringMap("upper", func() func(string) string { return cases.Upper(language.Und).String }, asciiUpper), "ucase")
}

// stringMap is a function of one string to a string, row by row, computed
// by a function newF makes for each batch. ascii, if not nil, handles a
// value of ASCII bytes only without allocating: it appends the result to
// dst.
func stringMap(name string, newF func() func(string) string, ascii func(dst []byte, s string) []byte) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if !isStringLike(args[0].Type) {
			return Bound{}, typeErr(0, "a string", args[0].Type)
		}
		return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			s, err := stringArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer s.Release()
			f := newF()
			return mapStrings(mem, s, func(dst []byte, v string) []byte {
				if ascii != nil && isASCII(v) {
					return ascii(dst, v)
				}
				return append(dst, f(v)...)
			}), nil
		}}, nil
	}}
}

// mapStrings builds the strings f(dst, v) appends for each valid v of s;
// nulls stay null.
func mapStrings(mem memory.Allocator, s *array.String, f func(dst []byte, v string) []byte) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(s.Len())
	b.ReserveData(len(s.ValueBytes()))
	var buf []byte
	for i := range s.Len() {
		if s.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf = f(buf[:0], s.Value(i))
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

func asciiUpper(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
