package functions

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// from_utc_timestamp(ts, tz) and to_utc_timestamp(ts, tz): Spark's shifts
// between UTC and a time zone's wall clock, for a literal zone (a region
// such as Europe/Paris, UTC, or an offset such as +05:30). The zone's rules
// come from the system's tz database (time.LoadLocation).

func init() {
	register(&Func{Name: "from_utc_timestamp", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindZoneShift(args, true) }})
	register(&Func{Name: "to_utc_timestamp", MinArgs: 2, MaxArgs: 2, Bind: func(args []Arg) (Bound, error) { return bindZoneShift(args, false) }})
}

// loadZone reads a zone as Spark's getZoneId: a region ID, UTC/GMT/Z, or
// an offset ±h[h][:mm] (optionally after UTC or GMT).
func loadZone(tz string) (*time.Location, error) {
	s := strings.TrimSpace(tz)
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(s, p); ok && (rest == "" || rest[0] == '+' || rest[0] == '-') {
			s = rest
			break
		}
	}
	if s == "" || s == "Z" {
		return time.UTC, nil
	}
	if s[0] == '+' || s[0] == '-' {
		h, m, _ := strings.Cut(s[1:], ":")
		hh, err1 := strconv.Atoi(h)
		mm := 0
		var err2 error
		if m != "" {
			mm, err2 = strconv.Atoi(m)
		}
		if err1 != nil || err2 != nil || len(h) > 2 || hh > 18 || mm > 59 {
			return nil, fmt.Errorf("invalid time zone offset %q", tz)
		}
		off := hh*3600 + mm*60
		if s[0] == '-' {
			off = -off
		}
		return time.FixedZone(tz, off), nil
	}
	loc, err := time.LoadLocation(s)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q (a region ID such as Europe/Paris, or an offset such as +05:30; regions come from the system's tz database, or $ZONEINFO): %w", tz, err)
	}
	return loc, nil
}

// offsetAt is the zone's offset from UTC in microseconds at the instant us.
func offsetAt(loc *time.Location, us int64) int64 {
	_, off := time.Unix(floorDivSec(us), 0).In(loc).Zone()
	return int64(off) * microsPerSecond
}

func floorDivSec(us int64) int64 {
	s := us / microsPerSecond
	if us%microsPerSecond < 0 {
		s--
	}
	return s
}

// wallToInstant is the instant whose wall clock in loc reads wall (as
// java.time's LocalDateTime.atZone): in an overlap the earlier offset, in a
// gap the wall time moved forward by the gap's length.
func wallToInstant(loc *time.Location, wall int64) int64 {
	before := offsetAt(loc, wall-microsPerDay)
	after := offsetAt(loc, wall+microsPerDay)
	valid := func(off int64) bool { return offsetAt(loc, wall-off) == off }
	switch {
	case valid(before):
		return wall - before // the earlier offset when both are valid
	case valid(after):
		return wall - after
	}
	return wall - before // in a gap: later by the gap's length
}

func bindZoneShift(args []Arg, fromUTC bool) (Bound, error) {
	if !isDateInput(args[0].Type) {
		return Bound{}, typeErr(0, "a timestamp", args[0].Type)
	}
	tz, null, err := literalString(args, 1, "the time zone")
	if err != nil {
		return Bound{}, err
	}
	out := columnar.Timestamp
	if null {
		return nullResult(out), nil
	}
	loc, err := loadZone(tz)
	if err != nil {
		return Bound{}, err
	}
	return Bound{Type: out, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		t, err := microsArg(mem, args, cols, 0, n)
		if err != nil {
			return nil, err
		}
		defer t.Release()
		o := newFixedOut[int64](mem, n)
		for i, v := range fixedValues[int64](t) {
			if t.IsNull(i) {
				continue
			}
			if fromUTC {
				o.V[i] = v + offsetAt(loc, v)
			} else {
				o.V[i] = wallToInstant(loc, v)
			}
		}
		o.nullsFrom(t)
		return o.finish(out), nil
	}}, nil
}
