package millrace

// Date and time functions of the library SQL shares (package functions),
// Spark's semantics in the UTC session time zone. A format is a Spark
// datetime pattern ("yyyy-MM-dd HH:mm:ss"), compiled once per query.

// withFormat appends the optional format to a call's arguments.
func withFormat(args []any, format []string) []any {
	if len(format) > 0 {
		args = append(args, format[0])
	}
	return args
}

// ToTimestamp parses a string column as a timestamp (Spark's to_timestamp):
// by the pattern when given, else as CAST does; null when it does not parse.
func ToTimestamp(c Column, format ...string) Column {
	return call("to_timestamp", withFormat([]any{c}, format)...)
}

// ToDate parses a string column as a date (Spark's to_date), or takes the
// date of a timestamp.
func ToDate(c Column, format ...string) Column {
	return call("to_date", withFormat([]any{c}, format)...)
}

// FromUnixtime formats seconds since the epoch (Spark's from_unixtime),
// by default as yyyy-MM-dd HH:mm:ss.
func FromUnixtime(secs Column, format ...string) Column {
	return call("from_unixtime", withFormat([]any{secs}, format)...)
}

// UnixTimestamp is the seconds since the epoch of a timestamp, a date, or a
// string parsed by the pattern (default yyyy-MM-dd HH:mm:ss) (Spark's
// unix_timestamp).
func UnixTimestamp(c Column, format ...string) Column {
	return call("unix_timestamp", withFormat([]any{c}, format)...)
}

// DateFormat formats a timestamp by a Spark datetime pattern (Spark's
// date_format).
func DateFormat(ts Column, format string) Column { return call("date_format", ts, format) }

// DateTrunc truncates a timestamp to a unit: year, quarter, month, week,
// day, hour, minute, second, millisecond or microsecond (Spark's
// date_trunc).
func DateTrunc(unit string, ts Column) Column { return call("date_trunc", unit, ts) }

// Trunc truncates a date to a unit: year, quarter, month or week (Spark's
// trunc).
func Trunc(date Column, unit string) Column { return call("trunc", date, unit) }

// Year is the year of a date or timestamp.
func Year(c Column) Column { return call("year", c) }

// Quarter is the quarter (1-4) of a date or timestamp.
func Quarter(c Column) Column { return call("quarter", c) }

// Month is the month (1-12) of a date or timestamp.
func Month(c Column) Column { return call("month", c) }

// DayOfMonth is the day of the month (1-31) of a date or timestamp.
func DayOfMonth(c Column) Column { return call("dayofmonth", c) }

// DayOfWeek is the day of the week, 1 for Sunday to 7 for Saturday.
func DayOfWeek(c Column) Column { return call("dayofweek", c) }

// DayOfYear is the day of the year (1-366).
func DayOfYear(c Column) Column { return call("dayofyear", c) }

// WeekOfYear is the ISO-8601 week of the year (weeks start on Monday).
func WeekOfYear(c Column) Column { return call("weekofyear", c) }

// Hour is the hour (0-23) of a timestamp.
func Hour(c Column) Column { return call("hour", c) }

// Minute is the minute (0-59) of a timestamp.
func Minute(c Column) Column { return call("minute", c) }

// Second is the second (0-59) of a timestamp.
func Second(c Column) Column { return call("second", c) }

// DateAdd is the date days after start (Spark's date_add); days is a
// Column or an int.
func DateAdd(start Column, days any) Column { return call("date_add", start, intArg(days)) }

// DateSub is the date days before start (Spark's date_sub).
func DateSub(start Column, days any) Column { return call("date_sub", start, intArg(days)) }

// DateDiff is the number of days from start to end (Spark's datediff).
func DateDiff(end, start any) Column { return call("datediff", end, start) }

// FromUTCTimestamp is the wall-clock time in zone tz (a region such as
// "Europe/Paris", or an offset such as "+05:30") of a UTC timestamp
// (Spark's from_utc_timestamp).
func FromUTCTimestamp(ts Column, tz string) Column { return call("from_utc_timestamp", ts, tz) }

// ToUTCTimestamp is the UTC instant of a wall-clock time in zone tz
// (Spark's to_utc_timestamp).
func ToUTCTimestamp(ts Column, tz string) Column { return call("to_utc_timestamp", ts, tz) }

// CurrentDate is today's date in UTC (Spark's current_date).
func CurrentDate() Column { return call("current_date") }

// intArg makes a Go int an INT literal, as Spark's functions take it.
func intArg(v any) any {
	if n, ok := v.(int); ok {
		return int32(n)
	}
	return v
}
