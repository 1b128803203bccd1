package testutil

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Rows converts a record to Go values: int64, int32, float64, string, bool,
// []byte, timestamps as int64 microseconds, dates as arrow.Date32, lists
// and structs as []any, nulls as nil.
func Rows(rec arrow.RecordBatch) [][]any {
	n := int(rec.NumRows())
	out := make([][]any, n)
	for i := range out {
		out[i] = make([]any, rec.NumCols())
	}
	for c := 0; c < int(rec.NumCols()); c++ {
		col := rec.Column(c)
		for i := 0; i < n; i++ {
			out[i][c] = Value(col, i)
		}
	}
	return out
}

// Value returns row i of a as a Go value (see Rows).
func Value(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return strings.Clone(a.Value(i)) // Value points into the buffer, which may be reused
	case *array.Boolean:
		return a.Value(i)
	case *array.Binary:
		return append([]byte(nil), a.Value(i)...)
	case *array.Timestamp:
		return int64(a.Value(i))
	case *array.Date32:
		return a.Value(i)
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		vals := make([]any, 0, hi-lo)
		for j := lo; j < hi; j++ {
			vals = append(vals, Value(a.ListValues(), int(j)))
		}
		return vals
	case *array.Struct:
		vals := make([]any, a.NumField())
		for f := range vals {
			vals[f] = Value(a.Field(f), i)
		}
		return vals
	}
	return fmt.Sprintf("<%s>", a.DataType())
}

// Key renders a row as a comparable string; floats are rounded to 9
// significant digits so that summation order does not matter.
func Key(row []any) string {
	parts := make([]string, len(row))
	for i, v := range row {
		switch v := v.(type) {
		case float64:
			parts[i] = fmt.Sprintf("%.9g", v)
		case []any:
			parts[i] = Key(v)
		case nil:
			parts[i] = "NULL"
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// SortedKeys renders rows with Key and sorts them.
func SortedKeys(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = Key(r)
	}
	sort.Strings(out)
	return out
}

// WindowCounts renders a count per window start as sorted "15:04:05=n"
// strings, for comparing two such maps.
func WindowCounts(m map[time.Time]int64) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%d", k.Format("15:04:05"), v))
	}
	sort.Strings(out)
	return out
}

// Diff compares two row sets as sorted multisets and describes the first
// differences, or returns "".
func Diff(got, want [][]any) string {
	g, w := SortedKeys(got), SortedKeys(want)
	var b strings.Builder
	i, j, shown := 0, 0, 0
	for (i < len(g) || j < len(w)) && shown < 10 {
		switch {
		case j >= len(w) || (i < len(g) && g[i] < w[j]):
			fmt.Fprintf(&b, "  unexpected %s\n", g[i])
			i++
			shown++
		case i >= len(g) || w[j] < g[i]:
			fmt.Fprintf(&b, "  missing    %s\n", w[j])
			j++
			shown++
		default:
			i++
			j++
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("got %d rows, want %d:\n%s", len(g), len(w), b.String())
}
