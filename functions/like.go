package functions

import (
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/kernels"
)

// The function forms of LIKE, ILIKE and RLIKE (like(s, '%a%'),
// rlike(s, '[0-9]+')), which Spark also has; they match as the operators
// do (plan.Like), with the same kernels.Matcher, and also take a pattern
// from a column.
func init() {
	register(likeFunc("like", false))
	register(likeFunc("ilike", true))
	register(&Func{Name: "rlike", MinArgs: 2, MaxArgs: 2, Bind: bindRLike}, "regexp", "regexp_like")
}

// matchers gives the matcher of a row's pattern: the literal's, compiled
// at Bind, or one of a cache of a column's patterns.
type matchers struct {
	lit     *kernels.Matcher
	compile func(p string) (*kernels.Matcher, error)
}

func (m matchers) forBatch() func(string) (*kernels.Matcher, error) {
	if m.lit != nil {
		return func(string) (*kernels.Matcher, error) { return m.lit, nil }
	}
	cache := map[string]*kernels.Matcher{}
	return func(p string) (*kernels.Matcher, error) {
		if x, ok := cache[p]; ok {
			return x, nil
		}
		x, err := m.compile(p)
		if err != nil {
			return nil, err
		}
		if len(cache) >= 64 {
			clear(cache)
		}
		cache[p] = x
		return x, nil
	}
}

// likeMatcher compiles a LIKE pattern: a literal comparison when it is
// one ('abc', 'abc%', '%abc', '%abc%'), else a regexp.
func likeMatcher(p string, esc rune, fold bool) (*kernels.Matcher, error) {
	if !fold {
		if m, ok := kernels.LiteralLikeMatcher(p, esc); ok {
			return m, nil
		}
	}
	expr, err := kernels.LikeRegexp(p, esc, fold)
	if err != nil {
		return nil, err
	}
	re, err := compileRegexp(expr, "like")
	if err != nil {
		return nil, err
	}
	return kernels.NewRegexpMatcher(re), nil
}

// likeFunc is like(s, pattern[, escape = '\']) or ilike: the escape must
// be a literal of one character.
func likeFunc(name string, fold bool) *Func {
	return &Func{Name: name, MinArgs: 2, MaxArgs: 3, Bind: func(args []Arg) (Bound, error) {
		if err := checkArgs(args, "s"); err != nil {
			return Bound{}, err
		}
		esc := '\\'
		if len(args) > 2 {
			e, ok := args[2].Value.(string)
			if !args[2].Const || !ok || utf8.RuneCountInString(e) != 1 {
				return Bound{}, fmt.Errorf("the escape (argument 3) must be a string literal of one character")
			}
			esc, _ = utf8.DecodeRuneInString(e)
		}
		m := matchers{compile: func(p string) (*kernels.Matcher, error) { return likeMatcher(p, esc, fold) }}
		if p, ok := args[1].Value.(string); ok && args[1].Const {
			var err error
			if m.lit, err = m.compile(p); err != nil {
				return Bound{}, err
			}
		}
		return matchBound(args, m), nil
	}}
}

// bindRLike is rlike(s, regex): true where the regex matches somewhere.
func bindRLike(args []Arg) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	m := matchers{compile: func(p string) (*kernels.Matcher, error) {
		re, err := compileRegexp(p, "rlike")
		if err != nil {
			return nil, err
		}
		return kernels.NewRegexpMatcher(re), nil
	}}
	if p, ok := args[1].Value.(string); ok && args[1].Const {
		var err error
		if m.lit, err = m.compile(p); err != nil {
			return Bound{}, err
		}
	}
	return matchBound(args, m), nil
}

func matchBound(args []Arg, m matchers) Bound {
	return Bound{Type: arrow.FixedWidthTypes.Boolean, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args[:2], cols[:2], n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		compile := m.forBatch()
		var failed error
		out := boolRows(mem, n, a.null, func(i int) bool {
			x, err := compile(a.s[1].value(i))
			if err != nil {
				failed = err
				return false
			}
			return x.Match(a.s[0].value(i))
		})
		if failed != nil {
			out.Release()
			return nil, failed
		}
		return out, nil
	}}
}
