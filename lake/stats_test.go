package lake

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// buildRecord makes a record of schema from rows of Go values: nil for
// null; int64/float64/bool/string/[]byte; decimals as strings; dates as
// "2006-01-02"; timestamps as time.Time; structs as []any.
func buildRecord(t *testing.T, schema *arrow.Schema, rows [][]any) arrow.RecordBatch {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, r := range rows {
		for i, v := range r {
			appendValue(t, b.Field(i), schema.Field(i).Type, v)
		}
	}
	return b.NewRecordBatch()
}

func appendValue(t *testing.T, b array.Builder, dt arrow.DataType, v any) {
	t.Helper()
	if v == nil {
		if sb, ok := b.(*array.StructBuilder); ok {
			// A null struct whose children hold values: readers must
			// count its leaves as null all the same.
			sb.AppendNull()
			return
		}
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Decimal128Builder:
		dt := dt.(*arrow.Decimal128Type)
		n, err := decimal128.FromString(v.(string), dt.Precision, dt.Scale)
		if err != nil {
			t.Fatal(err)
		}
		bb.Append(n)
	case *array.Date32Builder:
		d, err := time.Parse("2006-01-02", v.(string))
		if err != nil {
			t.Fatal(err)
		}
		bb.Append(arrow.Date32FromTime(d))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(time.Time).UnixMicro()))
	case *array.StructBuilder:
		bb.Append(true)
		st := dt.(*arrow.StructType)
		for i, x := range v.([]any) {
			appendValue(t, bb.FieldBuilder(i), st.Field(i).Type, x)
		}
	default:
		t.Fatalf("appendValue: builder %T", b)
	}
}

func statsOf(t *testing.T, schema *arrow.Schema, conf map[string]string, batches ...[][]any) string {
	t.Helper()
	fs := newFileStats(schema.Fields(), statsSpecOf(conf))
	for _, rows := range batches {
		rec := buildRecord(t, schema, rows)
		fs.update(rec)
		rec.Release()
	}
	return fs.json()
}

func field(name string, dt arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: dt, Nullable: true}
}

func dec(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }

var (
	f64   = arrow.PrimitiveTypes.Float64
	i64   = arrow.PrimitiveTypes.Int64
	str   = arrow.BinaryTypes.String
	tsUTC = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	tsNTZ = &arrow.TimestampType{Unit: arrow.Microsecond}
)

// The expected strings are what delta-spark 4.4.0 (Spark 4.2.0, session
// time zone UTC) wrote for the same rows, quoted in each case's comment,
// up to the float spelling (Go's shortest form: 1e+300 for Spark's
// 1.0E300) and the departures documented in stats.go.
func TestStatsLikeSpark(t *testing.T) {
	emoji40 := strings.Repeat("😀", 40)
	cases := []struct {
		name   string
		schema *arrow.Schema
		conf   map[string]string
		rows   [][]any
		want   string
	}{{
		// Spark: {"numRecords":1,"minValues":{"a":1E-18,"s":"😀×32","f":0.1,"d":1.0E300,"z":-0.0,
		// "e":1.5,"g":1.000E-7},"maxValues":{"a":1E-18,"s":"😀×16\U0010FFFF",...}
		name: "decimals, long unicode string, floats",
		schema: arrow.NewSchema([]arrow.Field{field("a", dec(38, 18)), field("s", str),
			field("f", arrow.PrimitiveTypes.Float32), field("d", f64), field("z", f64),
			field("i", arrow.PrimitiveTypes.Int8), field("e", dec(5, 1)), field("g", dec(20, 10))}, nil),
		rows: [][]any{{"0.000000000000000001", emoji40, 0.1, 1e300, math.Copysign(0, -1), int64(1), "1.5", "0.0000001"}},
		want: `{"numRecords":1,"minValues":{"a":1E-18,"s":"` + strings.Repeat("😀", 32) + `","f":0.1,"d":1e+300,"z":-0,"i":1,"e":1.5,"g":1.000E-7},` +
			`"maxValues":{"a":1E-18,"s":"` + strings.Repeat("😀", 16) + "\U0010FFFF" + `","f":0.1,"d":1e+300,"z":-0,"i":1,"e":1.5,"g":1.000E-7},` +
			`"nullCount":{"a":0,"s":0,"f":0,"d":0,"z":0,"i":0,"e":0,"g":0}}`,
	}, {
		// Spark: min s "a×32", max s "é×32\U0010FFFF"; min/max z 0.0 (we
		// keep -0 below 0, which holds for every reader's order).
		name:   "nulls, -0 and 0, two-byte characters",
		schema: arrow.NewSchema([]arrow.Field{field("a", dec(38, 18)), field("s", str), field("d", f64), field("z", f64)}, nil),
		rows: [][]any{
			{"0.000000000000000001", strings.Repeat("a", 40), 1e-300, 0.0},
			{nil, strings.Repeat("é", 40), nil, math.Copysign(0, -1)},
		},
		want: `{"numRecords":2,"minValues":{"a":1E-18,"s":"` + strings.Repeat("a", 32) + `","d":1e-300,"z":-0},` +
			`"maxValues":{"a":1E-18,"s":"` + strings.Repeat("é", 32) + "\U0010FFFF" + `","d":1e-300,"z":0},` +
			`"nullCount":{"a":1,"s":0,"d":1,"z":0}}`,
	}, {
		// Spark: {"numRecords":2,"minValues":{"s":"a×31😀"},"maxValues":{},"nullCount":{"s":0}}
		name:   "string max without a bound in 64 UTF-16 units",
		schema: arrow.NewSchema([]arrow.Field{field("s", str)}, nil),
		rows:   [][]any{{strings.Repeat("\U0010FFFF", 70)}, {strings.Repeat("a", 31) + "😀zz"}},
		want:   `{"numRecords":2,"minValues":{"s":"` + strings.Repeat("a", 31) + `😀"},"maxValues":{},"nullCount":{"s":0}}`,
	}, {
		// Spark: "dec":-99999999.99 / 580.70, "f64":"-Infinity" / "Infinity",
		// "d":"0001-01-01" / "9999-12-31", "ts":"1969-12-31T23:59:59.999Z" /
		// "2024-01-01T00:00:00.999Z", "ntz":"0001-01-01T00:00:00.000" /
		// "2024-01-01T12:00:00.123", "st":{"x":1,"y":"x"} / {"x":5,"y":"y"},
		// nullCount "st":{"x":2,"y":2}; no min/max for b.
		name: "infinities, dates, timestamps, nested struct, boolean",
		schema: arrow.NewSchema([]arrow.Field{field("f64", f64), field("dec", dec(10, 2)), field("b", arrow.FixedWidthTypes.Boolean),
			field("d", arrow.FixedWidthTypes.Date32), field("ts", tsUTC), field("ntz", tsNTZ),
			field("st", arrow.StructOf(field("x", i64), field("y", str)))}, nil),
		rows: [][]any{
			{math.Inf(1), "580.70", true, "0001-01-01", time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC), time.Date(2024, 1, 1, 12, 0, 0, 123456000, time.UTC), []any{int64(1), "x"}},
			{math.Inf(-1), "-99999999.99", false, "9999-12-31", time.Date(2024, 1, 1, 0, 0, 0, 999999000, time.UTC), nil, nil},
			{-0.5, nil, nil, nil, nil, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), []any{nil, nil}},
			{2.0, "0.00", true, "2024-02-29", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 1, 0, 0, 0, 999000, time.UTC), []any{int64(5), "y"}},
		},
		want: `{"numRecords":4,"minValues":{"f64":"-Infinity","dec":-99999999.99,"b":false,"d":"0001-01-01","ts":"1969-12-31T23:59:59.999Z",` +
			`"ntz":"0001-01-01T00:00:00.000","st":{"x":1,"y":"x"}},` +
			`"maxValues":{"f64":"Infinity","dec":580.70,"b":true,"d":"9999-12-31","ts":"2024-01-01T00:00:01.000Z",` +
			`"ntz":"2024-01-01T12:00:00.124","st":{"x":5,"y":"y"}},` +
			`"nullCount":{"f64":0,"dec":1,"b":1,"d":1,"ts":1,"ntz":1,"st":{"x":2,"y":2}}}`,
	}, {
		// Spark: {"numRecords":1,"minValues":{"a":1,"st":{"x":2}},...,"nullCount":{"a":0,"st":{"x":0}}}
		name:   "delta.dataSkippingNumIndexedCols counts leaves",
		schema: arrow.NewSchema([]arrow.Field{field("a", i64), field("st", arrow.StructOf(field("x", i64), field("y", i64))), field("b", i64)}, nil),
		conf:   map[string]string{"delta.dataSkippingNumIndexedCols": "2"},
		rows:   [][]any{{int64(1), []any{int64(2), int64(3)}, int64(4)}},
		want:   `{"numRecords":1,"minValues":{"a":1,"st":{"x":2}},"maxValues":{"a":1,"st":{"x":2}},"nullCount":{"a":0,"st":{"x":0}}}`,
	}, {
		// Spark: {"numRecords":1,"minValues":{"st":{"y":3},"b":4},...,"nullCount":{"st":{"y":0},"b":0}}
		name:   "delta.dataSkippingStatsColumns",
		schema: arrow.NewSchema([]arrow.Field{field("a", i64), field("st", arrow.StructOf(field("x", i64), field("y", i64))), field("b", i64)}, nil),
		conf:   map[string]string{"delta.dataSkippingStatsColumns": "B, st.Y"},
		rows:   [][]any{{int64(1), []any{int64(2), int64(3)}, int64(4)}},
		want:   `{"numRecords":1,"minValues":{"st":{"y":3},"b":4},"maxValues":{"st":{"y":3},"b":4},"nullCount":{"st":{"y":0},"b":0}}`,
	}, {
		// Spark: {"numRecords":1,"minValues":{"a":1},"maxValues":{"a":1},"nullCount":{"a":0,"m":0,"l":0,"bin":0,"b":0}}
		name: "map, list, binary: null counts only",
		schema: arrow.NewSchema([]arrow.Field{field("a", i64), field("l", arrow.ListOf(i64)),
			field("bin", arrow.BinaryTypes.Binary)}, nil),
		rows: [][]any{{int64(1), nil, []byte{1}}},
		want: `{"numRecords":1,"minValues":{"a":1},"maxValues":{"a":1},"nullCount":{"a":0,"l":1,"bin":0}}`,
	}, {
		name:   "delta.dataSkippingNumIndexedCols 0",
		schema: arrow.NewSchema([]arrow.Field{field("a", i64)}, nil),
		conf:   map[string]string{"delta.dataSkippingNumIndexedCols": "0"},
		rows:   [][]any{{int64(1)}},
		want:   `{"numRecords":1}`,
	}, {
		// Spark writes max "NaN" (and min "NaN" when every value is); we
		// write no min/max for a file holding a NaN (see stats.go).
		name:   "NaN",
		schema: arrow.NewSchema([]arrow.Field{field("f", f64), field("a", i64)}, nil),
		rows:   [][]any{{math.NaN(), int64(1)}, {1.5, int64(2)}},
		want:   `{"numRecords":2,"nullCount":{"f":0,"a":0}}`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := statsOf(t, c.schema, c.conf, c.rows); got != c.want {
				t.Errorf("stats\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// Stats accumulate across the records of a file.
func TestStatsAcrossRecords(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{field("s", str), field("d", dec(10, 2))}, nil)
	got := statsOf(t, schema, nil, [][]any{{"m", "1.00"}, {nil, nil}}, [][]any{{"z", "-3.10"}, {"a", nil}})
	want := `{"numRecords":4,"minValues":{"s":"a","d":-3.10},"maxValues":{"s":"z","d":1.00},"nullCount":{"s":1,"d":2}}`
	if got != want {
		t.Errorf("stats\n got %s\nwant %s", got, want)
	}
}

func TestJavaDecimalString(t *testing.T) {
	for _, c := range []struct {
		v     string
		scale int32
		want  string
	}{
		{"580.70", 2, "580.70"}, {"0.00", 2, "0.00"}, {"-0.01", 2, "-0.01"}, {"12", 0, "12"},
		{"0.000001", 6, "0.000001"}, {"0.0000001", 7, "1E-7"}, {"0.0000001", 10, "1.000E-7"},
		{"-0.000000000000000001", 18, "-1E-18"}, {"12345678901234567890.123456789012345678", 18, "12345678901234567890.123456789012345678"},
	} {
		n, err := decimal128.FromString(c.v, 38, c.scale)
		if err != nil {
			t.Fatal(err)
		}
		if got := javaDecimalString(n, c.scale); got != c.want {
			t.Errorf("%s scale %d: got %s, want %s", c.v, c.scale, got, c.want)
		}
	}
}

func TestTruncateStatsMax(t *testing.T) {
	max := string(maxRune)
	for _, c := range []struct{ in, want string }{
		{"short", "short"},
		{strings.Repeat("a", 32), strings.Repeat("a", 32)},
		{strings.Repeat("a", 40), strings.Repeat("a", 32) + "\x7f"},
		{strings.Repeat("b", 31) + "\uffff" + "c", strings.Repeat("b", 31) + "\uffff\x7f"},
		{strings.Repeat("a", 32) + "é", strings.Repeat("a", 32) + max},
		{strings.Repeat("a", 31) + "😀" + "x", strings.Repeat("a", 31) + "😀\x7f"}, // no split pair
		{strings.Repeat("a", 32) + max + max + "b", strings.Repeat("a", 32) + max + max + "\x7f"},
	} {
		got, ok := truncateStatsMax(c.in, 32)
		if !ok || got != c.want {
			t.Errorf("truncateStatsMax(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
		if ok && got < c.in {
			t.Errorf("truncateStatsMax(%q) = %q is below the value", c.in, got)
		}
	}
	if _, ok := truncateStatsMax(strings.Repeat(max, 40), 32); ok {
		t.Error("a string of 40 U+10FFFF got a max")
	}
}

// Rounding max up never goes past year 9999, which readers cannot parse.
func TestStatsTimestampMaxAtTheEnd(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{field("ts", tsUTC), field("ntz", tsNTZ)}, nil)
	end := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	got := statsOf(t, schema, nil, [][]any{{end, end}})
	want := `{"numRecords":1,"minValues":{"ts":"9999-12-31T23:59:59.999Z","ntz":"9999-12-31T23:59:59.999"},` +
		`"maxValues":{"ts":"9999-12-31T23:59:59.999Z","ntz":"9999-12-31T23:59:59.999"},"nullCount":{"ts":0,"ntz":0}}`
	if got != want {
		t.Errorf("stats\n got %s\nwant %s", got, want)
	}
}

// Data files carry no Parquet column statistics for floats (NaN is left
// out of them, and Spark's Parquet reader would drop NaN rows by them);
// other columns keep theirs.
func TestNoParquetFloatStats(t *testing.T) {
	ctx := context.Background()
	schema := arrow.NewSchema([]arrow.Field{field("id", i64), field("f", f64), field("st", arrow.StructOf(field("g", arrow.PrimitiveTypes.Float32)))}, nil)
	tbl, err := Create(ctx, t.TempDir(), schema, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := buildRecord(t, schema, [][]any{{int64(1), math.NaN(), []any{0.5}}, {int64(2), 0.0, []any{math.NaN()}}})
	defer rec.Release()
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	files, _ := tbl.Files()
	pf, err := file.OpenParquetFile(filepath.Join(tbl.Path(), files[0].Path), false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rg := pf.MetaData().RowGroup(0)
	for i, want := range []bool{true, false, false} {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		if set, _ := cc.StatsSet(); set != want {
			t.Errorf("column %s: statistics written %v, want %v", cc.PathInSchema(), set, want)
		}
	}
}
