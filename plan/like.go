package plan

import (
	"fmt"
	"regexp"

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
