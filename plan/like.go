package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/millrace/millrace/kernels"
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
		if expr, err = kernels.LikeRegexp(l.Pattern, l.Escape, l.Kind == MatchILike); err != nil {
			return nil, err
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("%s pattern %s: %w", l.Kind, Literal{Value: l.Pattern}, err)
	}
	return re, nil
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
