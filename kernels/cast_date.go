package kernels

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// Dates (arrow.Date32, Spark's DATE: days since 1970-01-01) cast to and
// from strings and timestamps only, as Spark's non-ANSI CAST allows
// (a date to a number is null in Spark; here it is refused).

// castDate casts a to or from a date; ok is false when neither side is one.
func castDate(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, bool) {
	from := a.DataType()
	switch {
	case to.ID() == arrow.DATE32 && from.ID() == arrow.STRING:
		return castStringToDate(mem, a.(*array.String)), true
	case to.ID() == arrow.DATE32 && from.ID() == arrow.TIMESTAMP:
		// Flooring: 1969-12-31 23:59 is on 1969-12-31.
		per := 86400 * columnar.UnitsPerSecond(from.(*arrow.TimestampType).Unit)
		v, _ := int64View(a)
		return mapToDate(mem, a, len(v), func(i int) int32 { return int32(FloorDiv(v[i], per)) }), true
	case from.ID() == arrow.DATE32 && to.ID() == arrow.TIMESTAMP:
		per := 86400 * columnar.UnitsPerSecond(to.(*arrow.TimestampType).Unit)
		d := a.(*array.Date32).Date32Values()
		n := a.Len()
		vals := newBuffer(mem, n*8)
		out := arrow.Int64Traits.CastFromBytes(vals.Bytes())[:n]
		for i, x := range d {
			out[i] = int64(x) * per
		}
		return withValidity(mem, a, to, vals), true
	case from.ID() == arrow.DATE32 && to.ID() == arrow.STRING:
		return castDateToString(mem, a.(*array.Date32)), true
	}
	return nil, false
}

func withValidity(mem memory.Allocator, a arrow.Array, to arrow.DataType, vals *memory.Buffer) arrow.Array {
	n := a.Len()
	valid := andValidity(mem, n, a)
	nulls := 0
	if valid != nil {
		nulls = n - bitutil.CountSetBits(valid.Bytes(), 0, n)
	}
	return makeArray(to, n, []*memory.Buffer{valid, vals}, nulls)
}

func mapToDate(mem memory.Allocator, a arrow.Array, n int, f func(i int) int32) arrow.Array {
	vals := newBuffer(mem, n*4)
	out := arrow.Int32Traits.CastFromBytes(vals.Bytes())[:n]
	for i := range out {
		out[i] = f(i)
	}
	return withValidity(mem, a, arrow.FixedWidthTypes.Date32, vals)
}

func castDateToString(mem memory.Allocator, a *array.Date32) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(a.Len())
	b.ReserveData(a.Len() * 10)
	var buf []byte
	for i, d := range a.Date32Values() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		buf = AppendSparkDate(buf[:0], int64(d))
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

func castStringToDate(mem memory.Allocator, s *array.String) arrow.Array {
	n := s.Len()
	valid := ensureValidity(mem, andValidity(mem, n, s), n)
	vb := valid.Bytes()
	vals := newBuffer(mem, n*4)
	out := arrow.Int32Traits.CastFromBytes(vals.Bytes())[:n]
	for i := range out {
		out[i] = 0
		if !bitutil.BitIsSet(vb, i) {
			continue
		}
		d, ok := ParseSparkDate(s.Value(i))
		if !ok {
			bitutil.ClearBit(vb, i)
			continue
		}
		out[i] = d
	}
	nulls := n - bitutil.CountSetBits(vb, 0, n)
	return makeArray(arrow.FixedWidthTypes.Date32, n, []*memory.Buffer{valid, vals}, nulls)
}

// ParseSparkDate parses a date as Spark's CAST(string AS DATE) does
// (DateTimeUtils.stringToDate): after trimming, [+-]yyyy[-[m]m[-[d]d]]
// with a 4 to 7 digit year, then, after a full date, anything that
// follows a ' ' or 'T' is ignored ("2024-01-15 10:20:30" is 2024-01-15).
// It returns days since 1970-01-01; ok is false when s is not a valid date.
func ParseSparkDate(s string) (int32, bool) {
	s = trimSpark(s)
	if s == "" {
		return 0, false
	}
	seg := [3]int64{1, 1, 1}
	sign := int64(1)
	i, j := 0, 0
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = -1
		}
		j++
	}
	var cur int64
	digits := 0
	validDigits := func(seg, digits int) bool {
		if seg == 0 {
			return digits >= 4 && digits <= 7
		}
		return digits > 0 && digits <= 2
	}
	for j < len(s) && i < 3 && s[j] != ' ' && s[j] != 'T' {
		c := s[j]
		if i < 2 && c == '-' {
			if !validDigits(i, digits) {
				return 0, false
			}
			seg[i] = cur
			cur, digits = 0, 0
			i++
		} else {
			if c < '0' || c > '9' {
				return 0, false
			}
			cur = cur*10 + int64(c-'0')
			digits++
		}
		j++
	}
	if !validDigits(i, digits) || (i < 2 && j < len(s)) {
		return 0, false
	}
	seg[i] = cur
	y, m, d := sign*seg[0], int(seg[1]), int(seg[2])
	if m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m) {
		return 0, false
	}
	return int32(DaysFromCivil(y, m, d)), true
}

// AppendSparkDate formats days since 1970-01-01 as Spark shows a date:
// yyyy-MM-dd (proleptic Gregorian).
func AppendSparkDate(dst []byte, days int64) []byte {
	y, m, d := CivilFromDays(days)
	if y > 9999 {
		dst = append(dst, '+') // java.time's yyyy past four digits
	}
	dst = appendPadded(dst, y, 4)
	dst = append(dst, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return dst
}

// appendPadded appends v in decimal with at least width digits.
func appendPadded(dst []byte, v int64, width int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// FloorDiv is a / b rounded toward negative infinity (b > 0).
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// DaysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (Spark's since 3.0), by H. Hinnant's
// days_from_civil: integer arithmetic only, no time.Time per row.
func DaysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := FloorDiv(y, 400)
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// CivilFromDays is the inverse of DaysFromCivil.
func CivilFromDays(z int64) (y int64, m, d int) {
	z += 719468
	era := FloorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// IsLeapYear reports whether y is a leap year (proleptic Gregorian).
func IsLeapYear(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// DaysInMonth is the number of days of month m (1-12) of year y.
func DaysInMonth(y int64, m int) int {
	switch m {
	case 2:
		if IsLeapYear(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseSparkTimestamp parses a timestamp as Spark's CAST(string AS
// TIMESTAMP) does (DateTimeUtils.stringToTimestamp) in the UTC session
// time zone: a date as ParseSparkDate reads it, optionally followed by ' '
// or 'T' and [h]h:[m]m[:[s]s[.fraction]] (digits past the microsecond are
// dropped), and a zone: Z, UTC, GMT or UT, an offset ±h[h][[:]mm], or UTC/
// GMT/UT followed by an offset. Region names (Europe/Paris) are not read.
// It returns microseconds since the epoch.
func ParseSparkTimestamp(s string) (int64, bool) {
	s = trimSpark(s)
	// The date: up to the first ' ' or 'T' after the year.
	end := len(s)
	for k := 1; k < len(s); k++ {
		if s[k] == ' ' || s[k] == 'T' {
			end = k
			break
		}
	}
	d, ok := ParseSparkDate(s[:end])
	if !ok {
		return 0, false
	}
	us := int64(d) * 86400_000_000
	if end == len(s) {
		return us, true
	}
	if strings.Count(s[:end], "-") < 2+b2i(s[0] == '-' || s[0] == '+') {
		return 0, false // a time needs a full date
	}
	rest := s[end+1:]
	num := func(minD, maxD int) (int64, bool) {
		k := 0
		var v int64
		for k < len(rest) && k < maxD && rest[k] >= '0' && rest[k] <= '9' {
			v = v*10 + int64(rest[k]-'0')
			k++
		}
		if k < minD {
			return 0, false
		}
		rest = rest[k:]
		return v, true
	}
	h, ok := num(1, 2)
	if !ok {
		return 0, false
	}
	var m, sec, frac int64
	if len(rest) > 0 && rest[0] == ':' {
		rest = rest[1:]
		if m, ok = num(1, 2); !ok {
			return 0, false
		}
		if len(rest) > 0 && rest[0] == ':' {
			rest = rest[1:]
			if sec, ok = num(1, 2); !ok {
				return 0, false
			}
			if len(rest) > 0 && rest[0] == '.' {
				rest = rest[1:]
				k := 0
				for k < len(rest) && rest[k] >= '0' && rest[k] <= '9' {
					if k < 6 {
						frac = frac*10 + int64(rest[k]-'0')
					}
					k++
				}
				for d := min(k, 6); d < 6; d++ {
					frac *= 10
				}
				rest = rest[k:]
			}
		}
	}
	if h > 23 || m > 59 || sec > 59 {
		return 0, false
	}
	off, ok := parseZone(rest)
	if !ok {
		return 0, false
	}
	return us + ((h*60+m)*60+sec-off)*1_000_000 + frac, true
}

// parseZone reads the zone after a timestamp's time: empty, Z, UTC, GMT,
// UT, ±h[h][[:]mm], or UTC/GMT/UT then an offset; it returns the offset in
// seconds east of UTC.
func parseZone(z string) (int64, bool) {
	z = strings.TrimLeft(z, " ")
	for _, p := range []string{"UTC", "GMT", "UT", "Z"} {
		if len(z) >= len(p) && strings.EqualFold(z[:len(p)], p) {
			z = z[len(p):]
			break
		}
	}
	if z == "" {
		return 0, true
	}
	if z[0] != '+' && z[0] != '-' {
		return 0, false
	}
	sign := int64(1)
	if z[0] == '-' {
		sign = -1
	}
	z = z[1:]
	digits := func(maxD int) (int64, int) {
		k := 0
		var v int64
		for k < len(z) && k < maxD && z[k] >= '0' && z[k] <= '9' {
			v = v*10 + int64(z[k]-'0')
			k++
		}
		z = z[k:]
		return v, k
	}
	h, n := digits(2)
	if n == 0 || h > 18 {
		return 0, false
	}
	var m int64
	if len(z) > 0 && z[0] == ':' {
		z = z[1:]
		if m, n = digits(2); n != 2 {
			return 0, false
		}
	} else if len(z) > 0 {
		if m, n = digits(2); n != 2 {
			return 0, false
		}
	}
	if z != "" || m > 59 {
		return 0, false
	}
	return sign * (h*3600 + m*60), true
}
