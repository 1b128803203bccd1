package lake

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
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
)

func (o Op) String() string {
	return [...]string{"=", "<", "<=", ">", ">=", "IS NULL", "IS NOT NULL"}[o]
}

// Predicate is a simple filter "column op literal" used to prune partitions
// and skip files by their stats. Value is an int, int64, float64, string,
// bool or time.Time (ignored for OpIsNull/OpIsNotNull).
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
// microseconds), floats or strings.
type cmpValue struct {
	kind byte // 'i', 'f', 's', 'b'
	i    int64
	f    float64
	s    string
}

func compare(a, b cmpValue) int {
	switch {
	case a.kind == 'i' && b.kind == 'i':
		return cmpOrdered(a.i, b.i)
	case a.kind == 's' && b.kind == 's':
		return strings.Compare(a.s, b.s)
	case a.kind == 'b' && b.kind == 'b':
		return cmpOrdered(a.i, b.i)
	}
	af, bf := a.f, b.f
	if a.kind == 'i' {
		af = float64(a.i)
	}
	if b.kind == 'i' {
		bf = float64(b.i)
	}
	return cmpOrdered(af, bf)
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
	switch x := v.(type) {
	case int:
		return cmpValue{kind: 'i', i: int64(x)}, nil
	case int32:
		return cmpValue{kind: 'i', i: int64(x)}, nil
	case int64:
		return cmpValue{kind: 'i', i: x}, nil
	case float64:
		return cmpValue{kind: 'f', f: x}, nil
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

// statValue parses a min/max stats value of a column of type dt.
func statValue(dt arrow.DataType, raw json.RawMessage) (cmpValue, bool) {
	switch t := dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type:
		i, err := strconv.ParseInt(string(raw), 10, 64)
		return cmpValue{kind: 'i', i: i}, err == nil
	case *arrow.Float32Type, *arrow.Float64Type:
		f, err := strconv.ParseFloat(string(raw), 64)
		return cmpValue{kind: 'f', f: f}, err == nil && !math.IsNaN(f)
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
		_ = t
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return cmpValue{}, false
		}
		ts, err := time.Parse(time.RFC3339Nano, s)
		return cmpValue{kind: 'i', i: ts.UnixMicro()}, err == nil
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
	default:
		return true, nil // cannot tell: keep the file
	}
	c := compare(val, lit)
	switch p.Op {
	case OpEq:
		return c == 0, nil
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
	lo, okLo := statValue(dt, st.MinValues[p.Column])
	hi, okHi := statValue(dt, st.MaxValues[p.Column])
	if _, ok := dt.(*arrow.TimestampType); ok && okHi {
		hi.i += 999 // max is truncated to milliseconds
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
