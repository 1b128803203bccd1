package console

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// formatCell renders row i of col the way Spark's show() does.
func formatCell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	switch a := col.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Timestamp:
		t := a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
		return t.Format("2006-01-02 15:04:05.999999")
	case *array.Date32:
		return a.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Float64:
		return formatFloat(a.Value(i), 64)
	case *array.Float32:
		return formatFloat(float64(a.Value(i)), 32)
	case *array.Binary:
		v := a.Value(i)
		parts := make([]string, len(v))
		for j, c := range v {
			parts[j] = strings.ToUpper(hex.EncodeToString([]byte{c}))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *array.Struct:
		// Spark prints a struct as {field1, field2, ...} in field order.
		parts := make([]string, a.NumField())
		for f := range parts {
			parts[f] = formatCell(a.Field(f), i)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return col.ValueStr(i)
}

// formatFloat prints like Java's Double.toString for common values: an
// integral value keeps ".0", large and small magnitudes use an exponent.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-3 || abs >= 1e7) {
		s := strconv.FormatFloat(f, 'E', -1, bits)
		mant, exp, _ := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") {
			mant += ".0"
		}
		n, _ := strconv.Atoi(exp) // "+07" → 7, "-05" → -5
		return mant + "E" + strconv.Itoa(n)
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
