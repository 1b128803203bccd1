package functions

import (
	"fmt"
	"strings"

	"github.com/millrace/millrace/kernels"
)

// Spark's datetime patterns (java.time.format.DateTimeFormatter letters,
// as Spark 3+ restricts them; Spark's "Datetime Patterns" page) compiled once
// per query into a list of fields that format and parse with integer
// civil-date arithmetic, not java-style reflection or a time.Time per row.
// The session time zone is UTC, so zone fields print UTC's names and a
// parsed offset shifts the instant.

type fmtKind uint8

const (
	fLit      fmtKind = iota
	fEra              // G
	fYear             // y (Spark reads it as the proleptic year, 'u')
	fDOY              // D
	fMonth            // M, L
	fDay              // d
	fQuarter          // Q, q
	fDOW              // E
	fAmPm             // a
	fHour             // H: 0-23
	fClock12          // h: 1-12
	fHour12           // K: 0-11
	fClock24          // k: 1-24
	fMinute           // m
	fSecond           // s
	fFraction         // S…
	fZoneID           // VV
	fZoneName         // z
	fOffsetO          // O
	fOffsetX          // X
	fOffsetx          // x
	fOffsetZ          // Z
	fOptStart         // [
	fOptEnd           // ]
)

type fmtTok struct {
	kind fmtKind
	n    int    // letter count
	lit  string // fLit
}

// dateFormat is a compiled pattern.
type dateFormat struct {
	pattern string
	toks    []fmtTok
}

var (
	monthShort = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	monthLong  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	dowShort   = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	dowLong    = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	quarterOrd = []string{"1st quarter", "2nd quarter", "3rd quarter", "4th quarter"}
)

// compileDateFormat compiles a Spark datetime pattern; parsing is true
// when it will parse (Spark refuses E, Q, q and F there).
func compileDateFormat(pattern string, parsing bool) (*dateFormat, error) {
	f := &dateFormat{pattern: pattern}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("datetime pattern %q: %s (see Spark's datetime patterns: https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html)", pattern, fmt.Sprintf(format, a...))
	}
	lit := func(s string) {
		if k := len(f.toks) - 1; k >= 0 && f.toks[k].kind == fLit {
			f.toks[k].lit += s
			return
		}
		f.toks = append(f.toks, fmtTok{kind: fLit, lit: s})
	}
	depth := 0
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\'':
			j := i + 1
			var sb strings.Builder
			for {
				if j >= len(pattern) {
					return nil, bad("unterminated quote at %d", i)
				}
				if pattern[j] == '\'' {
					if j+1 < len(pattern) && pattern[j+1] == '\'' {
						sb.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				sb.WriteByte(pattern[j])
				j++
			}
			if j == i+1 {
				lit("'") // '' is a quote
			} else {
				lit(sb.String())
			}
			i = j + 1
			continue
		case c == '[':
			depth++
			f.toks = append(f.toks, fmtTok{kind: fOptStart})
			i++
			continue
		case c == ']':
			if depth == 0 {
				return nil, bad("']' without '['")
			}
			depth--
			f.toks = append(f.toks, fmtTok{kind: fOptEnd})
			i++
			continue
		case c == '{' || c == '}' || c == '#':
			return nil, bad("reserved character %q", c)
		case !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'):
			lit(string(c))
			i++
			continue
		}
		n := 1
		for i+n < len(pattern) && pattern[i+n] == c {
			n++
		}
		i += n
		tooMany := func(max int) error {
			if n > max {
				return bad("too many pattern letters: %c", c)
			}
			return nil
		}
		var t fmtTok
		var err error
		switch c {
		case 'G':
			t, err = fmtTok{kind: fEra, n: n}, tooMany(4)
			if parsing && err == nil {
				err = bad("the era (G) is not supported when parsing")
			}
		case 'y':
			t, err = fmtTok{kind: fYear, n: n}, tooMany(6)
		case 'D':
			t, err = fmtTok{kind: fDOY, n: n}, tooMany(3)
		case 'M', 'L':
			t, err = fmtTok{kind: fMonth, n: n}, tooMany(4)
		case 'd':
			t, err = fmtTok{kind: fDay, n: n}, tooMany(2)
		case 'Q', 'q':
			t, err = fmtTok{kind: fQuarter, n: n}, tooMany(4)
		case 'E':
			t, err = fmtTok{kind: fDOW, n: n}, tooMany(4)
		case 'a':
			t, err = fmtTok{kind: fAmPm, n: n}, tooMany(1)
		case 'H':
			t, err = fmtTok{kind: fHour, n: n}, tooMany(2)
		case 'h':
			t, err = fmtTok{kind: fClock12, n: n}, tooMany(2)
		case 'K':
			t, err = fmtTok{kind: fHour12, n: n}, tooMany(2)
		case 'k':
			t, err = fmtTok{kind: fClock24, n: n}, tooMany(2)
		case 'm':
			t, err = fmtTok{kind: fMinute, n: n}, tooMany(2)
		case 's':
			t, err = fmtTok{kind: fSecond, n: n}, tooMany(2)
		case 'S':
			t, err = fmtTok{kind: fFraction, n: n}, tooMany(9)
		case 'V':
			t = fmtTok{kind: fZoneID, n: n}
			if n != 2 {
				err = bad("pattern letter V must be VV")
			}
		case 'z':
			t, err = fmtTok{kind: fZoneName, n: n}, tooMany(4)
		case 'O':
			t = fmtTok{kind: fOffsetO, n: n}
			if n != 1 && n != 4 {
				err = bad("pattern letter O must be O or OOOO")
			}
		case 'X':
			t, err = fmtTok{kind: fOffsetX, n: n}, tooMany(5)
		case 'x':
			t, err = fmtTok{kind: fOffsetx, n: n}, tooMany(5)
		case 'Z':
			t, err = fmtTok{kind: fOffsetZ, n: n}, tooMany(5)
		case 'Y', 'W', 'w', 'u', 'e', 'c':
			err = bad("week-based pattern letter %c is not supported (as in Spark 3+): use weekofyear/dayofweek", c)
		default:
			err = bad("illegal pattern character %c", c)
		}
		if err != nil {
			return nil, err
		}
		if parsing {
			switch t.kind {
			case fDOW, fQuarter:
				return nil, bad("pattern letter %c is not supported when parsing (as in Spark)", c)
			case fZoneID, fZoneName, fOffsetO:
				return nil, bad("pattern letter %c is not supported when parsing; use X, x or Z for an offset", c)
			}
		}
		f.toks = append(f.toks, t)
	}
	if depth != 0 {
		return nil, bad("'[' without ']'")
	}
	return f, nil
}

// appendFormat appends the timestamp us (microseconds, UTC) formatted.
func (f *dateFormat) appendFormat(dst []byte, us int64) []byte {
	days := kernels.FloorDiv(us, microsPerDay)
	tod := us - days*microsPerDay
	y, m, d := kernels.CivilFromDays(days)
	hour := int(tod / microsPerHour)
	for _, t := range f.toks {
		switch t.kind {
		case fLit:
			dst = append(dst, t.lit...)
		case fEra:
			switch {
			case t.n == 4 && y > 0:
				dst = append(dst, "Anno Domini"...)
			case t.n == 4:
				dst = append(dst, "Before Christ"...)
			case y > 0:
				dst = append(dst, "AD"...)
			default:
				dst = append(dst, "BC"...)
			}
		case fYear:
			switch {
			case t.n == 2:
				dst = appendNum(dst, floorMod(y, 100), 2)
			case t.n >= 4 && y > 9999*pow10(t.n-4) && t.n < 19:
				dst = append(dst, '+')
				dst = appendNum(dst, y, t.n)
			default:
				dst = appendNum(dst, y, t.n)
			}
		case fDOY:
			dst = appendNum(dst, days-kernels.DaysFromCivil(y, 1, 1)+1, t.n)
		case fMonth:
			switch t.n {
			case 3:
				dst = append(dst, monthShort[m-1]...)
			case 4:
				dst = append(dst, monthLong[m-1]...)
			default:
				dst = appendNum(dst, int64(m), t.n)
			}
		case fDay:
			dst = appendNum(dst, int64(d), t.n)
		case fQuarter:
			q := (m-1)/3 + 1
			switch t.n {
			case 3:
				dst = append(dst, 'Q', byte('0'+q))
			case 4:
				dst = append(dst, quarterOrd[q-1]...)
			default:
				dst = appendNum(dst, int64(q), t.n)
			}
		case fDOW:
			wd := floorMod(days+3, 7)
			if t.n == 4 {
				dst = append(dst, dowLong[wd]...)
			} else {
				dst = append(dst, dowShort[wd]...)
			}
		case fAmPm:
			if hour < 12 {
				dst = append(dst, "AM"...)
			} else {
				dst = append(dst, "PM"...)
			}
		case fHour:
			dst = appendNum(dst, int64(hour), t.n)
		case fClock12:
			h := hour % 12
			if h == 0 {
				h = 12
			}
			dst = appendNum(dst, int64(h), t.n)
		case fHour12:
			dst = appendNum(dst, int64(hour%12), t.n)
		case fClock24:
			h := hour
			if h == 0 {
				h = 24
			}
			dst = appendNum(dst, int64(h), t.n)
		case fMinute:
			dst = appendNum(dst, tod%microsPerHour/microsPerMinute, t.n)
		case fSecond:
			dst = appendNum(dst, tod%microsPerMinute/microsPerSecond, t.n)
		case fFraction:
			frac := tod % microsPerSecond // six digits
			var digits [9]byte
			for k := 5; k >= 0; k-- {
				digits[k] = byte('0' + frac%10)
				frac /= 10
			}
			for k := 6; k < 9; k++ {
				digits[k] = '0'
			}
			dst = append(dst, digits[:t.n]...)
		case fZoneID:
			dst = append(dst, "UTC"...)
		case fZoneName:
			if t.n == 4 {
				dst = append(dst, "Coordinated Universal Time"...)
			} else {
				dst = append(dst, "UTC"...)
			}
		case fOffsetO:
			dst = append(dst, "GMT"...)
		case fOffsetX:
			dst = append(dst, 'Z')
		case fOffsetx:
			dst = append(dst, [...]string{"+00", "+0000", "+00:00", "+0000", "+00:00"}[t.n-1]...)
		case fOffsetZ:
			dst = append(dst, [...]string{"+0000", "+0000", "+0000", "GMT", "Z"}[t.n-1]...)
		}
	}
	return dst
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// appendNum appends v in decimal with at least width digits (a minus sign
// before the padding, as java.time prints a negative year).
func appendNum(dst []byte, v int64, width int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var tmp [20]byte
	k := len(tmp)
	for v >= 10 {
		k--
		tmp[k] = byte('0' + v%10)
		v /= 10
	}
	k--
	tmp[k] = byte('0' + v)
	for w := len(tmp) - k; w < width; w++ {
		dst = append(dst, '0')
	}
	return append(dst, tmp[k:]...)
}

// parsed holds the fields a parse found; -1 is unset.
type parsed struct {
	year, month, day, doy   int64
	hour, clock12, h12, k24 int64
	ampm                    int64
	minute, second, micros  int64
	offset                  int64 // seconds east of UTC
}

// parse reads s as the whole pattern (case-insensitively, as Spark's
// formatter) and returns its instant in microseconds since the epoch (UTC
// unless the pattern has an offset); ok is false when s does not match or
// names an invalid date or time, which Spark's non-ANSI functions turn
// into null.
func (f *dateFormat) parse(s string) (int64, bool) {
	p := parsed{year: 1970, month: -1, day: -1, doy: -1, hour: -1, clock12: -1, h12: -1, k24: -1, ampm: -1}
	pos, ok := f.parseToks(&p, s, 0, 0, len(f.toks))
	if !ok || pos != len(s) {
		return 0, false
	}
	return p.resolve()
}

// parseToks parses toks[from:to] at s[pos:]; an optional section that does
// not match is skipped.
func (f *dateFormat) parseToks(p *parsed, s string, pos, from, to int) (int, bool) {
	for k := from; k < to; k++ {
		t := f.toks[k]
		switch t.kind {
		case fOptStart:
			end := k + 1
			for depth := 1; ; end++ {
				if f.toks[end].kind == fOptStart {
					depth++
				} else if f.toks[end].kind == fOptEnd {
					if depth--; depth == 0 {
						break
					}
				}
			}
			save := *p
			if np, ok := f.parseToks(p, s, pos, k+1, end); ok {
				pos = np
			} else {
				*p = save
			}
			k = end
			continue
		case fOptEnd:
			continue
		case fLit:
			if len(s)-pos < len(t.lit) || !strings.EqualFold(s[pos:pos+len(t.lit)], t.lit) {
				return pos, false
			}
			pos += len(t.lit)
			continue
		case fMonth:
			if t.n >= 3 {
				names := monthShort
				if t.n == 4 {
					names = monthLong
				}
				i, np := matchName(s, pos, names)
				if i < 0 {
					return pos, false
				}
				p.month, pos = int64(i+1), np
				continue
			}
		case fAmPm:
			i, np := matchName(s, pos, []string{"AM", "PM"})
			if i < 0 {
				return pos, false
			}
			p.ampm, pos = int64(i), np
			continue
		case fOffsetX, fOffsetx, fOffsetZ:
			off, np, ok := parseOffset(s, pos, t)
			if !ok {
				return pos, false
			}
			p.offset, pos = off, np
			continue
		}
		// A number: at least min digits, at most max, leaving the widths
		// of the fixed-width numbers right after it (java.time's adjacent
		// value parsing: yyyyMMdd reads 20240115). A fraction is not fixed
		// width in Spark's patterns (S… reads 1 to n digits), so it ends
		// the run: yyyyMMddHHmmssSSS does not parse, as in Spark.
		lo, hi := numWidth(t)
		neg := false
		if t.kind == fYear && t.n != 2 && pos < len(s) && (s[pos] == '-' || s[pos] == '+') {
			neg = s[pos] == '-'
			pos++
		}
		avail := 0
		for pos+avail < len(s) && s[pos+avail] >= '0' && s[pos+avail] <= '9' {
			avail++
		}
		reserve := 0
		for j := k + 1; j < to && isNumTok(f.toks[j]); j++ {
			l, h := numWidth(f.toks[j])
			if l != h {
				break
			}
			reserve += l
		}
		w := min(hi, avail-reserve)
		if w < lo {
			return pos, false
		}
		var v int64
		for _, c := range s[pos : pos+w] {
			v = v*10 + int64(c-'0')
		}
		if t.kind == fFraction {
			for d := w; d < 6; d++ {
				v *= 10
			}
			for d := w; d > 6; d-- {
				v /= 10
			}
		}
		pos += w
		if neg {
			v = -v
		}
		switch t.kind {
		case fYear:
			if t.n == 2 {
				v += 2000
			}
			p.year = v
		case fDOY:
			p.doy = v
		case fMonth:
			p.month = v
		case fDay:
			p.day = v
		case fHour:
			p.hour = v
		case fClock12:
			p.clock12 = v
		case fHour12:
			p.h12 = v
		case fClock24:
			p.k24 = v
		case fMinute:
			p.minute = v
		case fSecond:
			p.second = v
		case fFraction:
			p.micros = v
		}
	}
	return pos, true
}

func isNumTok(t fmtTok) bool {
	switch t.kind {
	case fYear, fDOY, fDay, fHour, fClock12, fHour12, fClock24, fMinute, fSecond, fFraction:
		return true
	case fMonth:
		return t.n <= 2
	}
	return false
}

// numWidth is how many digits a numeric field reads: one letter reads
// any number of digits, two letters exactly two (java.time's rules).
func numWidth(t fmtTok) (lo, hi int) {
	switch t.kind {
	case fFraction:
		return 1, t.n
	case fYear:
		switch {
		case t.n == 2:
			return 2, 2
		default:
			return t.n, 9
		}
	case fDOY:
		switch t.n {
		case 2:
			return 2, 3
		case 3:
			return 3, 3
		}
	}
	if t.n == 2 {
		return 2, 2
	}
	return 1, 9
}

// matchName finds which of names s continues with at pos, ignoring case.
func matchName(s string, pos int, names []string) (int, int) {
	for i, n := range names {
		if len(s)-pos >= len(n) && strings.EqualFold(s[pos:pos+len(n)], n) {
			return i, pos + len(n)
		}
	}
	return -1, pos
}

// parseOffset reads a zone offset: Z (for X, and for ZZZZZ), or
// ±HH[[:]MM]; the result is in seconds east of UTC.
func parseOffset(s string, pos int, t fmtTok) (int64, int, bool) {
	if pos < len(s) && (s[pos] == 'Z' || s[pos] == 'z') && (t.kind == fOffsetX || (t.kind == fOffsetZ && t.n == 5)) {
		return 0, pos + 1, true
	}
	if pos >= len(s) || (s[pos] != '+' && s[pos] != '-') {
		return 0, pos, false
	}
	sign := int64(1)
	if s[pos] == '-' {
		sign = -1
	}
	pos++
	two := func() (int64, bool) {
		if pos+2 > len(s) || s[pos] < '0' || s[pos] > '9' || s[pos+1] < '0' || s[pos+1] > '9' {
			return 0, false
		}
		v := int64(s[pos]-'0')*10 + int64(s[pos+1]-'0')
		pos += 2
		return v, true
	}
	h, ok := two()
	if !ok || h > 18 {
		return 0, pos, false
	}
	var m int64
	if pos < len(s) && s[pos] == ':' {
		pos++
		if m, ok = two(); !ok {
			return 0, pos, false
		}
	} else if pos+1 < len(s) && s[pos] >= '0' && s[pos] <= '9' {
		if m, ok = two(); !ok {
			return 0, pos, false
		}
	}
	if m > 59 {
		return 0, pos, false
	}
	return sign * (h*3600 + m*60), pos, true
}

// resolve checks the fields (as java.time's STRICT resolver: no 30th of
// February, no hour 24) and combines them; missing fields default to
// 1970-01-01 00:00:00, a 12-hour clock without a or with no marker to AM.
func (p *parsed) resolve() (int64, bool) {
	if p.year < -290_000 || p.year > 290_000 {
		return 0, false // beyond the microseconds an int64 holds, as Spark's overflow
	}
	var days int64
	switch {
	case p.doy >= 0 && p.month < 0 && p.day < 0:
		max := int64(365)
		if kernels.IsLeapYear(p.year) {
			max = 366
		}
		if p.doy < 1 || p.doy > max {
			return 0, false
		}
		days = kernels.DaysFromCivil(p.year, 1, 1) + p.doy - 1
	default:
		m, d := p.month, p.day
		if m < 0 {
			m = 1
		}
		if d < 0 {
			d = 1
		}
		if m < 1 || m > 12 || d < 1 || d > int64(kernels.DaysInMonth(p.year, int(m))) {
			return 0, false
		}
		days = kernels.DaysFromCivil(p.year, int(m), int(d))
		if p.doy >= 0 && days-kernels.DaysFromCivil(p.year, 1, 1)+1 != p.doy {
			return 0, false
		}
	}
	var hour int64
	switch {
	case p.hour >= 0:
		if p.hour > 23 {
			return 0, false
		}
		hour = p.hour
	case p.k24 >= 0:
		if p.k24 < 1 || p.k24 > 24 {
			return 0, false
		}
		hour = p.k24 % 24
	case p.clock12 >= 0 || p.h12 >= 0:
		h := p.h12
		if p.clock12 >= 0 {
			if p.clock12 < 1 || p.clock12 > 12 {
				return 0, false
			}
			h = p.clock12 % 12
		} else if h > 11 {
			return 0, false
		}
		if p.ampm > 0 {
			h += 12
		}
		hour = h
	}
	if p.minute > 59 || p.second > 59 {
		return 0, false
	}
	us := days*microsPerDay + hour*microsPerHour + p.minute*microsPerMinute + p.second*microsPerSecond + p.micros
	return us - p.offset*microsPerSecond, true
}
