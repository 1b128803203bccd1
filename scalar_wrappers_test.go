package millrace_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/columnar"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestScalarWrappersMatchSQL checks that each typed Go wrapper of the
// date/time, math and conditional functions calls the function SQL calls,
// with its arguments in Spark's order: the same rows as the SQL text.
func TestScalarWrappersMatchSQL(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "ts", Type: columnar.Timestamp, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	rows := [][]any{
		{time.Date(2024, 2, 29, 13, 45, 30, 123456000, time.UTC), "29/02/2024", 2.345, int64(3), int64(1709214330), true},
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), "31/12/1969", -2.5, int64(-7), int64(-1), false},
		{nil, nil, nil, nil, nil, nil},
	}
	rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, rows)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	stream := func() *millrace.Stream {
		src, err := memsrc.New(schema, memsrc.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.AddBatch(rec); err != nil {
			t.Fatal(err)
		}
		return millrace.ReadStream(src)
	}
	col := millrace.Col
	cases := []struct {
		api millrace.Column
		sql string
	}{
		{millrace.ToTimestamp(col("s"), "dd/MM/yyyy"), "to_timestamp(s, 'dd/MM/yyyy')"},
		{millrace.ToDate(col("s"), "dd/MM/yyyy"), "to_date(s, 'dd/MM/yyyy')"},
		{millrace.ToDate(col("ts")), "to_date(ts)"},
		{millrace.FromUnixtime(col("l")), "from_unixtime(l)"},
		{millrace.FromUnixtime(col("l"), "yyyy"), "from_unixtime(l, 'yyyy')"},
		{millrace.UnixTimestamp(col("ts")), "unix_timestamp(ts)"},
		{millrace.UnixTimestamp(col("s"), "dd/MM/yyyy"), "unix_timestamp(s, 'dd/MM/yyyy')"},
		{millrace.DateFormat(col("ts"), "EEE d MMM yyyy HH:mm"), "date_format(ts, 'EEE d MMM yyyy HH:mm')"},
		{millrace.DateTrunc("hour", col("ts")), "date_trunc('hour', ts)"},
		{millrace.Trunc(col("ts"), "month"), "trunc(ts, 'month')"},
		{millrace.Year(col("ts")), "year(ts)"},
		{millrace.Quarter(col("ts")), "quarter(ts)"},
		{millrace.Month(col("ts")), "month(ts)"},
		{millrace.DayOfMonth(col("ts")), "dayofmonth(ts)"},
		{millrace.DayOfWeek(col("ts")), "dayofweek(ts)"},
		{millrace.DayOfYear(col("ts")), "dayofyear(ts)"},
		{millrace.WeekOfYear(col("ts")), "weekofyear(ts)"},
		{millrace.Hour(col("ts")), "hour(ts)"},
		{millrace.Minute(col("ts")), "minute(ts)"},
		{millrace.Second(col("ts")), "second(ts)"},
		{millrace.DateAdd(col("ts"), 3), "date_add(ts, 3)"},
		{millrace.DateAdd(col("ts"), col("i")), "date_add(ts, i)"},
		{millrace.DateSub(col("ts"), 3), "date_sub(ts, 3)"},
		{millrace.DateDiff(col("ts"), "2024-01-01"), "datediff(ts, '2024-01-01')"},
		{millrace.FromUTCTimestamp(col("ts"), "Europe/Paris"), "from_utc_timestamp(ts, 'Europe/Paris')"},
		{millrace.ToUTCTimestamp(col("ts"), "+05:30"), "to_utc_timestamp(ts, '+05:30')"},
		{millrace.CurrentDate().IsNull(), "current_date() IS NULL"},
		{millrace.Round(col("d")), "round(d)"},
		{millrace.Round(col("d"), 2), "round(d, 2)"},
		{millrace.Round(col("i"), -1), "round(i, -1)"},
		{millrace.BRound(col("d"), 1), "bround(d, 1)"},
		{millrace.BRound(col("d")), "bround(d)"},
		{millrace.Floor(col("d")), "floor(d)"},
		{millrace.Ceil(col("d")), "ceil(d)"},
		{millrace.Pow(col("d"), 2), "pow(d, 2)"},
		{millrace.Sqrt(col("d")), "sqrt(d)"},
		{millrace.Exp(col("d")), "exp(d)"},
		{millrace.Log(col("d")), "ln(d)"},
		{millrace.LogBase(2, col("l")), "log(2.0, l)"},
		{millrace.Log10(col("d")), "log10(d)"},
		{millrace.Log2(col("d")), "log2(d)"},
		{millrace.Signum(col("i")), "signum(i)"},
		{millrace.Sin(col("d")), "sin(d)"},
		{millrace.Cos(col("d")), "cos(d)"},
		{millrace.Tan(col("d")), "tan(d)"},
		{millrace.Atan2(col("d"), col("i")), "atan2(d, i)"},
		{millrace.Greatest(col("i"), col("l"), 0), "greatest(i, l, 0L)"},
		{millrace.Least(col("i"), col("d")), "least(i, d)"},
		{millrace.Mod(col("i"), 4), "mod(i, 4L)"},
		{millrace.Pmod(col("i"), 4), "pmod(i, 4L)"},
		{millrace.Coalesce(col("s"), "none"), "coalesce(s, 'none')"},
		{millrace.IfNull(col("i"), 0), "ifnull(i, 0L)"},
		{millrace.Nvl2(col("s"), 1, 2), "nvl2(s, 1L, 2L)"},
		{millrace.NullIf(col("i"), 3), "nullif(i, 3L)"},
		{millrace.If(col("b"), col("i"), col("l")), "if(b, i, l)"},
		{millrace.NaNvl(col("d"), 0.0), "nanvl(d, 0.0)"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			api := stream().Select(c.api.As("x"))
			sql := stream().SelectExpr(c.sql + " AS x")
			if api.Err() != nil || sql.Err() != nil {
				t.Fatalf("api: %v; sql: %v", api.Err(), sql.Err())
			}
			if a, s := api.Schema().Field(0).Type, sql.Schema().Field(0).Type; !arrow.TypeEqual(a, s) {
				t.Fatalf("api type %s, sql type %s", a, s)
			}
			got, want := fmt.Sprint(runAll(t, api, millrace.Append)), fmt.Sprint(runAll(t, sql, millrace.Append))
			if got != want {
				t.Errorf("api %s, sql %s", got, want)
			}
		})
	}
}
