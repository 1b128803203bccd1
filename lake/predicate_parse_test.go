package lake

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

func TestParsePredicate(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}},
	}, nil)
	for expr, want := range map[string]Predicate{
		"id > 6":                      {Column: "id", Op: OpGt, Value: int64(6)},
		"id <= 2.5":                   {Column: "id", Op: OpLe, Value: 2.5},
		"`name` != 'bob'":             {Column: "name", Op: OpNe, Value: "bob"},
		"name <> bob":                 {Column: "name", Op: OpNe, Value: "bob"},
		"ok == true":                  {Column: "ok", Op: OpEq, Value: true},
		"name IS NULL":                {Column: "name", Op: OpIsNull},
		"name is not null":            {Column: "name", Op: OpIsNotNull},
		"ts >= 2024-05-01 12:00:00":   {Column: "ts", Op: OpGe, Value: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)},
		"d < 2024-05-01":              {Column: "d", Op: OpLt, Value: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)},
		"amount = 580.70":             {Column: "amount", Op: OpEq, Value: "580.70"},
		"ts = '2024-05-01T12:00:00Z'": {Column: "ts", Op: OpEq, Value: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)},
	} {
		got, err := ParsePredicate(expr, sc)
		if err != nil {
			t.Errorf("%s: %v", expr, err)
			continue
		}
		if tv, ok := want.Value.(time.Time); ok {
			if gv, ok := got.Value.(time.Time); !ok || !gv.Equal(tv) {
				t.Errorf("%s: %+v, want %+v", expr, got, want)
			}
			got.Value, want.Value = nil, nil
		}
		if got != want {
			t.Errorf("%s: %+v, want %+v", expr, got, want)
		}
	}
	if p, err := ParsePredicate("x = NaN", sc); err != nil || !math.IsNaN(p.Value.(float64)) {
		t.Errorf("x = NaN: %+v %v", p, err)
	}
	for expr, frag := range map[string]string{
		"nope = 1":     `no column "nope"`,
		"id = abc":     "not a number",
		"id ~ 1":       `want "column op value"`,
		"amount = abc": "not a decimal",
		"ok = maybe":   "not true or false",
	} {
		if _, err := ParsePredicate(expr, sc); err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: %v, want %q", expr, err, frag)
		}
	}
}

// != prunes partitions (null partitions never match) and never files by
// stats.
func TestNotEqualPrunesPartitionsOnly(t *testing.T) {
	p := Predicate{Column: "part", Op: OpNe, Value: "a"}
	for pv, want := range map[string]bool{"a": false, "b": true, "": false} {
		if got, err := partitionMatches(arrow.BinaryTypes.String, pv, p); err != nil || got != want {
			t.Errorf("partition %q: %v %v, want %v", pv, got, err, want)
		}
	}
	n := int64(3)
	st := &fileStatsJSON{NumRecords: &n}
	if !statsMayMatch(arrow.BinaryTypes.String, st, p) {
		t.Error("stats pruned a file for !=")
	}
}
