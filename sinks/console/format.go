package console

import (
	"encoding/hex"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/kernels"
)

// formatCell renders row i of col the way Spark's show() does.
func formatCell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	switch a := col.(type) {
	case *array.String:
		// a copy: the sink prints at commit, after the engine may have
		// released and reused the record's buffers
		return strings.Clone(a.Value(i))
	case *array.Timestamp:
		return string(kernels.AppendSparkTimestamp(nil, int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit))
	case *array.Date32:
		return a.Value(i).ToTime().UTC().Format(time.DateOnly)
	case *array.Float64:
		return string(kernels.AppendJavaDouble(nil, a.Value(i), 64))
	case *array.Float32:
		return string(kernels.AppendJavaDouble(nil, float64(a.Value(i)), 32))
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
