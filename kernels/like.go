package kernels

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// Matcher matches strings against a compiled LIKE, ILIKE or RLIKE pattern
// (plan.Like): a literal comparison (equal, prefix, suffix, contains) for
// the LIKE patterns that are one, else Go's RE2 regexp.
type Matcher struct {
	kind matchKind
	lit  string
	re   *regexp.Regexp
}

type matchKind int

const (
	matchRegexp matchKind = iota
	matchEqual
	matchPrefix
	matchSuffix
	matchContains
)

// LiteralMatch is how a literal matcher compares.
type LiteralMatch int

// Literal comparisons: the LIKE patterns 'abc', 'abc%', '%abc', '%abc%'.
const (
	MatchEqual LiteralMatch = iota + 1
	MatchPrefix
	MatchSuffix
	MatchContains
)

// NewLiteralMatcher matches strings equal to, starting with, ending with
// or containing lit.
func NewLiteralMatcher(how LiteralMatch, lit string) *Matcher {
	return &Matcher{kind: matchKind(how), lit: lit}
}

// LiteralLikeMatcher is the literal matcher of a case-sensitive LIKE
// pattern that is one: no escape and no _, % at most at its ends ('abc',
// 'abc%', '%abc', '%abc%'), which a string comparison matches faster than
// a regexp. ok is false for any other pattern.
func LiteralLikeMatcher(pattern string, escape rune) (m *Matcher, ok bool) {
	if strings.ContainsRune(pattern, escape) || strings.ContainsRune(pattern, '_') {
		return nil, false
	}
	start, end := !strings.HasPrefix(pattern, "%"), !strings.HasSuffix(pattern, "%")
	lit := strings.TrimPrefix(pattern, "%")
	if !end {
		lit = strings.TrimSuffix(lit, "%")
	}
	if strings.Contains(lit, "%") {
		return nil, false
	}
	how := MatchContains
	switch {
	case start && end:
		how = MatchEqual
	case start:
		how = MatchPrefix
	case end:
		how = MatchSuffix
	}
	return NewLiteralMatcher(how, lit), true
}

// NewRegexpMatcher matches strings in which re finds a match (anchor it
// for a whole-string match).
func NewRegexpMatcher(re *regexp.Regexp) *Matcher { return &Matcher{re: re} }

// Match reports whether s matches.
func (m *Matcher) Match(s string) bool {
	switch m.kind {
	case matchEqual:
		return s == m.lit
	case matchPrefix:
		return strings.HasPrefix(s, m.lit)
	case matchSuffix:
		return strings.HasSuffix(s, m.lit)
	case matchContains:
		return strings.Contains(s, m.lit)
	}
	return m.re.MatchString(s)
}

// Select appends to out[:0] the rows of sel (nil = all) of col that are
// not null and whose match is want: want true is LIKE's true rows, want
// false its false rows (NOT LIKE's true rows).
func (m *Matcher) Select(col *array.String, sel, out []int32, want bool) []int32 {
	out = out[:0]
	if out == nil {
		out = []int32{}
	}
	nulls := col.NullN() > 0
	if sel == nil {
		for i := 0; i < col.Len(); i++ {
			if (!nulls || col.IsValid(i)) && m.Match(col.Value(i)) == want {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for _, i := range sel {
		if (!nulls || col.IsValid(int(i))) && m.Match(col.Value(int(i))) == want {
			out = append(out, i)
		}
	}
	return out
}

// LikeRegexp translates a SQL LIKE pattern into an anchored RE2 regular
// expression as Spark's StringUtils.escapeLikeRegex does: % is any
// sequence, _ any one character (a code point; Spark's is a UTF-16 unit),
// escape followed by %, _ or itself is that character literally, escape
// before anything else or at the end is an error; the match is of the whole
// string, across newlines. fold makes it case-insensitive (ILIKE; RE2's
// simple case folding where Spark lower-cases both sides).
func LikeRegexp(pattern string, escape rune, fold bool) (string, error) {
	var b strings.Builder
	b.WriteString(`(?s)`)
	if fold {
		b.WriteString(`(?i)`)
	}
	b.WriteString(`\A`)
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == escape && i+1 < len(rs):
			i++
			n := rs[i]
			if n != '%' && n != '_' && n != escape {
				return "", fmt.Errorf("LIKE pattern %s: the escape character is not allowed to precede %q", quoteSQL(pattern), n)
			}
			b.WriteString(regexp.QuoteMeta(string(n)))
		case c == escape:
			return "", fmt.Errorf("LIKE pattern %s: it is not allowed to end with the escape character", quoteSQL(pattern))
		case c == '%':
			b.WriteString(`.*`)
		case c == '_':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return b.String(), nil
}

// quoteSQL is s as a SQL string literal.
func quoteSQL(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
