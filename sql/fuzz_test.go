package sql

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/millrace/millrace/internal/fuzzutil"
	"github.com/millrace/millrace/plan"
)

// FuzzParseExpr checks that no text panics or hangs the parser, that
// every error is a positioned *Error on a real line of the text, and that
// an accepted expression prints.
func FuzzParseExpr(f *testing.F) {
	for _, s := range []string{
		"price * 0.908 AS euros",
		"a OR b AND NOT c = d IS NOT NULL",
		"x NOT BETWEEN 1 AND 2 OR y IN (1, 2, 'a')",
		"CAST(`bid-price` AS BIGINT)::double",
		"window(ts, '10 seconds', INTERVAL 5 SECONDS)",
		"session_window(ts, '5 minutes')",
		"count(DISTINCT bidder) AS n",
		"-9223372036854775808 + 2147483648L - 1.5e3",
		"TIMESTAMP '2024-01-02 03:04:05' < current_timestamp()",
		"'a\\'b' \"c\" -- x\n /* y */",
		"price * )",
		"CASE WHEN a THEN b END",
		"a.b.c",
		"trim(LEADING 'x' FROM s) || substring(s FROM 2 FOR 3)",
		"position('a' IN s) + locate('a', s)",
		"s NOT LIKE concat(t, '%') ESCAPE '!'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		defer fuzzutil.Watchdog(s)()
		e, err := ParseExpr(s)
		if err != nil {
			checkPositioned(t, s, err)
			return
		}
		_ = e.String()
		plan.Walk(e, func(x plan.Expr) {
			if l, ok := x.(plan.Literal); ok {
				if _, err := plan.LiteralType(l.Value); err != nil {
					t.Fatalf("%q: literal of a type plan does not take: %v", s, err)
				}
			}
		})
	})
}

// checkPositioned fails t unless err, returned for text s, is a *Error
// on a real line of s and within it.
func checkPositioned(t *testing.T, s string, err error) {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("%q: error %T is not *sql.Error: %v", s, err, err)
	}
	lines := strings.Split(s, "\n")
	if se.Line < 1 || se.Line > len(lines) || se.Column < 1 {
		t.Fatalf("%q: error at %d:%d outside the text", s, se.Line, se.Column)
	}
	if utf8.ValidString(s) && se.Column > utf8.RuneCountInString(lines[se.Line-1])+1 {
		t.Fatalf("%q: error column %d past the end of line %q", s, se.Column, lines[se.Line-1])
	}
	_ = err.Error()
}
