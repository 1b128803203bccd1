package sql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/plan"
)

func TestParseExpr(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// Precedence, lowest first: OR, AND, NOT, predicates, comparison,
		// additive, multiplicative, unary.
		{"a OR b AND c", "(a OR (b AND c))"},
		{"a AND b OR c", "((a AND b) OR c)"},
		{"NOT a AND b", "((NOT a) AND b)"},
		{"NOT a = b", "(NOT (a = b))"},
		{"! a", "(NOT a)"},
		{"a = b AND c <> d", "((a = b) AND (c != d))"},
		{"a == b", "(a = b)"},
		{"a + b * c", "(a + (b * c))"},
		{"(a + b) * c", "((a + b) * c)"},
		{"a - b - c", "((a - b) - c)"},
		{"a / b % c", "((a / b) % c)"},
		{"a + b < c * d", "((a + b) < (c * d))"},
		{"-a * b", "((- a) * b)"},
		{"- -a", "(- (- a))"},
		{"+a", "a"},
		{"a = b IS NULL", "((a = b) IS NULL)"},
		{"a IS NOT NULL OR b is null", "((a IS NOT NULL) OR (b IS NULL))"},
		{"x BETWEEN 1 AND 2 AND y", "(((x >= 1) AND (x <= 2)) AND y)"},
		{"x NOT BETWEEN a + 1 AND b", "(NOT ((x >= (a + 1)) AND (x <= b)))"},
		{"x IN (1, 2, 3)", "(((x = 1) OR (x = 2)) OR (x = 3))"},
		{"x NOT IN ('a')", "(NOT (x = 'a'))"},
		{"NOT x IN (1)", "(NOT (x = 1))"},
		// Literals.
		{"1", "1"},
		{"2147483648", "2147483648"},
		{"12L", "12"},
		{"1.5", "1.5"},
		{".5", "0.5"},
		{"1e3", "1000"},
		{"2D", "2"},
		{"'it''s'", "'it''s'"}, // '' is a quote, as in Spark (not two adjacent literals)
		{"'a' 'b'", "'ab'"},
		{`'a\'b'`, "'a''b'"},
		{`"dq"`, "'dq'"},
		{`'tab\there'`, "'tab\there'"},
		{"TRUE OR false", "(true OR false)"},
		{"NULL", "NULL"},
		{"TIMESTAMP '2024-01-02 03:04:05'", "TIMESTAMP '2024-01-02T03:04:05Z'"},
		{"DATE '2024-2-9'", "DATE '2024-02-09'"},
		{"CAST(s AS DATE)", "CAST(s AS date32)"},
		// Names.
		{"`bid-price` * 0.908", "(bid-price * 0.908)"},
		{"`a``b`", "a`b"},
		{"date", "date"},
		{"timestamp > 3", "(timestamp > 3)"},
		{"_x1", "_x1"},
		// LIKE, ILIKE, RLIKE/REGEXP, negated, with ESCAPE.
		{"name LIKE 'a%'", "(name LIKE 'a%')"},
		{"name NOT LIKE 'a!_%' ESCAPE '!' AND x", "((NOT (name LIKE 'a!_%' ESCAPE '!')) AND x)"},
		{`name ILIKE 'A\%'`, `(name ILIKE 'A\%')`},
		{"name RLIKE '^a.*z$'", "(name RLIKE '^a.*z$')"},
		{"name NOT REGEXP 'x'", "(NOT (name RLIKE 'x'))"},
		{"name LIKE NULL", "CAST(NULL AS bool)"},
		// CASE, both forms; the simple one compares with =.
		{"CASE WHEN a > 1 THEN 'x' WHEN b THEN 'y' ELSE 'z' END", "CASE WHEN (a > 1) THEN 'x' WHEN b THEN 'y' ELSE 'z' END"},
		{"CASE a WHEN 1 THEN 2 END + 1", "(CASE WHEN (a = 1) THEN 2 END + 1)"},
		{"case when a then b else c end x", "CASE WHEN a THEN b ELSE c END AS x"},
		{"CASE WHEN a THEN CASE WHEN b THEN 1 END END", "CASE WHEN a THEN CASE WHEN b THEN 1 END END"},
		{"window.start", "window.start"},
		{"`window`.`end` > 3", "(window.end > 3)"},
		{"a.b.`c.d`", "a.b.`c.d`"},
		{"window(ts, '10 seconds').start", "window(ts, 10s).start"},
		// Casts.
		{"CAST(price AS BIGINT)", "CAST(price AS int64)"},
		{"cast(a as int) + 1", "(CAST(a AS int32) + 1)"},
		{"CAST(s AS TIMESTAMP)", "CAST(s AS timestamp[us, tz=UTC])"},
		{"a::double", "CAST(a AS float64)"},
		{"cast(x as string)", "CAST(x AS utf8)"},
		{"CAST(b AS BOOLEAN)", "CAST(b AS bool)"},
		// Aliases.
		{"price * 0.908 AS euros", "(price * 0.908) AS euros"},
		{"price euros", "price AS euros"},
		{"a AS `my col`", "a AS my col"},
		// Functions.
		{"count(*)", "count(*)"},
		{"COUNT(DISTINCT bidder)", "count(DISTINCT bidder)"},
		{"sum(price) AS total", "sum(price) AS total"},
		{"avg(x)", "avg(x)"},
		{"mean(x)", "avg(x)"},
		{"window(ts, '10 seconds')", "window(ts, 10s)"},
		{"window(ts, '10 seconds', '5 seconds')", "window(ts, 10s, 5s)"},
		{"window(ts, INTERVAL 1 MINUTE 30 SECONDS)", "window(ts, 1m30s)"},
		{"window(ts, INTERVAL '10' SECOND)", "window(ts, 10s)"},
		{"session_window(ts, '5 minutes')", "session_window(ts, 5m0s)"},
		{"current_timestamp()", "current_timestamp()"},
		{"current_timestamp", "current_timestamp()"},
		// Intervals: timestamp arithmetic.
		{"ts + INTERVAL 10 SECONDS", "(ts + INTERVAL '10s')"},
		{"ts - INTERVAL '10' SECOND", "(ts - INTERVAL '10s')"},
		{"ts + INTERVAL 1 HOUR 30 MINUTES", "(ts + INTERVAL '1h30m0s')"},
		{"INTERVAL '1 day' + ts", "(INTERVAL '24h0m0s' + ts)"},
		{"c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR",
			"((c.clickTime >= i.impressionTime) AND (c.clickTime <= (i.impressionTime + INTERVAL '1h0m0s')))"},
		// Comments and layout.
		{"a -- comment\n + /* c */ b", "(a + b)"},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
	}
}

func TestParseExprLiteralTypes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want any
	}{
		{"1", int32(1)},
		{"-2147483648", int32(-2147483648)},
		{"2147483648", int64(2147483648)},
		{"-9223372036854775808", int64(-9223372036854775808)},
		{"9223372036854775807", int64(9223372036854775807)},
		{"1L", int64(1)},
		{"1.25", 1.25},
		{"-1.5", -1.5},
		{"'x'", "x"},
		{"true", true},
		{"null", nil},
		{"timestamp '2024-01-02'", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
	} {
		e, err := ParseExpr(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		l, ok := e.(plan.Literal)
		if !ok || l.Value != c.want {
			t.Errorf("%q: got %#v, want literal %#v", c.in, e, c.want)
		}
	}
}

func TestParseExprErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"price * )", "1:9: unexpected ')'\n price * )\n         ^"},
		{"", "1:1: unexpected end of input, expected an expression\n \n ^"},
		{"a +", "1:4: unexpected end of input"},
		{"(a + b", "1:7: expected ')', found end of input"},
		{"a b c", "1:5: unexpected 'c'"},
		{"a\n  AND )", "2:7: unexpected ')'\n   AND )\n       ^"},
		{"'abc", "1:1: unterminated string"},
		{"`abc", "1:1: unterminated quoted identifier"},
		{"a # b", "1:3: unexpected character '#'"},
		{"12abc", "1:1: invalid number \"12abc\""},
		{"9223372036854775808", "1:1: integer literal 9223372036854775808 is out of range for BIGINT"},
		{"a - 9223372036854775808", "1:5: integer literal"},
		{"1e999", "out of range for DOUBLE"},
		{"CAST(a AS DECIMAL(10, 2))", "1:11: type DECIMAL is not supported yet"},
		{"CAST(a AS INTT)", `1:11: unknown type INTT (did you mean "INT"?)`},
		{"CAST(a, INT)", "1:7: expected AS, found ','"},
		{"CASE END", "1:6: unexpected"},
		{"CASE a END", "1:8: expected WHEN after CASE, found 'END'"},
		{"CASE WHEN a THEN 1", "1:19: expected END, found end of input"},
		{"CASE WHEN a 1 END", "1:13: expected THEN, found '1'"},
		{"name RLIKE '(a'", "1:12: RLIKE pattern '(a': error parsing regexp"},
		{`name LIKE 'a\\b'`, `1:11: LIKE pattern 'a\b': the escape character is not allowed to precede 'b'`},
		{"name LIKE other ESCAPE 'ab'", "1:24: ESCAPE takes a string of one character"},
		{"name LIKE 3", "1:11: the pattern of LIKE must be a string, found 3"},
		{"name LIKE 'a' ESCAPE 'ab'", "1:22: ESCAPE takes a string of one character"},
		{"name LIKE ANY ('a%')", "1:11: LIKE ANY (…) is not supported yet"},
		{"window.)", "1:8: expected a field name after '.', found ')'"},
		{"to_json(name)", "1:1: function to_json is not supported yet"},
		{"lower(name, 2)", "1:1: lower takes 1 argument, got 2"},
		{"first(x) FILTER (WHERE b)", "1:10: FILTER after first is not supported"},
		{"count(*) OVER (PARTITION BY a)", "1:10: OVER after an aggregate (a window function) is not supported on streams"},
		{"sum(x) FILTER (b)", "1:16: expected WHERE, found 'b'"},
		{"trim(BOTH 'x' name)", "1:15: expected FROM, found 'name'"},
		{"trim(LEADING FROM )", "1:19: unexpected ')'"},
		{"substring(name FROM 2 FOR)", "1:26: unexpected ')'"},
		{"position('a' IN name, 2)", "1:21: expected ')', found ','"},
		{"summ(x)", `1:1: unknown function summ (did you mean "sum"?)`},
		{"a || b", "1:3: operator || is not supported yet"},
		{"a <=> b", "1:3: operator <=> is not supported yet"},
		{"a DIV b", "1:3: operator DIV is not supported yet"},
		{"window(ts, '10 parsecs')", "1:12: cannot parse '10 parsecs' as a duration"},
		{"window(ts, '1 month')", "cannot parse '1 month' as a duration"},
		{"window(ts)", "1:1: window takes a time column, a duration"},
		{"x IN (SELECT 1)", "1:7: IN (subquery) is not supported yet"},
		{"a AS", "1:5: expected an alias after AS, found end of input"},
		{"a AS (b, c)", "1:6: multiple aliases"},
		{"a IS 3", "1:6: expected NULL after IS, found '3'"},
		{"a IS TRUE", "1:6: IS [NOT] TRUE is not supported yet"},
		{"sum(DISTINCT x)", "1:5: sum(DISTINCT …) is not supported yet"},
		{"TIMESTAMP 'yesterday'", "1:11: cannot parse 'yesterday' as a TIMESTAMP"},
		{"DATE '2024-02-30'", "1:6: cannot parse '2024-02-30' as a DATE"},
		{"1.5BD", "1:1: literal 1.5BD: its type (DECIMAL) is not supported yet"},
		{"*", "1:1: * is not an expression here"},
		{"/* open", "1:1: unterminated comment"},
		{"a AND", "1:6: unexpected end of input"},
		{"\tx )", "1:4: unexpected ')'\n \tx )\n \t  ^"},
		{"'é' )", "1:5: unexpected ')'"},
		{strings.Repeat("(", 500) + "1", "nested too deeply"},
		{strings.Repeat("- ", 500) + "1", "nested too deeply"},
		{strings.Repeat("NOT ", 500) + "1", "nested too deeply"},
	} {
		_, err := ParseExpr(c.in)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.in, c.want)
			continue
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: error %T is not *sql.Error", c.in, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", c.in, err.Error(), c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10 seconds":          10 * time.Second,
		"1 second":            time.Second,
		"interval 2 minutes":  2 * time.Minute,
		"1 hour 30 minutes":   90 * time.Minute,
		"1 day":               24 * time.Hour,
		"1 week":              7 * 24 * time.Hour,
		"500 milliseconds":    500 * time.Millisecond,
		"10 ms":               10 * time.Millisecond,
		"3 microseconds":      3 * time.Microsecond,
		"  5   MINUTES  ":     5 * time.Minute,
		"0 seconds":           0,
		"99999999999999 week": -1,
		"1 month":             -1,
		"seconds":             -1,
		"-1 seconds":          -1,
		"":                    -1,
	} {
		got, ok := parseDuration(in)
		if want < 0 {
			if ok {
				t.Errorf("%q: got %s, want an error", in, got)
			}
			continue
		}
		if !ok || got != want {
			t.Errorf("%q: got %s %v, want %s", in, got, ok, want)
		}
	}
}
