package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/sinks"
)

// TestTypesRoundTrip writes every mapped Arrow type into a table the sink
// creates and reads the values back as PostgreSQL prints them.
func TestTypesRoundTrip(t *testing.T) {
	cs, conn := setup(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "i16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 12, Scale: 3}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tsn", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	}, nil)
	r := rec(t, schema, `[
		{"i8":-8,"i16":-16,"i32":-32,"i64":-9223372036854775808,"u32":4294967295,"u64":18446744073709551615,
		 "f32":1.5,"f64":-2.25,"dec":"123456789.125","s":"héllo\ttab","ls":"large","b":true,
		 "ts":"2026-03-01T12:34:56.789012Z","tsn":"2026-03-01T00:00:00.000001","d":"2026-02-28","bin":"AAEC/w==",
		 "st":{"a":7,"b":"x"},"l":[1,null,3]},
		{"i8":null,"i16":null,"i32":null,"i64":null,"u32":null,"u64":null,"f32":null,"f64":null,"dec":null,"s":null,"ls":null,
		 "b":null,"ts":null,"tsn":null,"d":null,"bin":null,"st":null,"l":null}]`)
	s := newSink(t, cs, "types", Options{CreateTable: true})
	mustWrite(t, s, 0, sinks.Append, r)
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "SET TIME ZONE 'UTC'"); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range schema.Fields() {
		cols = append(cols, "coalesce("+f.Name+"::text, 'NULL')")
	}
	rows, err := conn.Query(ctx, "SELECT "+strings.Join(cols, ", ")+" FROM types ORDER BY i8 NULLS LAST")
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for rows.Next() {
		vals := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		got = append(got, vals)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	want := []string{"-8", "-16", "-32", "-9223372036854775808", "4294967295", "18446744073709551615",
		"1.5", "-2.25", "123456789.125", "héllo\ttab", "large", "true",
		"2026-03-01 12:34:56.789012+00", "2026-03-01 00:00:00.000001+00", "2026-02-28", `\x000102ff`,
		`{"a": 7, "b": "x"}`, "[1, null, 3]"}
	if len(got) != 2 {
		t.Fatalf("%d rows back", len(got))
	}
	for i, w := range want {
		if got[0][i] != w {
			t.Errorf("%s: got %q, want %q", schema.Field(i).Name, got[0][i], w)
		}
		if got[1][i] != "NULL" {
			t.Errorf("%s: null came back as %q", schema.Field(i).Name, got[1][i])
		}
	}
	var types string
	if err := conn.QueryRow(ctx, `SELECT string_agg(format_type(atttypid, atttypmod), ',' ORDER BY attnum) FROM pg_attribute
		WHERE attrelid = 'types'::regclass AND attnum > 0`).Scan(&types); err != nil {
		t.Fatal(err)
	}
	wantTypes := "smallint,smallint,integer,bigint,bigint,numeric(20,0),real,double precision,numeric(12,3),text,text,boolean," +
		"timestamp with time zone,timestamp with time zone,date,bytea,jsonb,jsonb"
	if types != wantTypes {
		t.Errorf("created types %s, want %s", types, wantTypes)
	}
}

// TestRefusedType: a type without a mapping fails with a clear error at
// table creation.
func TestRefusedType(t *testing.T) {
	cs, _ := setup(t)
	schema := arrow.NewSchema([]arrow.Field{{Name: "dur", Type: arrow.FixedWidthTypes.Duration_s, Nullable: true}}, nil)
	_, err := writeBatch(t, newSink(t, cs, "durs", Options{CreateTable: true}), 0, sinks.Append, rec(t, schema, `[{"dur":5}]`))
	if err == nil || !strings.Contains(err.Error(), `field "dur"`) || !strings.Contains(err.Error(), "cast it") {
		t.Fatalf("duration column: %v", err)
	}
}
