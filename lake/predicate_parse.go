package lake

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

var (
	predNull = regexp.MustCompile(`(?i)^\s*(\S+)\s+is\s+(not\s+)?null\s*$`)
	predCmp  = regexp.MustCompile(`^\s*([^\s<>=!]+)\s*(<=|>=|!=|<>|==|=|<|>)\s*(.*?)\s*$`)
)

// ParsePredicate parses "column op value" (op one of = == != <> < <= > >=)
// or "column IS [NOT] NULL" against schema, giving Value the type the
// column's comparisons take: int64 (or float64 for a fraction) for integer
// columns, float64 (NaN, Inf included), string (quotes '…' or "…"
// stripped), bool, time.Time for timestamps (RFC 3339 or "2006-01-02
// 15:04:05[.f]", UTC unless an offset is given) and dates (2006-01-02), and
// the literal's text for decimals (compared exactly). The column may be in
// backquotes. It is the one parser of such filters: millrace delta read
// --where uses it.
func ParsePredicate(expr string, schema *arrow.Schema) (Predicate, error) {
	bad := func(format string, a ...any) (Predicate, error) {
		return Predicate{}, fmt.Errorf("predicate %q: %s", expr, fmt.Sprintf(format, a...))
	}
	var p Predicate
	var raw, op string
	if m := predNull.FindStringSubmatch(expr); m != nil {
		p.Column, p.Op = strings.Trim(m[1], "`"), OpIsNull
		if m[2] != "" {
			p.Op = OpIsNotNull
		}
	} else if m := predCmp.FindStringSubmatch(expr); m != nil {
		p.Column, op, raw = strings.Trim(m[1], "`"), m[2], m[3]
	} else {
		return bad(`want "column op value" with op one of = != < <= > >=, or "column IS [NOT] NULL"`)
	}
	idx := schema.FieldIndices(p.Column)
	if len(idx) == 0 {
		names := make([]string, schema.NumFields())
		for i, f := range schema.Fields() {
			names[i] = f.Name
		}
		return bad("no column %q (columns: %s)", p.Column, strings.Join(names, ", "))
	}
	if op == "" {
		return p, nil
	}
	p.Op = map[string]Op{"=": OpEq, "==": OpEq, "!=": OpNe, "<>": OpNe, "<": OpLt, "<=": OpLe, ">": OpGt, ">=": OpGe}[op]
	if len(raw) >= 2 && (raw[0] == '\'' || raw[0] == '"') && raw[len(raw)-1] == raw[0] {
		raw = raw[1 : len(raw)-1]
	}
	dt := schema.Field(idx[0]).Type
	switch dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
			p.Value = i
		} else if x, err := strconv.ParseFloat(raw, 64); err == nil {
			p.Value = x
		} else {
			return bad("%q is not a number (column %s is %s)", raw, p.Column, dt)
		}
	case *arrow.Float32Type, *arrow.Float64Type:
		x, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return bad("%q is not a number (column %s is %s)", raw, p.Column, dt)
		}
		p.Value = x
	case *arrow.StringType:
		p.Value = raw
	case *arrow.BooleanType:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return bad("%q is not true or false", raw)
		}
		p.Value = b
	case *arrow.TimestampType:
		t, ok := parsePredicateTime(raw)
		if !ok {
			return bad("%q is not a timestamp (RFC 3339 or 2006-01-02 15:04:05)", raw)
		}
		p.Value = t
	case *arrow.Date32Type:
		d, err := time.Parse(time.DateOnly, raw)
		if err != nil {
			return bad("%q is not a date (2006-01-02)", raw)
		}
		p.Value = d
	case *arrow.Decimal128Type:
		if _, ok := new(big.Rat).SetString(raw); !ok {
			return bad("%q is not a decimal number (column %s is %s)", raw, p.Column, dt)
		}
		p.Value = raw
	default:
		return bad("filtering a column of type %s is not supported", dt)
	}
	return p, nil
}

func parsePredicateTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
