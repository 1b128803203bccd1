package memory

import (
	"bytes"
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// Value returns row i of arr as a Go value (see the package documentation).
func Value(arr arrow.Array, i int) any {
	if arr.IsNull(i) {
		return nil
	}
	switch a := arr.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return a.Value(i)
	case *array.Uint16:
		return a.Value(i)
	case *array.Uint32:
		return a.Value(i)
	case *array.Uint64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.String:
		return strings.Clone(a.Value(i)) // Value points into the record's buffer
	case *array.Binary:
		return bytes.Clone(a.Value(i))
	case *array.Timestamp:
		return a.Value(i).ToTime(a.DataType().(*arrow.TimestampType).Unit).UTC()
	case *array.Date32:
		return a.Value(i).ToTime().UTC()
	}
	return arr.ValueStr(i)
}

// appendValue appends a value produced by Value to b.
func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	ok := true
	switch b := b.(type) {
	case *array.BooleanBuilder:
		var x bool
		x, ok = v.(bool)
		b.Append(x)
	case *array.Int8Builder:
		var x int8
		x, ok = v.(int8)
		b.Append(x)
	case *array.Int16Builder:
		var x int16
		x, ok = v.(int16)
		b.Append(x)
	case *array.Int32Builder:
		var x int32
		x, ok = v.(int32)
		b.Append(x)
	case *array.Int64Builder:
		var x int64
		x, ok = v.(int64)
		b.Append(x)
	case *array.Uint8Builder:
		var x uint8
		x, ok = v.(uint8)
		b.Append(x)
	case *array.Uint16Builder:
		var x uint16
		x, ok = v.(uint16)
		b.Append(x)
	case *array.Uint32Builder:
		var x uint32
		x, ok = v.(uint32)
		b.Append(x)
	case *array.Uint64Builder:
		var x uint64
		x, ok = v.(uint64)
		b.Append(x)
	case *array.Float32Builder:
		var x float32
		x, ok = v.(float32)
		b.Append(x)
	case *array.Float64Builder:
		var x float64
		x, ok = v.(float64)
		b.Append(x)
	case *array.StringBuilder:
		var x string
		x, ok = v.(string)
		b.Append(x)
	case *array.BinaryBuilder:
		var x []byte
		x, ok = v.([]byte)
		b.Append(x)
	case *array.TimestampBuilder:
		var x time.Time
		if x, ok = v.(time.Time); ok {
			ts, err := arrow.TimestampFromTime(x, b.Type().(*arrow.TimestampType).Unit)
			if err != nil {
				return err
			}
			b.Append(ts)
		}
	case *array.Date32Builder:
		var x time.Time
		x, ok = v.(time.Time)
		b.Append(arrow.Date32FromTime(x))
	default:
		return fmt.Errorf("memory sink: cannot rebuild a column of type %s", columnar.TypeName(b.Type()))
	}
	if !ok {
		return fmt.Errorf("memory sink: cannot rebuild %s from %T", columnar.TypeName(b.Type()), v)
	}
	return nil
}

func buildRecord(mem memory.Allocator, schema *arrow.Schema, rows [][]any) (arrow.RecordBatch, error) {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, row := range rows {
		for c, v := range row {
			if err := appendValue(b.Field(c), v); err != nil {
				return nil, fmt.Errorf("column %s: %w", schema.Field(c).Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

// Compare orders two values produced by Value: nil first, then by value for
// values of one type; values of different types order by type name.
func Compare(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case bool:
		if y, ok := b.(bool); ok {
			return cmpBool(x, y)
		}
	case int8:
		if y, ok := b.(int8); ok {
			return cmp.Compare(x, y)
		}
	case int16:
		if y, ok := b.(int16); ok {
			return cmp.Compare(x, y)
		}
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case int:
		if y, ok := b.(int); ok {
			return cmp.Compare(x, y)
		}
	case uint8:
		if y, ok := b.(uint8); ok {
			return cmp.Compare(x, y)
		}
	case uint16:
		if y, ok := b.(uint16); ok {
			return cmp.Compare(x, y)
		}
	case uint32:
		if y, ok := b.(uint32); ok {
			return cmp.Compare(x, y)
		}
	case uint64:
		if y, ok := b.(uint64); ok {
			return cmp.Compare(x, y)
		}
	case float32:
		if y, ok := b.(float32); ok {
			return cmp.Compare(x, y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y)
		}
	case time.Time:
		if y, ok := b.(time.Time); ok {
			return x.Compare(y)
		}
	}
	return cmp.Compare(fmt.Sprintf("%T", a), fmt.Sprintf("%T", b))
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// CompareRows orders rows column by column with Compare.
func CompareRows(a, b []any) int {
	for i := range min(len(a), len(b)) {
		if c := Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
