package plan

import (
	"fmt"
	"regexp"
	"strings"
)

// Regexp compiles the pattern of l into the RE2 regular expression that
// finds its matches; an invalid pattern is an analysis error. RLIKE
// patterns are RE2 syntax as given (Spark's are Java's: RE2 lacks
// backreferences, lookaround, possessive quantifiers and atomic groups, and
// its \b, \w and (?i) are ASCII or simple-folding where Java's flags vary).
func (l Like) Regexp() (*regexp.Regexp, error) {
	expr := l.Pattern
	if l.Kind != MatchRLike {
		var err error
		if expr, err = LikeRegexp(l.Pattern, l.Escape, l.Kind == MatchILike); err != nil {
			return nil, err
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s pattern %s: %w", l.Kind, Literal{Value: l.Pattern}, err)
	}
	return re, nil
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
				return "", fmt.Errorf("LIKE pattern %s: the escape character is not allowed to precede %q", Literal{Value: pattern}, n)
			}
			b.WriteString(regexp.QuoteMeta(string(n)))
		case c == escape:
			return "", fmt.Errorf("LIKE pattern %s: it is not allowed to end with the escape character", Literal{Value: pattern})
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

// LiteralPattern reports whether l is a case-sensitive LIKE whose pattern
// is a literal with % at most at its ends ('abc', 'abc%', '%abc', '%abc%'),
// which a string comparison matches faster than a regexp: lit is the
// literal, start and end whether the match is anchored there.
func (l Like) LiteralPattern() (lit string, start, end, ok bool) {
	p := l.Pattern
	if l.Kind != MatchLike || strings.ContainsRune(p, l.Escape) || strings.ContainsRune(p, '_') {
		return "", false, false, false
	}
	start, end = !strings.HasPrefix(p, "%"), !strings.HasSuffix(p, "%")
	lit = strings.TrimPrefix(p, "%")
	if !end {
		lit = strings.TrimSuffix(lit, "%")
	}
	if strings.Contains(lit, "%") {
		return "", false, false, false
	}
	return lit, start, end, true
}
