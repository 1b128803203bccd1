package functions

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

const defaultTimeFormat = "yyyy-MM-dd HH:mm:ss"

func init() {
	register(&Func{Name: "date_format", MinArgs: 2, MaxArgs: 2, Bind: bindDateFormat})
	register(&Func{Name: "from_unixtime", MinArgs: 1, MaxArgs: 2, Bind: bindFromUnixtime})
	register(&Func{Name: "unix_timestamp", MinArgs: 0, MaxArgs: 2, Bind: bindUnixTimestamp})
	register(&Func{Name: "to_unix_timestamp", MinArgs: 1, MaxArgs: 2, Bind: bindUnixTimestamp})
	register(&Func{Name: "to_timestamp", MinArgs: 1, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindParse(args, false) }})
	register(&Func{Name: "to_date", MinArgs: 1, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindParse(args, true) }})
	register(&Func{Name: "date_trunc", MinArgs: 2, MaxArgs: 2, Bind: bindDateTrunc})
	register(&Func{Name: "trunc", MinArgs: 2, MaxArgs: 2, Bind: bindTrunc})
	register(&Func{Name: "date_add", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindDateAdd(args, 1) }}, "dateadd")
	register(&Func{Name: "date_sub", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindDateAdd(args, -1) }})
	register(&Func{Name: "datediff", MinArgs: 2, MaxArgs: 2, Bind: bindDateDiff})
	register(&Func{Name: "current_date", MinArgs: 0, MaxArgs: 0, Bind: bindCurrentDate}, "curdate")
}

// literalString is argument i when it must be a literal string (a format,
// a unit): null reports a NULL literal, which makes every result null.
func literalString(args []Arg, i int, what string) (s string, null bool, err error) {
	a := args[i]
	if !a.Const {
		return "", false, fmt.Errorf("argument %d (%s) must be a literal string: Millrace compiles it once per query, not per row", i+1, what)
	}
	if a.Value == nil {
		return "", true, nil
	}
	s, ok := a.Value.(string)
	if !ok {
		return "", false, typeErr(i, "a string "+what, a.Type)
	}
	return s, false, nil
}

// formatArg compiles the optional format argument i (def when absent).
// nil with no error means a NULL format.
func formatArg(args []Arg, i int, def string, parsing bool) (*dateFormat, error) {
	pattern := def
	if i < len(args) {
		s, null, err := literalString(args, i, "the datetime pattern")
		if err != nil || null {
			return nil, err
		}
		pattern = s
	}
	return compileDateFormat(pattern, parsing)
}

func nullResult(t arrow.DataType) Bound {
	return Bound{Type: t, Eval: func(mem memory.Allocator, _ []arrow.Array, n int) (arrow.Array, error) {
		return array.MakeArrayOfNull(mem, t, n), nil
	}}
}

// formatMicros formats each valid value of us with f.
func formatMicros(mem memory.Allocator, us arrow.Array, vals []int64, f *dateFormat, valid func(i int) bool) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(vals))
	b.ReserveData(len(vals) * (len(f.pattern) + 4))
	var buf []byte
	for i, v := range vals {
		if us.IsNull(i) || (valid != nil && !valid(i)) {
			b.AppendNull()
			continue
		}
		buf = f.appendFormat(buf[:0], v)
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

// bindDateFormat is date_format(ts, fmt): the timestamp (a date or string
// cast to one) formatted by a Spark datetime pattern.
func bindDateFormat(args []Arg) (Bound, error) {
	if !isDateInput(args[0].Type) {
		return Bound{}, typeErr(0, "a timestamp", args[0].Type)
	}
	f, err := formatArg(args, 1, "", false)
	if err != nil || f == nil {
		return nullResult(arrow.BinaryTypes.String), err
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		t, err := microsArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer t.Release()
		return formatMicros(mem, t, fixedValues[int64](t), f, nil), nil
	}}, nil
}

// secondsArg returns argument i as bigint seconds (Spark casts a number
// or a string to bigint here).
func secondsArg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (arrow.Array, error) {
	return castArg[arrow.Array](mem, args, cols, i, n, arrow.PrimitiveTypes.Int64)
}

// bindFromUnixtime is from_unixtime(secs[, fmt]): seconds since the epoch
// formatted (default yyyy-MM-dd HH:mm:ss).
func bindFromUnixtime(args []Arg) (Bound, error) {
	if !isNumeric(args[0].Type) && args[0].Type.ID() != arrow.STRING && args[0].Type.ID() != arrow.NULL {
		return Bound{}, typeErr(0, "a number of seconds", args[0].Type)
	}
	f, err := formatArg(args, 1, defaultTimeFormat, false)
	if err != nil || f == nil {
		return nullResult(arrow.BinaryTypes.String), err
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		s, err := secondsArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer s.Release()
		secs := fixedValues[int64](s)
		us := make([]int64, len(secs))
		for i, v := range secs {
			us[i] = v * microsPerSecond // wraps on overflow, as Spark's
		}
		return formatMicros(mem, s, us, f, nil), nil
	}}, nil
}

// bindUnixTimestamp is unix_timestamp([x[, fmt]]): bigint seconds since
// the epoch of a timestamp or date, or of a string parsed by fmt (default
// yyyy-MM-dd HH:mm:ss; null when it does not parse); without arguments,
// the current time.
func bindUnixTimestamp(args []Arg) (Bound, error) {
	out := arrow.PrimitiveTypes.Int64
	if len(args) == 0 {
		return Bound{Type: out, Eval: func(mem memory.Allocator, _ []arrow.Array, n int) (arrow.Array, error) {
			o := newFixedOut[int64](mem, n)
			now := time.Now().Unix()
			for i := range o.V {
				o.V[i] = now
			}
			return o.finish(out), nil
		}}, nil
	}
	if !isDateInput(args[0].Type) {
		return Bound{}, typeErr(0, "a timestamp, date or string", args[0].Type)
	}
	var f *dateFormat
	if args[0].Type.ID() == arrow.STRING {
		var err error
		if f, err = formatArg(args, 1, defaultTimeFormat, true); err != nil || f == nil {
			return nullResult(out), err
		}
	}
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		us, err := parsedMicros(mem, args, cols, f, n)
		if err != nil {
			return nil, err
		}
		defer us.Release()
		o := newFixedOut[int64](mem, n)
		for i, v := range fixedValues[int64](us) {
			o.V[i] = v / microsPerSecond // truncated toward zero, as Spark
		}
		o.nullsFrom(us)
		return o.finish(out), nil
	}}, nil
}

// parsedMicros is argument 0 as a timestamp: parsed by f when f is set
// (a string argument with a format), else cast.
func parsedMicros(mem memory.Allocator, args []Arg, cols []arrow.Array, f *dateFormat, n int) (*array.Timestamp, error) {
	if f == nil {
		return microsArg(mem, args, cols, 0, n)
	}
	s, err := stringArg(mem, args, cols, 0, n)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	o := newFixedOut[int64](mem, n)
	for i := range o.V {
		if s.IsNull(i) {
			o.setNull(i)
			continue
		}
		v, ok := f.parse(s.Value(i))
		if !ok {
			o.setNull(i)
			continue
		}
		o.V[i] = v
	}
	return o.finish(columnar.Timestamp).(*array.Timestamp), nil
}

// bindParse is to_timestamp(x[, fmt]) and, with toDate, to_date(x[, fmt]):
// a string parsed by the pattern (null when it does not parse) or, without
// one, cast as CAST does; a timestamp or date converts; a number (to_
// timestamp only) is seconds since the epoch.
func bindParse(args []Arg, toDate bool) (Bound, error) {
	var out arrow.DataType = columnar.Timestamp
	if toDate {
		out = dateType
	}
	t := args[0].Type
	numeric := isNumeric(t) && !toDate
	if !isDateInput(t) && !numeric {
		return Bound{}, typeErr(0, "a string, timestamp or date", t)
	}
	var f *dateFormat
	if len(args) == 2 && t.ID() == arrow.STRING {
		var err error
		if f, err = formatArg(args, 1, "", true); err != nil || f == nil {
			return nullResult(out), err
		}
	}
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		var us arrow.Array
		var err error
		switch {
		case numeric:
			var a arrow.Array
			if a, err = column(mem, args, cols, 0, n); err != nil {
				return nil, err
			}
			defer a.Release()
			us, err = unitsToMicros(mem, a, microsPerSecond)
		case f == nil && toDate:
			return daysArg(mem, args, cols, 0, n)
		default:
			us, err = parsedMicros(mem, args, cols, f, n)
		}
		if err != nil {
			return nil, err
		}
		defer us.Release()
		return castTo(mem, us, out)
	}}, nil
}

// unitsToMicros is a, numbers of units of per microseconds since the
// epoch, as timestamps (a double keeps its fraction to the microsecond),
// as Spark casts a number to a timestamp; null where it overflows.
// to_timestamp of a number (seconds) and timestamp_seconds, _millis and
// _micros.
func unitsToMicros(mem memory.Allocator, a arrow.Array, per int64) (arrow.Array, error) {
	if x, ok := a.(*array.Float64); ok {
		o := newFixedOut[int64](mem, a.Len())
		for i, v := range x.Float64Values() {
			us := v * float64(per)
			if math.IsNaN(us) || math.IsInf(us, 0) || math.Abs(us) >= math.MaxInt64 {
				o.setNull(i)
				continue
			}
			o.V[i] = int64(us)
		}
		o.nullsFrom(a)
		return o.finish(columnar.Timestamp), nil
	}
	c, err := castTo(mem, a, arrow.PrimitiveTypes.Int64)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	hi, lo := math.MaxInt64/per, math.MinInt64/per
	o := newFixedOut[int64](mem, a.Len())
	for i, v := range fixedValues[int64](c) {
		if v > hi || v < lo {
			o.setNull(i)
			continue
		}
		o.V[i] = v * per
	}
	o.nullsFrom(c)
	return o.finish(columnar.Timestamp), nil
}

// truncLevel is a unit of date_trunc and trunc.
type truncLevel int

const (
	truncMicro truncLevel = iota
	truncMilli
	truncSecond
	truncMinute
	truncHour
	truncDay
	truncWeek
	truncMonth
	truncQuarter
	truncYear
	truncInvalid
)

// parseTruncLevel reads a unit as Spark's DateTimeUtils.parseTruncLevel.
func parseTruncLevel(s string) truncLevel {
	switch strings.ToUpper(s) {
	case "MICROSECOND":
		return truncMicro
	case "MILLISECOND":
		return truncMilli
	case "SECOND":
		return truncSecond
	case "MINUTE":
		return truncMinute
	case "HOUR":
		return truncHour
	case "DAY", "DD":
		return truncDay
	case "WEEK":
		return truncWeek
	case "MON", "MONTH", "MM":
		return truncMonth
	case "QUARTER":
		return truncQuarter
	case "YEAR", "YYYY", "YY":
		return truncYear
	}
	return truncInvalid
}

// truncDays truncates a day to the start of its week (Monday), month,
// quarter or year.
func truncDays(d int64, level truncLevel) int64 {
	if level == truncWeek {
		return d - floorMod(d+3, 7)
	}
	y, m, _ := kernels.CivilFromDays(d)
	switch level {
	case truncMonth:
		return kernels.DaysFromCivil(y, m, 1)
	case truncQuarter:
		return kernels.DaysFromCivil(y, (m-1)/3*3+1, 1)
	}
	return kernels.DaysFromCivil(y, 1, 1)
}

// truncMicros truncates a timestamp to the start of its unit.
func truncMicros(us int64, level truncLevel) int64 {
	switch level {
	case truncMicro:
		return us
	case truncMilli:
		return kernels.FloorDiv(us, 1000) * 1000
	case truncSecond:
		return kernels.FloorDiv(us, microsPerSecond) * microsPerSecond
	case truncMinute:
		return kernels.FloorDiv(us, microsPerMinute) * microsPerMinute
	case truncHour:
		return kernels.FloorDiv(us, microsPerHour) * microsPerHour
	case truncDay:
		return kernels.FloorDiv(us, microsPerDay) * microsPerDay
	}
	return truncDays(kernels.FloorDiv(us, microsPerDay), level) * microsPerDay
}

// bindDateTrunc is date_trunc(unit, ts): the timestamp truncated to the
// unit (year, quarter, month, week, day, hour, minute, second,
// millisecond, microsecond); an unknown unit gives null, as in Spark.
func bindDateTrunc(args []Arg) (Bound, error) {
	out := columnar.Timestamp
	if !isDateInput(args[1].Type) {
		return Bound{}, typeErr(1, "a timestamp", args[1].Type)
	}
	unit, null, err := literalString(args, 0, "the unit")
	if err != nil {
		return Bound{}, err
	}
	level := parseTruncLevel(unit)
	if null || level == truncInvalid {
		return nullResult(out), nil
	}
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		t, err := microsArg(mem, args, cols, 1, n)
		if err != nil {
			return nil, err
		}
		defer t.Release()
		o := newFixedOut[int64](mem, n)
		for i, v := range fixedValues[int64](t) {
			o.V[i] = truncMicros(v, level)
		}
		o.nullsFrom(t)
		return o.finish(out), nil
	}}, nil
}

// bindTrunc is trunc(date, unit): the date truncated to its week, month,
// quarter or year; other units give null, as in Spark.
func bindTrunc(args []Arg) (Bound, error) {
	if !isDateInput(args[0].Type) {
		return Bound{}, typeErr(0, "a date", args[0].Type)
	}
	unit, null, err := literalString(args, 1, "the unit")
	if err != nil {
		return Bound{}, err
	}
	level := parseTruncLevel(unit)
	if null || level < truncWeek || level == truncInvalid {
		return nullResult(dateType), nil
	}
	return Bound{Type: dateType, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		d, err := daysArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		o := newFixedOut[int32](mem, n)
		for i, v := range fixedValues[int32](d) {
			o.V[i] = int32(truncDays(int64(v), level))
		}
		o.nullsFrom(d)
		return o.finish(dateType), nil
	}}, nil
}

// isDaysInput reports whether t can be a number of days (date_add): an int
// or a string Spark casts to one.
func isDaysInput(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT32, arrow.STRING, arrow.NULL:
		return true
	}
	return false
}

// bindDateAdd is date_add(start, days) (sign 1) and date_sub (sign -1):
// a date; a timestamp or string start is cast to a date.
func bindDateAdd(args []Arg, sign int32) (Bound, error) {
	if err := checkDateAndInt(args, "an int number of days"); err != nil {
		return Bound{}, err
	}
	return Bound{Type: dateType, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		d, k, err := dateAndInt(mem, args, cols, n)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		defer k.Release()
		kv := fixedValues[int32](k)
		o := newFixedOut[int32](mem, n)
		for i, v := range fixedValues[int32](d) {
			o.V[i] = v + sign*kv[i] // wraps as Spark's int arithmetic
		}
		o.nullsFrom(d)
		o.nullsFrom(k)
		return o.finish(dateType), nil
	}}, nil
}

// checkDateAndInt checks the arguments of date_add, date_sub and
// add_months: a date and an int (what it counts).
func checkDateAndInt(args []Arg, what string) error {
	if !isDateInput(args[0].Type) {
		return typeErr(0, "a date", args[0].Type)
	}
	if !isDaysInput(args[1].Type) {
		return typeErr(1, what, args[1].Type)
	}
	return nil
}

// dateAndInt evaluates the arguments checkDateAndInt checked: the date as
// days, the int cast to int32.
func dateAndInt(mem memory.Allocator, args []Arg, cols []arrow.Array, n int) (*array.Date32, arrow.Array, error) {
	d, err := daysArg(mem, args, cols, 0, n)
	if err != nil {
		return nil, nil, err
	}
	k, err := int32Arg(mem, args, cols, 1, n)
	if err != nil {
		d.Release()
		return nil, nil, err
	}
	return d, k, nil
}

// bindDateDiff is datediff(end, start): the days from start to end.
func bindDateDiff(args []Arg) (Bound, error) {
	for i := range args {
		if !isDateInput(args[i].Type) {
			return Bound{}, typeErr(i, "a date", args[i].Type)
		}
	}
	out := arrow.PrimitiveTypes.Int32
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		e, err := daysArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer e.Release()
		s, err := daysArg(mem, args, cols, 1, n)
		if err != nil {
			return nil, err
		}
		defer s.Release()
		sv := fixedValues[int32](s)
		o := newFixedOut[int32](mem, n)
		for i, v := range fixedValues[int32](e) {
			o.V[i] = v - sv[i]
		}
		o.nullsFrom(e)
		o.nullsFrom(s)
		return o.finish(out), nil
	}}, nil
}

// bindCurrentDate is current_date(): today in UTC, taken once per batch
// (Spark takes it once per micro-batch).
func bindCurrentDate([]Arg) (Bound, error) {
	return Bound{Type: dateType, Eval: func(mem memory.Allocator, _ []arrow.Array, n int) (arrow.Array, error) {
		today := int32(kernels.FloorDiv(time.Now().UnixMicro(), microsPerDay))
		o := newFixedOut[int32](mem, n)
		for i := range o.V {
			o.V[i] = today
		}
		return o.finish(dateType), nil
	}}, nil
}
