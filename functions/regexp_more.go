package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// regexp_extract_all, regexp_count, regexp_substr, regexp_instr: the
// other regexp functions of Spark 3.4+, finding matches as regexp_replace
// does (jre.each).
func init() {
	register(&Func{Name: "regexp_extract_all", MinArgs: 2, MaxArgs: 3, Bind: bindRegexpExtractAll})
	register(&Func{Name: "regexp_count", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) {
		return bindRegexpInt(args, "regexp_count", func(re *jre, s string) (int32, bool) {
			k := int32(0)
			re.each(s, false, func([]int) bool { k++; return true })
			return k, true
		})
	}})
	// regexp_instr(s, pattern): the 1-based position of the first match, 0
	// when there is none.
	register(&Func{Name: "regexp_instr", MinArgs: 2, MaxArgs: 3, Bind: func(args []Arg) (Bound, error) {
		if len(args) == 3 {
			if v, ok := args[2].Value.(int32); !args[2].Const || !ok || v != 0 {
				return Bound{}, errorString("regexp_instr: only group 0 (the whole match) is supported")
			}
		}
		return bindRegexpInt(args[:2], "regexp_instr", func(re *jre, s string) (int32, bool) {
			m := re.FindStringIndex(s)
			if m == nil {
				return 0, true
			}
			return int32(numChars(s[:m[0]]) + 1), true
		})
	}})
	// regexp_substr(s, pattern): the first match, null when there is none
	// or it is empty.
	register(&Func{Name: "regexp_substr", MinArgs: 2, MaxArgs: 2, Bind: bindRegexpSubstr})
}

// bindRegexpInt binds a function of a string and a pattern to an INT.
func bindRegexpInt(args []Arg, name string, f func(re *jre, s string) (int32, bool)) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, name)
	if err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		compile := res.forBatch()
		b := array.NewInt32Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := range n {
			if a.null(i) {
				b.AppendNull()
				continue
			}
			re, err := compile(a.s[1].value(i))
			if err != nil {
				return nil, err
			}
			v, ok := f(re, a.s[0].value(i))
			if !ok {
				b.AppendNull()
				continue
			}
			b.UnsafeAppend(v)
		}
		return b.NewArray(), nil
	}}, nil
}

func bindRegexpSubstr(args []Arg) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, "regexp_substr")
	if err != nil {
		return Bound{}, err
	}
	return regexpToString(args, "s", res, false, func() regexpRow {
		return func(o *stringsOut, a argCols, i int, re *jre) error {
			s := a.s[0].value(i)
			// As Spark: no match, or an empty one, is null.
			if m := re.FindStringIndex(s); m != nil && m[1] > m[0] {
				o.str(s[m[0]:m[1]])
			} else {
				o.null()
			}
			return nil
		}
	}), nil
}

// bindRegexpExtractAll is regexp_extract_all(s, pattern[, idx=1]): group
// idx of every match, as an array of strings.
func bindRegexpExtractAll(args []Arg) (Bound, error) {
	if err := checkArgs(args, "ssi"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, "regexp_extract_all")
	if err != nil {
		return Bound{}, err
	}
	if err := checkLiteralGroup(args, res, "regexp_extract_all"); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.ListOf(arrow.BinaryTypes.String), Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "ssi")
		if err != nil {
			return nil, err
		}
		defer a.release()
		compile := res.forBatch()
		lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
		defer lb.Release()
		vb := lb.ValueBuilder().(*array.StringBuilder)
		lb.Reserve(n)
		for i := range n {
			if a.null(i) {
				lb.AppendNull()
				continue
			}
			re, err := compile(a.s[1].value(i))
			if err != nil {
				return nil, err
			}
			idx := groupArg(args, a, i)
			if err := checkGroup("regexp_extract_all", re, idx); err != nil {
				return nil, err
			}
			lb.Append(true)
			s := a.s[0].value(i)
			re.each(s, true, func(m []int) bool {
				if lo := m[2*idx]; lo >= 0 {
					vb.Append(s[lo:m[2*idx+1]])
				} else {
					vb.Append("")
				}
				return true
			})
		}
		return lb.NewArray(), nil
	}}, nil
}
