package columnar

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestSparkTypeName checks Spark's simpleString names, nested types too.
func TestSparkTypeName(t *testing.T) {
	for _, c := range []struct {
		t    arrow.DataType
		want string
	}{
		{arrow.BinaryTypes.String, "string"},
		{arrow.PrimitiveTypes.Int32, "int"},
		{arrow.PrimitiveTypes.Int64, "bigint"},
		{arrow.PrimitiveTypes.Float64, "double"},
		{arrow.FixedWidthTypes.Boolean, "boolean"},
		{Timestamp, "timestamp"},
		{arrow.FixedWidthTypes.Date32, "date"},
		{arrow.Null, "void"},
		{arrow.ListOf(arrow.BinaryTypes.String), "array<string>"},
		{arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32}, arrow.Field{Name: "b", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}), "struct<a:int,b:array<bigint>>"},
		{arrow.PrimitiveTypes.Uint8, "uint8"},
	} {
		if got := SparkTypeName(c.t); got != c.want {
			t.Errorf("SparkTypeName(%s) = %q, want %q", c.t, got, c.want)
		}
	}
}
