package lake

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Op is the comparison of a Predicate.
type Op int

// Comparison operators of predicates.
const (
	OpEq Op = iota
	OpLt
	OpLe
	OpGt
	OpGe
	OpIsNull
	OpIsNotNull
	// OpNe (!=) prunes partitions only: a file's min and max cannot show
	// that all its rows equal the literal (maxes may be rounded up).
	OpNe
)

func (o Op) String() string {
	return [...]string{"=", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL", "!="}[o]
}

// Predicate is a simple filter "column op literal" used to prune partitions
// and skip files by their stats. Value is an int, int64, float64, string,
// bool or time.Time (ignored for OpIsNull/OpIsNotNull); for a decimal
// column a decimal string ("580.70") or *big.Rat. Comparisons follow
// Spark: NaN equals NaN and is above every other float.
type Predicate struct {
	Column string
	Op     Op
	Value  any
}

func (p Predicate) String() string {
	if p.Op == OpIsNull || p.Op == OpIsNotNull {
		return p.Column + " " + p.Op.String()
	}
	return fmt.Sprintf("%s %s %v", p.Column, p.Op, p.Value)
}

// fileStatsJSON is the parsed stats string of an add action.
type fileStatsJSON struct {
	NumRecords *int64                     `json:"numRecords"`
	MinValues  map[string]json.RawMessage `json:"minValues"`
	MaxValues  map[string]json.RawMessage `json:"maxValues"`
	NullCount  map[string]json.RawMessage `json:"nullCount"`
}

func parseStats(s string) (*fileStatsJSON, error) {
	if s == "" {
		return nil, nil
	}
	var st fileStatsJSON
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return nil, fmt.Errorf("lake: bad stats %q: %w", s, err)
	}
	return &st, nil
}

// cmpValue is a literal or stats value normalised for comparison with a
// column of one type: integers (incl. dates in days and timestamps in
// microseconds), floats, decimals, strings or booleans.
type cmpValue struct {
	kind byte // 'i', 'f', 'd', 's', 'b'
	i    int64
	f    float64
	d    *big.Rat
	s    string
}

// compare orders a and b the way Spark does: floats with NaN equal to NaN
// and above every other value, -0 equal to 0; integers, floats and
// decimals compare by value; strings by UTF-8 bytes; false before true.
func compare(a, b cmpValue) int {
	switch {
	case a.kind == 'i' && b.kind == 'i', a.kind == 'b' && b.kind == 'b':
		return cmpOrdered(a.i, b.i)
	case a.kind == 's' && b.kind == 's':
		return strings.Compare(a.s, b.s)
	case a.kind == 'f' || b.kind == 'f':
		if a.kind == 'f' && b.kind == 'f' || !finite(a) || !finite(b) {
			return cmpFloat(a.float(), b.float())
		}
	}
	return a.rat().Cmp(b.rat())
}

// orderable reports whether compare can order a and b: numbers with
// numbers, strings with strings, booleans with booleans.
func orderable(a, b cmpValue) bool {
	num := func(k byte) bool { return k == 'i' || k == 'f' || k == 'd' }
	return a.kind == b.kind || num(a.kind) && num(b.kind)
}

func finite(v cmpValue) bool {
	return v.kind != 'f' || !math.IsNaN(v.f) && !math.IsInf(v.f, 0)
}

func (v cmpValue) float() float64 {
	switch v.kind {
	case 'i', 'b':
		return float64(v.i)
	case 'd':
		f, _ := v.d.Float64()
		return f
	}
	return v.f
}

// rat is the exact value of a finite number.
func (v cmpValue) rat() *big.Rat {
	switch v.kind {
	case 'i', 'b':
		return new(big.Rat).SetInt64(v.i)
	case 'f':
		return new(big.Rat).SetFloat64(v.f)
	}
	return v.d
}

// cmpFloat is Spark's order of doubles (SQLOrderingUtil.compareDoubles).
func cmpFloat(a, b float64) int {
	switch an, bn := math.IsNaN(a), math.IsNaN(b); {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmpOrdered(a, b)
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// literal normalises a predicate value for a column of type dt.
func literal(dt arrow.DataType, v any) (cmpValue, error) {
	if _, ok := dt.(*arrow.Decimal128Type); ok {
		return decimalLiteral(v)
	}
	switch x := v.(type) {
	case int:
		return cmpValue{kind: 'i', i: int64(x)}, nil
	case int32:
		return cmpValue{kind: 'i', i: int64(x)}, nil
	case int64:
		return cmpValue{kind: 'i', i: x}, nil
	case float64:
		return cmpValue{kind: 'f', f: x}, nil
	case float32:
		return cmpValue{kind: 'f', f: float64(x)}, nil
	case *big.Rat:
		return cmpValue{kind: 'd', d: x}, nil
	case string:
		switch dt.(type) {
		case *arrow.Date32Type, *arrow.TimestampType:
			t, err := parsePartitionTime(x)
			if err != nil {
				return cmpValue{}, err
			}
			return literal(dt, t)
		}
		return cmpValue{kind: 's', s: x}, nil
	case bool:
		if x {
			return cmpValue{kind: 'b', i: 1}, nil
		}
		return cmpValue{kind: 'b'}, nil
	case time.Time:
		switch dt.(type) {
		case *arrow.Date32Type:
			return cmpValue{kind: 'i', i: int64(arrow.Date32FromTime(x))}, nil
		default:
			return cmpValue{kind: 'i', i: x.UnixMicro()}, nil
		}
	}
	return cmpValue{}, fmt.Errorf("lake: predicate literal %v of type %T is not supported", v, v)
}

// decimalLiteral reads a decimal column's literal: a decimal string such
// as "580.70" or "1E-18", a *big.Rat, an integer or a float.
func decimalLiteral(v any) (cmpValue, error) {
	switch x := v.(type) {
	case string:
		r, ok := parseRat(strings.TrimSpace(x))
		if !ok {
			return cmpValue{}, fmt.Errorf("lake: predicate literal %q is not a decimal number", x)
		}
		return cmpValue{kind: 'd', d: r}, nil
	case *big.Rat:
		return cmpValue{kind: 'd', d: x}, nil
	case decimal128.Num:
		return cmpValue{}, fmt.Errorf("lake: a decimal128.Num literal needs its scale: pass a string or *big.Rat")
	case int:
		return cmpValue{kind: 'i', i: int64(x)}, nil
	case int64:
		return cmpValue{kind: 'i', i: x}, nil
	case float64:
		return cmpValue{kind: 'f', f: x}, nil
	}
	return cmpValue{}, fmt.Errorf("lake: predicate literal %v of type %T is not supported for a decimal column", v, v)
}

// statsFloat reads a float min/max: a JSON number, or one of the strings
// Spark's JSON reader takes for non-finite values.
func statsFloatValue(raw json.RawMessage) (float64, bool) {
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		switch s {
		case "NaN", "+NaN", "-NaN":
			return math.NaN(), true
		case "Infinity", "+Infinity", "INF", "+INF":
			return math.Inf(1), true
		case "-Infinity", "-INF":
			return math.Inf(-1), true
		}
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// statsTimeLayouts are the forms of timestamp stats: Spark writes
// milliseconds with the session time zone's offset (timestamp) or without
// one (timestamp_ntz).
var statsTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"}

// Widening of timestamp stats, as delta-spark's reader does: the JSON
// cuts timestamps to milliseconds, and Delta Spark 3.2/3.3 cut time zone
// offsets to minutes (delta-io/delta#5249), so min may be up to 59 s late
// and max up to 59.001 s early.
const (
	statsTimestampMinSlack = 59 * time.Second
	statsTimestampMaxSlack = 59*time.Second + time.Millisecond
)

// statValue parses a min (isMax false) or max stats value of a column of
// type dt, widened where the stats are rounded.
func statValue(dt arrow.DataType, raw json.RawMessage, isMax bool) (cmpValue, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return cmpValue{}, false
	}
	switch dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		return cmpValue{kind: 'i', i: i}, err == nil
	case *arrow.Float32Type, *arrow.Float64Type:
		f, ok := statsFloatValue(raw)
		return cmpValue{kind: 'f', f: f}, ok
	case *arrow.Decimal128Type:
		r, ok := parseRat(string(raw))
		return cmpValue{kind: 'd', d: r}, ok
	case *arrow.BooleanType:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return cmpValue{}, false
		}
		v := cmpValue{kind: 'b'}
		if b {
			v.i = 1
		}
		return v, true
	case *arrow.StringType:
		var s string
		err := json.Unmarshal(raw, &s)
		return cmpValue{kind: 's', s: s}, err == nil
	case *arrow.Date32Type:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return cmpValue{}, false
		}
		d, err := time.Parse("2006-01-02", s)
		return cmpValue{kind: 'i', i: int64(arrow.Date32FromTime(d))}, err == nil
	case *arrow.TimestampType:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return cmpValue{}, false
		}
		for _, layout := range statsTimeLayouts {
			if ts, err := time.Parse(layout, s); err == nil {
				if isMax {
					ts = ts.Add(statsTimestampMaxSlack)
				} else {
					ts = ts.Add(-statsTimestampMinSlack)
				}
				return cmpValue{kind: 'i', i: ts.UnixMicro()}, true
			}
		}
	}
	return cmpValue{}, false
}

// mayMatch reports whether file f can hold rows matching all preds. A
// predicate on an unknown column or without usable stats keeps the file.
func mayMatch(schema *arrow.Schema, partCols []string, f *AddFile, preds []Predicate) (bool, error) {
	var st *fileStatsJSON
	statsParsed := false
	for _, p := range preds {
		idx := schema.FieldIndices(p.Column)
		if len(idx) != 1 {
			return false, fmt.Errorf("lake: predicate %s: column %q not in table schema", p, p.Column)
		}
		dt := schema.Field(idx[0]).Type
		isPart := false
		for _, c := range partCols {
			if c == p.Column {
				isPart = true
			}
		}
		if isPart {
			ok, err := partitionMatches(dt, f.PartitionValues[p.Column], p)
			if err != nil || !ok {
				return false, err
			}
			continue
		}
		if !statsParsed {
			st, _ = parseStats(f.Stats)
			statsParsed = true
		}
		if st == nil {
			continue
		}
		if !statsMayMatch(dt, st, p) {
			return false, nil
		}
	}
	return true, nil
}

func partitionMatches(dt arrow.DataType, pv string, p Predicate) (bool, error) {
	switch p.Op {
	case OpIsNull:
		return pv == "", nil
	case OpIsNotNull:
		return pv != "", nil
	}
	if pv == "" {
		return false, nil // null never compares true
	}
	lit, err := literal(dt, p.Value)
	if err != nil {
		return false, err
	}
	var val cmpValue
	switch dt.(type) {
	case *arrow.StringType:
		val = cmpValue{kind: 's', s: pv}
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		i, err := strconv.ParseInt(pv, 10, 64)
		if err != nil {
			return true, nil
		}
		val = cmpValue{kind: 'i', i: i}
	case *arrow.Float32Type, *arrow.Float64Type:
		f, err := parseFloat(pv, 64)
		if err != nil {
			return true, nil
		}
		val = cmpValue{kind: 'f', f: f}
	case *arrow.BooleanType:
		val = cmpValue{kind: 'b'}
		if pv == "true" {
			val.i = 1
		}
	case *arrow.Date32Type, *arrow.TimestampType:
		t, err := parsePartitionTime(pv)
		if err != nil {
			return true, nil
		}
		val, _ = literal(dt, t)
	case *arrow.Decimal128Type:
		r, ok := parseRat(pv)
		if !ok {
			return true, nil
		}
		val = cmpValue{kind: 'd', d: r}
	default:
		return true, nil // cannot tell: keep the file
	}
	if !orderable(val, lit) {
		return true, nil // a literal of another type: cannot tell
	}
	c := compare(val, lit)
	switch p.Op {
	case OpEq:
		return c == 0, nil
	case OpNe:
		return c != 0, nil
	case OpLt:
		return c < 0, nil
	case OpLe:
		return c <= 0, nil
	case OpGt:
		return c > 0, nil
	case OpGe:
		return c >= 0, nil
	}
	return true, nil
}

func statsMayMatch(dt arrow.DataType, st *fileStatsJSON, p Predicate) bool {
	nulls := int64(-1)
	if raw, ok := st.NullCount[p.Column]; ok {
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			nulls = n
		}
	}
	switch p.Op {
	case OpIsNull:
		return nulls != 0
	case OpIsNotNull:
		return st.NumRecords == nil || nulls < 0 || nulls < *st.NumRecords
	}
	if st.NumRecords != nil && nulls == *st.NumRecords {
		return false // all null: no comparison is true
	}
	lit, err := literal(dt, p.Value)
	if err != nil {
		return true
	}
	lo, okLo := statValue(dt, st.MinValues[p.Column], false)
	hi, okHi := statValue(dt, st.MaxValues[p.Column], true)
	if okLo && !orderable(lo, lit) || okHi && !orderable(hi, lit) {
		return true // a literal of another type: cannot tell
	}
	switch p.Op {
	case OpEq:
		return !(okLo && compare(lit, lo) < 0) && !(okHi && compare(lit, hi) > 0)
	case OpLt:
		return !okLo || compare(lo, lit) < 0
	case OpLe:
		return !okLo || compare(lo, lit) <= 0
	case OpGt:
		return !okHi || compare(hi, lit) > 0
	case OpGe:
		return !okHi || compare(hi, lit) >= 0
	}
	return true
}
