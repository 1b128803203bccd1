package textdecode

// Timestamp and date parsing without allocation. Accepted forms:
//
//	2024-05-01
//	2024-05-01T12:34:56        2024-05-01 12:34:56
//	… followed by an optional fraction .f to .fffffffff (truncated to µs)
//	… followed by an optional zone: Z, z, ±HH:MM, ±HHMM or ±HH (none = UTC)

func digits(b []byte, n int) (int64, bool) {
	if len(b) < n {
		return 0, false
	}
	var v int64
	for i := 0; i < n; i++ {
		c := b[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	return v, true
}

// daysFromCivil returns the days since 1970-01-01 of a proleptic Gregorian
// date (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// parseDate parses YYYY-MM-DD at the start of b and returns the day number
// and the rest of b.
func parseDate(b []byte) (int64, []byte, bool) {
	y, ok1 := digits(b, 4)
	if !ok1 || len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return 0, b, false
	}
	m, ok2 := digits(b[5:], 2)
	d, ok3 := digits(b[8:], 2)
	if !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, b, false
	}
	return daysFromCivil(y, m, d), b[10:], true
}

// ParseTimestamp parses b as a timestamp in microseconds since the epoch.
func ParseTimestamp(b []byte) (int64, bool) {
	days, rest, ok := parseDate(b)
	if !ok {
		return 0, false
	}
	us := days * 86_400_000_000
	if len(rest) == 0 {
		return us, true
	}
	if rest[0] != 'T' && rest[0] != ' ' && rest[0] != 't' {
		return 0, false
	}
	rest = rest[1:]
	h, ok1 := digits(rest, 2)
	if !ok1 || len(rest) < 8 || rest[2] != ':' || rest[5] != ':' {
		return 0, false
	}
	mi, ok2 := digits(rest[3:], 2)
	s, ok3 := digits(rest[6:], 2)
	if !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return 0, false
	}
	us += ((h*60+mi)*60 + s) * 1_000_000
	rest = rest[8:]
	if len(rest) > 0 && rest[0] == '.' {
		rest = rest[1:]
		n := 0
		var frac int64
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			if n < 6 {
				frac = frac*10 + int64(rest[n]-'0')
			}
			n++
		}
		if n == 0 || n > 9 {
			return 0, false
		}
		for i := n; i < 6; i++ {
			frac *= 10
		}
		us += frac
		rest = rest[n:]
	}
	if len(rest) == 0 {
		return us, true
	}
	switch rest[0] {
	case 'Z', 'z':
		return us, len(rest) == 1
	case '+', '-':
		sign := int64(1)
		if rest[0] == '-' {
			sign = -1
		}
		z := rest[1:]
		zh, ok := digits(z, 2)
		if !ok || zh > 23 {
			return 0, false
		}
		var zm int64
		switch {
		case len(z) == 2:
		case len(z) == 5 && z[2] == ':':
			zm, ok = digits(z[3:], 2)
		case len(z) == 4:
			zm, ok = digits(z[2:], 2)
		default:
			ok = false
		}
		if !ok || zm > 59 {
			return 0, false
		}
		return us - sign*(zh*60+zm)*60_000_000, true
	}
	return 0, false
}
