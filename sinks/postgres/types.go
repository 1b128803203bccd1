package postgres

import (
	"encoding/json"
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgType returns the PostgreSQL type CreateTable gives a column of Arrow
// type dt, or an error for a type the sink cannot write.
func pgType(dt arrow.DataType) (string, error) {
	switch t := dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Uint8Type:
		return "smallint", nil
	case *arrow.Int32Type, *arrow.Uint16Type:
		return "integer", nil
	case *arrow.Int64Type, *arrow.Uint32Type:
		return "bigint", nil
	case *arrow.Uint64Type:
		return "numeric(20,0)", nil
	case *arrow.Float32Type:
		return "real", nil
	case *arrow.Float64Type:
		return "double precision", nil
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return "text", nil
	case *arrow.BooleanType:
		return "boolean", nil
	case *arrow.TimestampType:
		return "timestamptz", nil
	case *arrow.Date32Type, *arrow.Date64Type:
		return "date", nil
	case *arrow.Decimal128Type:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.Decimal256Type:
		return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale), nil
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType, *arrow.BinaryViewType:
		return "bytea", nil
	case *arrow.StructType, *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.MapType:
		return "jsonb", nil
	case *arrow.NullType:
		return "text", nil
	}
	return "", fmt.Errorf("no PostgreSQL type for Arrow type %s (cast it to a string, number or timestamp first)", dt)
}

// compatible lists, per Arrow type, the PostgreSQL types (pg_type.typname)
// the sink writes it to; anything else is a type mismatch found before
// the first row is sent.
func compatible(dt arrow.DataType, typname string) bool {
	ints := map[string]bool{"int2": true, "int4": true, "int8": true, "numeric": true}
	switch dt.(type) {
	case *arrow.Int8Type, *arrow.Int16Type, *arrow.Int32Type, *arrow.Int64Type,
		*arrow.Uint8Type, *arrow.Uint16Type, *arrow.Uint32Type, *arrow.Uint64Type:
		return ints[typname]
	case *arrow.Float32Type, *arrow.Float64Type:
		return typname == "float4" || typname == "float8" || typname == "numeric"
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		return typname == "text" || typname == "varchar" || typname == "bpchar" || typname == "json" || typname == "jsonb"
	case *arrow.BooleanType:
		return typname == "bool"
	case *arrow.TimestampType:
		return typname == "timestamptz" || typname == "timestamp"
	case *arrow.Date32Type, *arrow.Date64Type:
		return typname == "date" || typname == "timestamptz" || typname == "timestamp"
	case *arrow.Decimal128Type, *arrow.Decimal256Type:
		return typname == "numeric"
	case *arrow.BinaryType, *arrow.LargeBinaryType, *arrow.FixedSizeBinaryType, *arrow.BinaryViewType:
		return typname == "bytea"
	case *arrow.StructType, *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType, *arrow.MapType:
		return typname == "jsonb" || typname == "json"
	case *arrow.NullType:
		return true
	}
	return false
}

type valuer[T any] interface {
	arrow.Array
	Value(int) T
}

func plain[T any](a valuer[T]) func(int) any {
	return func(i int) any {
		if a.IsNull(i) {
			return nil
		}
		return a.Value(i)
	}
}

// getter returns a function giving row i of col as the Go value pgx
// encodes into the column's PostgreSQL type (nil for null).
func getter(col arrow.Array) (func(int) any, error) {
	switch c := col.(type) {
	case *array.Int8:
		return plain[int8](c), nil
	case *array.Int16:
		return plain[int16](c), nil
	case *array.Int32:
		return plain[int32](c), nil
	case *array.Int64:
		return plain[int64](c), nil
	case *array.Uint8:
		return plain[uint8](c), nil
	case *array.Uint16:
		return plain[uint16](c), nil
	case *array.Uint32:
		return plain[uint32](c), nil
	case *array.Uint64:
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return pgtype.Numeric{Int: new(big.Int).SetUint64(c.Value(i)), Valid: true}
		}, nil
	case *array.Float32:
		return plain[float32](c), nil
	case *array.Float64:
		return plain[float64](c), nil
	case *array.String:
		return plain[string](c), nil
	case *array.LargeString:
		return plain[string](c), nil
	case *array.StringView:
		return plain[string](c), nil
	case *array.Boolean:
		return plain[bool](c), nil
	case *array.Binary:
		return plain[[]byte](c), nil
	case *array.LargeBinary:
		return plain[[]byte](c), nil
	case *array.BinaryView:
		return plain[[]byte](c), nil
	case *array.FixedSizeBinary:
		return plain[[]byte](c), nil
	case *array.Timestamp:
		unit := c.DataType().(*arrow.TimestampType).Unit
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return c.Value(i).ToTime(unit)
		}, nil
	case *array.Date32:
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return c.Value(i).ToTime()
		}, nil
	case *array.Date64:
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return c.Value(i).ToTime()
		}, nil
	case *array.Decimal128:
		scale := c.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return pgtype.Numeric{Int: c.Value(i).BigInt(), Exp: -scale, Valid: true}
		}, nil
	case *array.Decimal256:
		scale := c.DataType().(*arrow.Decimal256Type).Scale
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			return pgtype.Numeric{Int: c.Value(i).BigInt(), Exp: -scale, Valid: true}
		}, nil
	case *array.Struct, *array.List, *array.LargeList, *array.FixedSizeList, *array.Map:
		return func(i int) any {
			if c.IsNull(i) {
				return nil
			}
			b, err := json.Marshal(c.GetOneForMarshal(i))
			if err != nil {
				return jsonError{err}
			}
			return json.RawMessage(b)
		}, nil
	case *array.Null:
		return func(int) any { return nil }, nil
	}
	_, err := pgType(col.DataType())
	return nil, err
}

// jsonError carries a failed JSON encoding of a nested value to the copy
// source, which fails the batch naming the row.
type jsonError struct{ err error }
