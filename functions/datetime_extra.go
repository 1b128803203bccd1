package functions

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// More of Spark's date functions: month arithmetic, dates from parts, and
// conversions between timestamps and numbers of seconds, milliseconds or
// microseconds since the epoch.

func init() {
	register(&Func{Name: "add_months", MinArgs: 2, MaxArgs: 2, Bind: bindAddMonths})
	register(dateToDate("last_day", func(d int64) int64 {
		y, m, _ := kernels.CivilFromDays(d)
		return kernels.DaysFromCivil(y, m, kernels.DaysInMonth(y, m))
	}))
	register(&Func{Name: "make_date", MinArgs: 3, MaxArgs: 3, Bind: bindMakeDate})
	register(&Func{Name: "unix_date", MinArgs: 1, MaxArgs: 1, Bind: bindUnixDate})
	register(&Func{Name: "date_from_unix_date", MinArgs: 1, MaxArgs: 1, Bind: bindDateFromUnixDate})
	register(unixTime("unix_seconds", microsPerSecond))
	register(unixTime("unix_millis", 1000))
	register(unixTime("unix_micros", 1))
	register(&Func{Name: "timestamp_seconds", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) { return bindTimestampFrom(args, microsPerSecond) }})
	register(&Func{Name: "timestamp_millis", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) { return bindTimestampFrom(args, 1000) }})
	register(&Func{Name: "timestamp_micros", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) { return bindTimestampFrom(args, 1) }})
}

// dateToDate is a function of a date to a date.
func dateToDate(name string, f func(days int64) int64) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if !isDateInput(args[0].Type) {
			return Bound{}, typeErr(0, "a date", args[0].Type)
		}
		return Bound{Type: dateType, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			d, err := daysArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer d.Release()
			o := newFixedOut[int32](mem, n)
			for i, v := range fixedValues[int32](d) {
				o.V[i] = int32(f(int64(v)))
			}
			o.nullsFrom(d)
			return o.finish(dateType), nil
		}}, nil
	}}
}

// int32Arg returns argument i cast to int32.
func int32Arg(mem memory.Allocator, args []Arg, cols []arrow.Array, i, n int) (arrow.Array, error) {
	return castArg[arrow.Array](mem, args, cols, i, n, arrow.PrimitiveTypes.Int32)
}

// bindAddMonths is add_months(start, n): the date n months later, on the
// same day or the last day of a shorter month (java.time's plusMonths).
func bindAddMonths(args []Arg) (Bound, error) {
	if err := checkDateAndInt(args, "an int number of months"); err != nil {
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
			y, m, dd := kernels.CivilFromDays(int64(v))
			months := y*12 + int64(m-1) + int64(kv[i])
			ny, nm := kernels.FloorDiv(months, 12), int(floorMod(months, 12))+1
			o.V[i] = int32(kernels.DaysFromCivil(ny, nm, min(dd, kernels.DaysInMonth(ny, nm))))
		}
		o.nullsFrom(d)
		o.nullsFrom(k)
		return o.finish(dateType), nil
	}}, nil
}

// bindMakeDate is make_date(year, month, day): null for a date that does
// not exist (Spark's non-ANSI mode).
func bindMakeDate(args []Arg) (Bound, error) {
	for i := range args {
		if !isDaysInput(args[i].Type) && args[i].Type.ID() != arrow.INT64 {
			return Bound{}, typeErr(i, "an int", args[i].Type)
		}
	}
	return Bound{Type: dateType, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		var parts [3]arrow.Array
		for i := range parts {
			p, err := int32Arg(mem, args, cols, i, n)
			if err != nil {
				return nil, err
			}
			defer p.Release()
			parts[i] = p
		}
		y, m, d := fixedValues[int32](parts[0]), fixedValues[int32](parts[1]), fixedValues[int32](parts[2])
		o := newFixedOut[int32](mem, n)
		for i := range o.V {
			if m[i] < 1 || m[i] > 12 || d[i] < 1 || int(d[i]) > kernels.DaysInMonth(int64(y[i]), int(m[i])) {
				o.setNull(i)
				continue
			}
			days := kernels.DaysFromCivil(int64(y[i]), int(m[i]), int(d[i]))
			if days < math.MinInt32 || days > math.MaxInt32 {
				o.setNull(i) // beyond the days a date holds
				continue
			}
			o.V[i] = int32(days)
		}
		for _, p := range parts {
			o.nullsFrom(p)
		}
		return o.finish(dateType), nil
	}}, nil
}

// bindUnixDate is unix_date(date): its days since 1970-01-01.
func bindUnixDate(args []Arg) (Bound, error) {
	if t := args[0].Type.ID(); t != arrow.DATE32 && t != arrow.NULL {
		return Bound{}, typeErr(0, "a date", args[0].Type)
	}
	out := arrow.PrimitiveTypes.Int32
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		d, err := daysArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer d.Release()
		o := newFixedOut[int32](mem, n)
		copy(o.V, fixedValues[int32](d))
		o.nullsFrom(d)
		return o.finish(out), nil
	}}, nil
}

// bindDateFromUnixDate is date_from_unix_date(days).
func bindDateFromUnixDate(args []Arg) (Bound, error) {
	if !isDaysInput(args[0].Type) {
		return Bound{}, typeErr(0, "an int number of days", args[0].Type)
	}
	return Bound{Type: dateType, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		k, err := int32Arg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer k.Release()
		o := newFixedOut[int32](mem, n)
		copy(o.V, fixedValues[int32](k))
		o.nullsFrom(k)
		return o.finish(dateType), nil
	}}, nil
}

// unixTime is unix_seconds, unix_millis and unix_micros of a timestamp:
// a bigint, floored as Spark's Math.floorDiv.
func unixTime(name string, per int64) *Func {
	return &Func{Name: name, MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		if t := args[0].Type.ID(); t != arrow.TIMESTAMP && t != arrow.NULL {
			return Bound{}, typeErr(0, "a timestamp", args[0].Type)
		}
		out := arrow.PrimitiveTypes.Int64
		return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
			t, err := microsArg(mem, args, cols, 0, n)
			if err != nil {
				return nil, err
			}
			defer t.Release()
			o := newFixedOut[int64](mem, n)
			for i, v := range fixedValues[int64](t) {
				o.V[i] = kernels.FloorDiv(v, per)
			}
			o.nullsFrom(t)
			return o.finish(out), nil
		}}, nil
	}}
}

// bindTimestampFrom is timestamp_seconds, timestamp_millis and
// timestamp_micros: a number of units since the epoch as a timestamp
// (timestamp_seconds also takes a double, to the microsecond); null where
// it overflows.
func bindTimestampFrom(args []Arg, per int64) (Bound, error) {
	t := args[0].Type
	if !isNumeric(t) && t.ID() != arrow.NULL || (t.ID() == arrow.FLOAT64 && per != microsPerSecond) {
		return Bound{}, typeErr(0, "an integer", t)
	}
	out := columnar.Timestamp
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := column(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer a.Release()
		return unitsToMicros(mem, a, per)
	}}, nil
}
