package functions

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Spark's regular-expression functions. Patterns are Java regexes in
// Spark and RE2 (Go's regexp) here: see the departures in doc.go. A
// literal pattern is compiled once, when the call is bound (an invalid one
// is an error before the query starts); a pattern from a column is
// compiled per distinct value, cached for the batch.
func init() {
	register(&Func{Name: "regexp_extract", MinArgs: 2, MaxArgs: 3, Bind: bindRegexpExtract})
	register(&Func{Name: "regexp_replace", MinArgs: 3, MaxArgs: 4, Bind: bindRegexpReplace})
	register(&Func{Name: "split", MinArgs: 2, MaxArgs: 3, Bind: bindSplit})
}

// regexps gives the compiled pattern of a row: the literal's, or one from
// a small cache of a column's values.
type regexps struct {
	lit  *jre
	what string // names the function in errors
}

// newRegexps compiles argument i if it is a literal.
func newRegexps(args []Arg, i int, what string) (*regexps, error) {
	r := &regexps{what: what}
	if args[i].Const {
		if p, ok := args[i].Value.(string); ok {
			re, err := compileJava(p, what)
			if err != nil {
				return nil, err
			}
			r.lit = re
		}
	}
	return r, nil
}

func compileRegexp(p, what string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("%s: the pattern %s is not a regular expression Millrace can run (RE2 syntax; Java's lookaround, backreferences and possessive quantifiers are not supported): %w", what, strconv.Quote(p), err)
	}
	return re, nil
}

// forBatch returns the compiler of one evaluation: it caches up to 64
// patterns, so that concurrent evaluations share nothing.
func (r *regexps) forBatch() func(p string) (*jre, error) {
	if r.lit != nil {
		return func(string) (*jre, error) { return r.lit, nil }
	}
	cache := map[string]*jre{}
	return func(p string) (*jre, error) {
		if re, ok := cache[p]; ok {
			return re, nil
		}
		re, err := compileJava(p, r.what)
		if err != nil {
			return nil, err
		}
		if len(cache) >= 64 {
			clear(cache)
		}
		cache[p] = re
		return re, nil
	}
}

// bindRegexpExtract is Spark's regexp_extract(s, pattern[, idx=1]): group
// idx of the first match, "" when there is none or the group did not take
// part; an idx outside the pattern's groups is an error.
func bindRegexpExtract(args []Arg) (Bound, error) {
	if err := checkArgs(args, "ssi"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, "regexp_extract")
	if err != nil {
		return Bound{}, err
	}
	if err := checkLiteralGroup(args, res, "regexp_extract"); err != nil {
		return Bound{}, err
	}
	return regexpToString(args, "ssi", res, false, func() regexpRow {
		return func(o *stringsOut, a argCols, i int, re *jre) error {
			idx := groupArg(args, a, i)
			s := a.s[0].value(i)
			var m []int
			if idx == 0 {
				m = re.FindStringIndex(s)
			} else {
				m = re.FindStringSubmatchIndex(s)
			}
			if m == nil {
				o.str("")
				return nil
			}
			if err := checkGroup("regexp_extract", re, idx); err != nil {
				return err
			}
			if lo := m[2*idx]; lo >= 0 {
				o.str(s[lo:m[2*idx+1]])
			} else {
				o.str("")
			}
			return nil
		}
	}), nil
}

// regexpRow writes row i's result of a regexp function to o, re the row's
// compiled pattern.
type regexpRow func(o *stringsOut, a argCols, i int, re *jre) error

// regexpToString binds a function of a string and a pattern (argument 1)
// to a string, row by row: null where an argument is null, else row's
// result; newRow makes the row function of one evaluation (which may keep
// state). With hint, the output reserves the input's bytes.
func regexpToString(args []Arg, kinds string, res *regexps, hint bool, newRow func() regexpRow) Bound {
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, kinds)
		if err != nil {
			return nil, err
		}
		defer a.release()
		compile := res.forBatch()
		bytes := 0
		if hint {
			bytes = a.bytesHint(n)
		}
		o := newStringsOut(mem, n, bytes)
		defer o.release()
		row := newRow()
		for i := range n {
			if a.null(i) {
				o.null()
				continue
			}
			re, err := compile(a.s[1].value(i))
			if err != nil {
				return nil, err
			}
			if err := row(o, a, i, re); err != nil {
				return nil, err
			}
		}
		return o.finish(), nil
	}}
}

// checkLiteralGroup checks, when the call is bound, the group index
// (argument 2, 1 when absent) of a literal pattern, where both are known.
func checkLiteralGroup(args []Arg, res *regexps, what string) error {
	if res.lit == nil {
		return nil
	}
	if len(args) == 2 {
		return checkGroup(what, res.lit, 1)
	}
	if v, ok := args[2].Value.(int32); ok && args[2].Const {
		return checkGroup(what, res.lit, v)
	}
	return nil
}

// checkGroup is an error when re has no group idx.
func checkGroup(what string, re *jre, idx int32) error {
	if idx < 0 || int(idx) > re.NumSubexp() {
		return fmt.Errorf("%s: group index %d is out of range: the pattern %s has groups 0 to %d", what, idx, strconv.Quote(re.String()), re.NumSubexp())
	}
	return nil
}

// groupArg is row i's group index (argument 2), 1 when absent.
func groupArg(args []Arg, a argCols, i int) int32 {
	if len(args) > 2 {
		return a.n[2].value(i)
	}
	return 1
}

// replacement is a parsed Java replacement string (Matcher.appendReplacement):
// literal text, $n and ${name} group references, \ escaping the next
// character.
type replacement []replPart

type replPart struct {
	lit   string
	group int // -1 for literal text
}

// parseReplacement parses rep as Java does for re: $ followed by digits
// takes the longest group number re has, ${name} a named group.
func parseReplacement(rep string, re *regexp.Regexp) (replacement, error) {
	var out replacement
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(rep); i++ {
		c := rep[i]
		switch c {
		case '\\':
			i++
			if i == len(rep) {
				return nil, fmt.Errorf("the replacement %s ends with \\ (a character to escape is missing)", strconv.Quote(rep))
			}
			lit.WriteByte(rep[i])
		case '$':
			i++
			if i == len(rep) {
				return nil, fmt.Errorf("the replacement %s ends with $ (a group reference is missing; write \\$ for a dollar)", strconv.Quote(rep))
			}
			if rep[i] == '{' {
				end := strings.IndexByte(rep[i:], '}')
				if end < 0 {
					return nil, fmt.Errorf("the replacement %s has a group reference ${ without }", strconv.Quote(rep))
				}
				name := rep[i+1 : i+end]
				g := re.SubexpIndex(name)
				if g < 0 {
					return nil, fmt.Errorf("the replacement %s names group %s, which the pattern does not have", strconv.Quote(rep), name)
				}
				flush()
				out = append(out, replPart{group: g})
				i += end
				continue
			}
			if rep[i] < '0' || rep[i] > '9' {
				return nil, fmt.Errorf("the replacement %s has $ not followed by a group number (write \\$ for a dollar)", strconv.Quote(rep))
			}
			g := int(rep[i] - '0')
			if g > re.NumSubexp() {
				return nil, fmt.Errorf("the replacement %s refers to group %d; the pattern has %d", strconv.Quote(rep), g, re.NumSubexp())
			}
			for i+1 < len(rep) && rep[i+1] >= '0' && rep[i+1] <= '9' {
				ng := g*10 + int(rep[i+1]-'0')
				if ng > re.NumSubexp() {
					break
				}
				g = ng
				i++
			}
			flush()
			out = append(out, replPart{group: g})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return out, nil
}

func (r replacement) appendTo(dst []byte, s string, m []int) []byte {
	for _, p := range r {
		if p.group < 0 {
			dst = append(dst, p.lit...)
		} else if lo := m[2*p.group]; lo >= 0 {
			dst = append(dst, s[lo:m[2*p.group+1]]...)
		}
	}
	return dst
}

// bindRegexpReplace is Spark's regexp_replace(s, pattern, replacement[,
// pos=1]): every match at or after character pos replaced, with Java's
// replacement syntax ($1, ${name}, \$).
func bindRegexpReplace(args []Arg) (Bound, error) {
	if err := checkArgs(args, "sssi"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, "regexp_replace")
	if err != nil {
		return Bound{}, err
	}
	var litRepl replacement
	if res.lit != nil && args[2].Const {
		if r, ok := args[2].Value.(string); ok {
			if litRepl, err = parseReplacement(r, res.lit.Regexp); err != nil {
				return Bound{}, fmt.Errorf("regexp_replace: %w", err)
			}
		}
	}
	if len(args) > 3 && args[3].Const {
		if v, ok := args[3].Value.(int32); ok && v < 1 {
			return Bound{}, fmt.Errorf("regexp_replace: the position %d must be positive", v)
		}
	}
	return regexpToString(args, "sssi", res, true, func() regexpRow {
		var lastRe *jre
		lastRep, repl := "", litRepl
		return func(o *stringsOut, a argCols, i int, re *jre) error {
			if litRepl == nil {
				if r := a.s[2].value(i); re != lastRe || r != lastRep || repl == nil {
					var err error
					if repl, err = parseReplacement(r, re.Regexp); err != nil {
						return fmt.Errorf("regexp_replace: %w", err)
					}
					lastRe, lastRep = re, r
				}
			}
			s := a.s[0].value(i)
			pos := int32(1)
			if len(args) > 3 {
				if pos = a.n[3].value(i); pos < 1 {
					return fmt.Errorf("regexp_replace: the position %d must be positive", pos)
				}
			}
			// As Spark: a position past the last character leaves s alone.
			if p0 := int(pos) - 1; p0 != 0 && p0 >= numChars(s) {
				o.str(s)
				return nil
			}
			off := byteOffset(s, int(pos)-1)
			o.buf = append(o.buf[:0], s[:off]...)
			rest := s[off:]
			last := 0
			re.each(rest, true, func(m []int) bool {
				o.buf = append(o.buf, rest[last:m[0]]...)
				o.buf = repl.appendTo(o.buf, rest, m)
				last = m[1]
				return true
			})
			o.buf = append(o.buf, rest[last:]...)
			o.bytes(o.buf)
			return nil
		}
	}), nil
}

// bindSplit is Spark's split(s, pattern[, limit=-1]): the pieces of s
// around the matches of pattern, as Java's String.split with limit (at
// most limit pieces when limit > 0; a limit of 0 is -1, so trailing empty
// pieces stay); an empty pattern splits into characters.
func bindSplit(args []Arg) (Bound, error) {
	if err := checkArgs(args, "ssi"); err != nil {
		return Bound{}, err
	}
	res, err := newRegexps(args, 1, "split")
	if err != nil {
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
		vb.ReserveData(a.bytesHint(n))
		for i := range n {
			if a.null(i) {
				lb.AppendNull()
				continue
			}
			s, p := a.s[0].value(i), a.s[1].value(i)
			limit := int32(-1)
			if len(args) > 2 {
				limit = a.n[2].value(i)
			}
			if limit == 0 {
				limit = -1
			}
			lb.Append(true)
			if p == "" && s != "" {
				splitChars(vb, s, limit)
				continue
			}
			re, err := compile(p)
			if err != nil {
				return nil, err
			}
			splitJava(vb, re, s, limit)
		}
		return lb.NewArray(), nil
	}}, nil
}

// splitChars is UTF8String.split with an empty pattern: one piece per
// character, the last holding the rest when limit cuts it short.
func splitChars(vb *array.StringBuilder, s string, limit int32) {
	chars := numChars(s)
	k := chars
	if limit > 0 && int(limit) < chars {
		k = int(limit)
	}
	for j := 0; j < k-1; j++ {
		_, size := utf8.DecodeRuneInString(s)
		vb.Append(s[:size])
		s = s[size:]
	}
	vb.Append(s)
}

// splitJava is Java's Pattern.split(s, limit) for limit != 0: a
// zero-width match at the start makes no leading empty piece. A literal
// pattern is found with strings.Index, without allocating.
func splitJava(vb *array.StringBuilder, re *jre, s string, limit int32) {
	if lit, complete := re.LiteralPrefix(); complete && lit != "" {
		pieces := int32(0)
		for limit < 0 || pieces < limit-1 {
			j := strings.Index(s, lit)
			if j < 0 {
				break
			}
			vb.Append(s[:j])
			pieces++
			s = s[j+len(lit):]
		}
		vb.Append(s)
		return
	}
	index, pieces := 0, int32(0)
	re.each(s, false, func(m []int) bool {
		if limit > 0 && pieces >= limit-1 {
			return false
		}
		if m[1] == 0 { // a zero-width match at the start
			return true
		}
		vb.Append(s[index:m[0]])
		pieces++
		index = m[1]
		return true
	})
	vb.Append(s[index:])
}

// jre is a compiled pattern that finds its matches as Java's Matcher.find
// does.
type jre struct {
	*regexp.Regexp
	// contextFree: the pattern has no assertion that looks before where a
	// search starts (^, \A, \b, \B), so that searching s[pos:] finds what
	// a search of s from pos would.
	contextFree bool
}

func compileJava(p, what string) (*jre, error) {
	re, err := compileRegexp(p, what)
	if err != nil {
		return nil, err
	}
	free := false
	if t, err := syntax.Parse(p, syntax.Perl); err == nil {
		free = !hasLeftContext(t)
	}
	return &jre{Regexp: re, contextFree: free}, nil
}

func hasLeftContext(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range t.Sub {
		if hasLeftContext(s) {
			return true
		}
	}
	return false
}

// each calls f with each match of re in s (submatches too when sub), in
// order, until f returns false. Java finds an empty match right after a
// non-empty one, which RE2's FindAll skips; after an empty match it
// searches again one character on. For a context-free pattern each does
// as Java; otherwise it takes RE2's matches (see doc.go).
func (re *jre) each(s string, sub bool, f func(m []int) bool) {
	if !re.contextFree {
		var ms [][]int
		if sub {
			ms = re.FindAllStringSubmatchIndex(s, -1)
		} else {
			ms = re.FindAllStringIndex(s, -1)
		}
		for _, m := range ms {
			if !f(m) {
				return
			}
		}
		return
	}
	for pos := 0; pos <= len(s); {
		var m []int
		if sub {
			m = re.FindStringSubmatchIndex(s[pos:])
		} else {
			m = re.FindStringIndex(s[pos:])
		}
		if m == nil {
			return
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
			}
		}
		if !f(m) {
			return
		}
		if m[1] > m[0] {
			pos = m[1]
			continue
		}
		if m[1] == len(s) {
			return
		}
		_, size := utf8.DecodeRuneInString(s[m[1]:])
		pos = m[1] + size
	}
}
