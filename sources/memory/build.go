package memory

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// BuildRecord builds a record of schema from rows of Go values, one value
// per field in schema order; nil is null. Accepted values per column type:
//
//	bool                      bool
//	int8…int64, uint8…uint64  any Go integer type (range-checked)
//	float32, float64          any Go float or integer type
//	string                    string, []byte
//	binary                    []byte, string
//	timestamp                 time.Time, or an integer in the column's unit
//	                          (microseconds for columnar.Timestamp)
//	date32                    time.Time (its UTC date), or an integer day count
//
// It is meant for tests and notebooks: it converts one value at a time. A
// nil mem means memory.DefaultAllocator.
func BuildRecord(mem memory.Allocator, schema *arrow.Schema, rows [][]any) (arrow.RecordBatch, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if schema == nil {
		return nil, fmt.Errorf("memory source: BuildRecord needs a schema")
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for r, row := range rows {
		if len(row) != schema.NumFields() {
			return nil, fmt.Errorf("memory source: row %d has %d values, the schema %s has %d fields",
				r, len(row), columnar.FieldNames(schema), schema.NumFields())
		}
		for c, v := range row {
			if err := appendValue(b.Field(c), v); err != nil {
				return nil, fmt.Errorf("memory source: row %d field %s: %w", r, schema.Field(c).Name, err)
			}
		}
	}
	return b.NewRecordBatch(), nil
}

func appendValue(b array.Builder, v any) error {
	if v == nil {
		b.AppendNull()
		return nil
	}
	switch b := b.(type) {
	case *array.BooleanBuilder:
		x, ok := v.(bool)
		if !ok {
			return mismatch(v, b.Type())
		}
		b.Append(x)
	case *array.Int8Builder:
		x, err := toInt(v, math.MinInt8, math.MaxInt8, b.Type())
		b.Append(int8(x))
		return err
	case *array.Int16Builder:
		x, err := toInt(v, math.MinInt16, math.MaxInt16, b.Type())
		b.Append(int16(x))
		return err
	case *array.Int32Builder:
		x, err := toInt(v, math.MinInt32, math.MaxInt32, b.Type())
		b.Append(int32(x))
		return err
	case *array.Int64Builder:
		x, err := toInt(v, math.MinInt64, math.MaxInt64, b.Type())
		b.Append(x)
		return err
	case *array.Uint8Builder:
		x, err := toInt(v, 0, math.MaxUint8, b.Type())
		b.Append(uint8(x))
		return err
	case *array.Uint16Builder:
		x, err := toInt(v, 0, math.MaxUint16, b.Type())
		b.Append(uint16(x))
		return err
	case *array.Uint32Builder:
		x, err := toInt(v, 0, math.MaxUint32, b.Type())
		b.Append(uint32(x))
		return err
	case *array.Uint64Builder:
		if u, ok := v.(uint64); ok {
			b.Append(u)
			return nil
		}
		x, err := toInt(v, 0, math.MaxInt64, b.Type())
		b.Append(uint64(x))
		return err
	case *array.Float32Builder:
		x, err := toFloat(v, b.Type())
		b.Append(float32(x))
		return err
	case *array.Float64Builder:
		x, err := toFloat(v, b.Type())
		b.Append(x)
		return err
	case *array.StringBuilder:
		switch x := v.(type) {
		case string:
			b.Append(x)
		case []byte:
			b.BinaryBuilder.Append(x)
		default:
			return mismatch(v, b.Type())
		}
	case *array.BinaryBuilder:
		switch x := v.(type) {
		case []byte:
			b.Append(x)
		case string:
			b.AppendString(x)
		default:
			return mismatch(v, b.Type())
		}
	case *array.TimestampBuilder:
		unit := b.Type().(*arrow.TimestampType).Unit
		if t, ok := v.(time.Time); ok {
			ts, err := arrow.TimestampFromTime(t, unit)
			if err != nil {
				return err
			}
			b.Append(ts)
			return nil
		}
		x, err := toInt(v, math.MinInt64, math.MaxInt64, b.Type())
		b.Append(arrow.Timestamp(x))
		return err
	case *array.Date32Builder:
		if t, ok := v.(time.Time); ok {
			b.Append(arrow.Date32FromTime(t.UTC()))
			return nil
		}
		x, err := toInt(v, math.MinInt32, math.MaxInt32, b.Type())
		b.Append(arrow.Date32(x))
		return err
	default:
		return fmt.Errorf("column type %s is not supported by BuildRecord", columnar.TypeName(b.Type()))
	}
	return nil
}

func mismatch(v any, t arrow.DataType) error {
	return fmt.Errorf("cannot use %v (%T) as %s", v, v, columnar.TypeName(t))
}

func toInt(v any, lo, hi int64, t arrow.DataType) (int64, error) {
	var x int64
	switch n := v.(type) {
	case int:
		x = int64(n)
	case int8:
		x = int64(n)
	case int16:
		x = int64(n)
	case int32:
		x = int64(n)
	case int64:
		x = n
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, fmt.Errorf("%d is out of range for %s", n, columnar.TypeName(t))
		}
		x = int64(n)
	case uint8:
		x = int64(n)
	case uint16:
		x = int64(n)
	case uint32:
		x = int64(n)
	case uint64:
		if n > math.MaxInt64 {
			return 0, fmt.Errorf("%d is out of range for %s", n, columnar.TypeName(t))
		}
		x = int64(n)
	default:
		return 0, mismatch(v, t)
	}
	if x < lo || x > hi {
		return 0, fmt.Errorf("%d is out of range for %s", x, columnar.TypeName(t))
	}
	return x, nil
}

func toFloat(v any, t arrow.DataType) (float64, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	}
	x, err := toInt(v, math.MinInt64, math.MaxInt64, t)
	return float64(x), err
}
