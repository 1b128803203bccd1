package functions

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// Dates and times. Timestamps are int64 microseconds since the epoch in
// UTC (Millrace's session time zone, as spark.sql.session.timeZone=UTC),
// dates are arrow.Date32 days since 1970-01-01. Fields are computed with
// integer civil-date arithmetic (kernels.CivilFromDays), never a time.Time
// per row.

const (
	microsPerSecond = 1_000_000
	microsPerMinute = 60 * microsPerSecond
	microsPerHour   = 60 * microsPerMinute
	microsPerDay    = 24 * microsPerHour
)

var dateType = arrow.FixedWidthTypes.Date32

func init() {
	register(dateField("year", func(d int64) int32 { y, _, _ := kernels.CivilFromDays(d); return int32(y) }))
	register(dateField("quarter", func(d int64) int32 { _, m, _ := kernels.CivilFromDays(d); return int32((m-1)/3 + 1) }))
	register(dateField("month", func(d int64) int32 { _, m, _ := kernels.CivilFromDays(d); return int32(m) }))
	register(dateField("dayofmonth", func(d int64) int32 { _, _, dd := kernels.CivilFromDays(d); return int32(dd) }), "day")
	register(dateField("dayofweek", func(d int64) int32 { return int32(floorMod(d+4, 7) + 1) }))
	register(dateField("weekday", func(d int64) int32 { return int32(floorMod(d+3, 7)) }))
	register(dateField("dayofyear", func(d int64) int32 {
		y, _, _ := kernels.CivilFromDays(d)
		return int32(d - kernels.DaysFromCivil(y, 1, 1) + 1)
	}))
	register(dateField("weekofyear", isoWeek))
	register(timeField("hour", func(us int64) int32 { return int32(floorMod(us, microsPerDay) / microsPerHour) }))
	register(timeField("minute", func(us int64) int32 { return int32(floorMod(us, microsPerHour) / microsPerMinute) }))
	register(timeField("second", func(us int64) int32 { return int32(floorMod(us, microsPerMinute) / microsPerSecond) }))
}

func floorMod(a, b int64) int64 { return a - kernels.FloorDiv(a, b)*b }

// isoWeek is the ISO-8601 week of the year of day d (weeks start on
// Monday; week 1 holds the year's first Thursday), as Spark's weekofyear.
func isoWeek(d int64) int32 {
	wd := floorMod(d+3, 7) // 0 = Monday
	thursday := d - wd + 3
	y, _, _ := kernels.CivilFromDays(thursday)
	return int32((thursday-kernels.DaysFromCivil(y, 1, 1))/7 + 1)
}

// isDateInput reports whether Spark casts t implicitly where a date or a
// timestamp is expected: dates, timestamps and strings (parsed as CAST
// does), and NULL.
func isDateInput(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.DATE32, arrow.TIMESTAMP, arrow.STRING, arrow.NULL:
		return true
	}
	return false
}

// daysArg returns argument i as a date array of n rows (a timestamp is
// its UTC day, a string is parsed as CAST(s AS DATE)).
func daysArg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (*array.Date32, error) {
	return castArg[*array.Date32](mem, args, cols, i, n, dateType)
}

// microsArg returns argument i as a timestamp array of n rows in
// microseconds (a date is its first instant, a string is parsed as
// CAST(s AS TIMESTAMP)).
func microsArg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (*array.Timestamp, error) {
	return castArg[*array.Timestamp](mem, args, cols, i, n, columnar.Timestamp)
}

// dateField is a function of a date to an int (year, month …); a
// timestamp or string argument is cast to a date first, as Spark does.
func dateField(name string, f func(days int64) int32) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if !isDateInput(args[0].Type) {
			return Bound{}, typeErr(0, "a date", args[0].Type)
		}
		return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			d, err := daysArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer d.Release()
			out := newFixedOut[int32](mem, n)
			for i, v := range fixedValues[int32](d) {
				out.V[i] = f(int64(v))
			}
			out.nullsFrom(d)
			return out.finish(arrow.PrimitiveTypes.Int32), nil
		}}, nil
	}}
}

// timeField is a function of a timestamp to an int (hour, minute,
// second); a date or string argument is cast to a timestamp first.
func timeField(name string, f func(micros int64) int32) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if !isDateInput(args[0].Type) {
			return Bound{}, typeErr(0, "a timestamp", args[0].Type)
		}
		return Bound{Type: arrow.PrimitiveTypes.Int32, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			t, err := microsArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer t.Release()
			out := newFixedOut[int32](mem, n)
			for i, v := range fixedValues[int64](t) {
				out.V[i] = f(v)
			}
			out.nullsFrom(t)
			return out.finish(arrow.PrimitiveTypes.Int32), nil
		}}, nil
	}}
}
