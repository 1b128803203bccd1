package arrowgen

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

// FlatTypes are the types without children: every primitive, string and
// binary (and their large and view variants), fixed-size binary, decimals,
// and the temporal types.
func FlatTypes() []arrow.DataType {
	return []arrow.DataType{
		arrow.Null,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.LargeBinary,
		arrow.BinaryTypes.StringView,
		&arrow.FixedSizeBinaryType{ByteWidth: 5},
		&arrow.Decimal32Type{Precision: 7, Scale: 2}, &arrow.Decimal64Type{Precision: 15, Scale: 3},
		&arrow.Decimal128Type{Precision: 20, Scale: 4}, &arrow.Decimal256Type{Precision: 40, Scale: 5},
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64,
		arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64us,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, arrow.FixedWidthTypes.Timestamp_ns,
		arrow.FixedWidthTypes.Duration_us,
		arrow.FixedWidthTypes.MonthInterval, arrow.FixedWidthTypes.DayTimeInterval, arrow.FixedWidthTypes.MonthDayNanoInterval,
	}
}

// KafkaHeaders is the type of the Kafka source's headers column.
var KafkaHeaders = arrow.ListOf(arrow.StructOf(
	arrow.Field{Name: "key", Type: arrow.BinaryTypes.String},
	arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
))

// NestedTypes are lists, large lists, fixed-size lists, structs, maps,
// dictionaries and an extension type, alone and nested in one another.
func NestedTypes() []arrow.DataType {
	str := arrow.BinaryTypes.String
	i32 := arrow.PrimitiveTypes.Int32
	i64 := arrow.PrimitiveTypes.Int64
	dictStr := &arrow.DictionaryType{IndexType: i32, ValueType: str}
	return []arrow.DataType{
		arrow.ListOf(i64),
		arrow.ListOf(str),
		arrow.LargeListOf(str),
		arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float64),
		arrow.StructOf(
			arrow.Field{Name: "a", Type: i64, Nullable: true},
			arrow.Field{Name: "b", Type: str, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.ListOf(i32), Nullable: true}),
		arrow.MapOf(str, i64),
		dictStr,
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: i64},
		KafkaHeaders,
		arrow.ListOf(arrow.ListOf(i32)),
		arrow.StructOf(
			arrow.Field{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.ListOf(arrow.BinaryTypes.LargeString), Nullable: true}), Nullable: true},
			arrow.Field{Name: "d", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint16, ValueType: str}, Nullable: true}),
		arrow.MapOf(str, arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "amount", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
			arrow.Field{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true}))),
		arrow.LargeListOf(arrow.MapOf(i32, arrow.FixedSizeListOf(2, arrow.FixedWidthTypes.Boolean))),
		arrow.ListOf(dictStr),
		arrow.FixedSizeListOf(2, arrow.StructOf(arrow.Field{Name: "k", Type: str, Nullable: true})),
		extensions.NewUUIDType(),
		arrow.ListOf(extensions.NewUUIDType()),
		arrow.ListOf(arrow.BinaryTypes.StringView),
	}
}

// AllTypes is FlatTypes then NestedTypes.
func AllTypes() []arrow.DataType { return append(FlatTypes(), NestedTypes()...) }
