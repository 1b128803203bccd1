package columnar

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Timestamp is the Arrow type of every event-time column: microseconds, UTC.
var Timestamp = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// FieldIndex returns the index of the field called name, or an error that
// lists the fields the schema has.
func FieldIndex(s *arrow.Schema, name string) (int, error) {
	idx := s.FieldIndices(name)
	switch len(idx) {
	case 1:
		return idx[0], nil
	case 0:
		return -1, fmt.Errorf("column %q not found; the input has %s", name, FieldNames(s))
	default:
		return -1, fmt.Errorf("column %q is ambiguous: %d fields have that name", name, len(idx))
	}
}

// FieldNames renders the schema's field names as "[a, b, c]".
func FieldNames(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// IsTimestamp reports whether t is an Arrow timestamp of any unit.
func IsTimestamp(t arrow.DataType) bool { return t.ID() == arrow.TIMESTAMP }

// UnitsPerSecond returns the ticks of unit in one second (1 for seconds,
// 1e9 for nanoseconds): the one table of Arrow time units every conversion
// (casts, Parquet reads, text decoding) uses.
func UnitsPerSecond(unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1_000
	case arrow.Microsecond:
		return 1_000_000
	default:
		return 1_000_000_000
	}
}

// TypeName renders an Arrow type the way error messages show it.
func TypeName(t arrow.DataType) string {
	if t == nil {
		return "null"
	}
	if ts, ok := t.(*arrow.TimestampType); ok {
		return "timestamp[" + ts.Unit.String() + "]"
	}
	return t.String()
}

// SparkTypeName names an Arrow type as Spark SQL does (its simpleString:
// int, bigint, string, array<int>, struct<a:int,b:string>, void), for
// messages about columns declared with Spark's names and for comparing
// with Spark's results; a type Spark has no name for is TypeName's.
func SparkTypeName(t arrow.DataType) string {
	if t == nil {
		return TypeName(t)
	}
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return "string"
	case arrow.BINARY, arrow.LARGE_BINARY:
		return "binary"
	case arrow.INT32:
		return "int"
	case arrow.INT64:
		return "bigint"
	case arrow.FLOAT32:
		return "float"
	case arrow.FLOAT64:
		return "double"
	case arrow.BOOL:
		return "boolean"
	case arrow.TIMESTAMP:
		return "timestamp"
	case arrow.DATE32:
		return "date"
	case arrow.NULL:
		return "void"
	case arrow.LIST:
		return "array<" + SparkTypeName(t.(*arrow.ListType).Elem()) + ">"
	case arrow.STRUCT:
		fs := t.(*arrow.StructType).Fields()
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = f.Name + ":" + SparkTypeName(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	}
	return TypeName(t)
}
