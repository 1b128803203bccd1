package functions

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func init() {
	// concat(a, b, …) is null where any argument is; concat() is "".
	register(toString("concat", 0, -1, "s", func(dst []byte, a argCols, i int) []byte {
		for _, c := range a.s {
			dst = append(dst, c.value(i)...)
		}
		return dst
	}))
	register(&Func{Name: "concat_ws", MinArgs: 1, MaxArgs: -1, Bind: bindConcatWS})
	// replace(s, search[, replacement]): every search, left to right, by
	// replacement ("" when not given); an empty search leaves s as it is.
	register(toString("replace", 2, 3, "s", func(dst []byte, a argCols, i int) []byte {
		s, old := a.s[0].value(i), a.s[1].value(i)
		rep := ""
		if len(a.s) > 2 {
			rep = a.s[2].value(i)
		}
		if old == "" {
			return append(dst, s...)
		}
		for {
			j := strings.Index(s, old)
			if j < 0 {
				return append(dst, s...)
			}
			dst = append(append(dst, s[:j]...), rep...)
			s = s[j+len(old):]
		}
	}))
}

// bindConcatWS is Spark's concat_ws(sep, a, …): the non-null arguments
// joined by sep; an array of strings adds its non-null elements; a null
// sep gives null.
func bindConcatWS(args []Arg) (Bound, error) {
	for i, a := range args {
		if i > 0 && isStringList(a.Type) {
			continue
		}
		if !isStringLike(a.Type) {
			return Bound{}, typeErr(i, "a string or an array of strings", a.Type)
		}
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		parts := make([]func(dst []byte, i int, first bool) ([]byte, bool), 0, len(args)-1)
		sep, err := strColumn(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer sep.release()
		var strs strCols
		defer func() { strs.release() }()
		for k := 1; k < len(args); k++ {
			if isStringList(args[k].Type) {
				if cols[k] == nil {
					return nil, fmt.Errorf("concat_ws: a literal array is not supported")
				}
				l := cols[k].(*array.List)
				vals := l.ListValues().(*array.String)
				parts = append(parts, func(dst []byte, i int, first bool) ([]byte, bool) {
					if l.IsNull(i) {
						return dst, first
					}
					lo, hi := l.ValueOffsets(i)
					for j := lo; j < hi; j++ {
						if vals.IsNull(int(j)) {
							continue
						}
						if !first {
							dst = append(dst, sep.value(i)...)
						}
						dst, first = append(dst, vals.Value(int(j))...), false
					}
					return dst, first
				})
				continue
			}
			c, err := strColumn(mem, args, cols, k, n)
			if err != nil {
				return nil, err
			}
			strs = append(strs, c)
			parts = append(parts, func(dst []byte, i int, first bool) ([]byte, bool) {
				if c.isNull(i) {
					return dst, first
				}
				if !first {
					dst = append(dst, sep.value(i)...)
				}
				return append(dst, c.value(i)...), false
			})
		}
		o := newStringsOut(mem, n, 0)
		defer o.release()
		for i := range n {
			if sep.isNull(i) {
				o.null()
				continue
			}
			o.buf = o.buf[:0]
			first := true
			for _, p := range parts {
				o.buf, first = p(o.buf, i, first)
			}
			o.bytes(o.buf)
		}
		return o.finish(), nil
	}}, nil
}

func isStringList(t arrow.DataType) bool {
	l, ok := t.(*arrow.ListType)
	return ok && l.Elem().ID() == arrow.STRING
}
