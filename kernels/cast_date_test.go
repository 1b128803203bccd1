package kernels

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// TestCivilDaysMatchTime checks the integer civil-date arithmetic against
// time.Time (proleptic Gregorian too) over 2,000 years either side of 1970
// and the leap days.
func TestCivilDaysMatchTime(t *testing.T) {
	for d := int64(-800_000); d <= 800_000; d += 13 {
		tm := time.Unix(d*86400, 0).UTC()
		y, m, dd := CivilFromDays(d)
		if y != int64(tm.Year()) || m != int(tm.Month()) || dd != tm.Day() {
			t.Fatalf("day %d: %d-%d-%d, time says %s", d, y, m, dd, tm.Format("2006-01-02"))
		}
		if back := DaysFromCivil(y, m, dd); back != d {
			t.Fatalf("day %d: back to %d", d, back)
		}
	}
	for _, s := range []string{"2000-02-29", "1900-02-28", "2024-02-29", "1600-02-29", "0001-01-01", "1969-12-31"} {
		tm, _ := time.Parse("2006-01-02", s)
		if got := DaysFromCivil(int64(tm.Year()), int(tm.Month()), tm.Day()); got != tm.Unix()/86400 && tm.Unix() >= 0 {
			t.Errorf("%s: %d", s, got)
		}
	}
}

// TestParseSparkDate covers Spark's stringToDate forms (Spark 4.2 gives
// these results for CAST(s AS DATE)).
func TestParseSparkDate(t *testing.T) {
	for s, want := range map[string]string{
		"2024-02-29":          "2024-02-29",
		" 2024-2-9 ":          "2024-02-09",
		"2024":                "2024-01-01",
		"2024-03":             "2024-03-01",
		"2024-01-15 10:20:30": "2024-01-15",
		"2024-01-15T10:20":    "2024-01-15",
		"2024-01-15Tanything": "2024-01-15",
		"+2024-01-15":         "2024-01-15",
		"2024-02-30":          "",
		"2023-02-29":          "",
		"2024-13-01":          "",
		"24-01-01":            "",
		"2024-001-01":         "",
		"2024-01 10":          "",
		"2024/01/01":          "",
		"":                    "",
		"12345-01-01":         "+12345-01-01",
	} {
		d, ok := ParseSparkDate(s)
		got := ""
		if ok {
			got = string(AppendSparkDate(nil, int64(d)))
		}
		if got != want {
			t.Errorf("ParseSparkDate(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestParseSparkTimestamp covers Spark's stringToTimestamp forms (results
// of Spark 4.2's CAST(s AS TIMESTAMP) in UTC). Before it, CAST read only
// a few fixed layouts: one-digit fields, a bare hour and offsets without a
// colon gave null.
func TestParseSparkTimestamp(t *testing.T) {
	for s, want := range map[string]string{
		"2024-01-15 10:20:30":           "2024-01-15 10:20:30",
		"2024-1-5 1:2:3":                "2024-01-05 01:02:03",
		"2024-01-15 10":                 "2024-01-15 10:00:00",
		"2024-01-15T10":                 "2024-01-15 10:00:00",
		"2024-01-15 10:20:30.":          "2024-01-15 10:20:30",
		"2024-01-15 10:20:30.1234567":   "2024-01-15 10:20:30.123456",
		"2024-01-15 10:20:30 +1":        "2024-01-15 09:20:30",
		"2024-01-15 10:20:30-01:30":     "2024-01-15 11:50:30",
		"2024-01-15 10:20:30+0100":      "2024-01-15 09:20:30",
		"2024-01-15 10:20:30 UTC+01:00": "2024-01-15 09:20:30",
		"2024-01-15 10:20:30Z":          "2024-01-15 10:20:30",
		"2024-01-15 10:20:30.12+01:00":  "2024-01-15 09:20:30.12",
		"2024-01-15":                    "2024-01-15 00:00:00",
		"2024":                          "2024-01-01 00:00:00",
		"1969-12-31 23:59:59.999999":    "1969-12-31 23:59:59.999999",
		"2024-01-15 10:20:30XYZ":        "",
		"2024-01-15 24:00:00":           "",
		"2024-01-15 10:2x":              "",
		"2024-01-15T":                   "",
		"not a time":                    "",
	} {
		us, ok := ParseSparkTimestamp(s)
		got := ""
		if ok {
			got = string(AppendSparkTimestamp(nil, us, arrow.Microsecond))
		}
		if got != want {
			t.Errorf("ParseSparkTimestamp(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestCastDate casts dates to and from strings and timestamps, nulls
// kept, and a timestamp before 1970 floors to its own day.
func TestCastDate(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"2024-02-29", "bad", "1969-12-31"}, nil)
	sb.AppendNull()
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	d, err := Cast(mem, s, arrow.FixedWidthTypes.Date32)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if got := d.String(); got != "[2024-02-29 (null) 1969-12-31 (null)]" {
		t.Errorf("string → date: %s", got)
	}
	back, _ := Cast(mem, d, arrow.BinaryTypes.String)
	defer back.Release()
	if got := back.String(); got != `["2024-02-29" (null) "1969-12-31" (null)]` {
		t.Errorf("date → string: %s", got)
	}
	ts, _ := Cast(mem, d, columnar.Timestamp)
	defer ts.Release()
	if v := ts.(*array.Timestamp).Value(2); v != -86400_000_000 {
		t.Errorf("1969-12-31 → timestamp: %d", v)
	}
	tb := array.NewTimestampBuilder(mem, columnar.Timestamp)
	tb.AppendValues([]arrow.Timestamp{-1, 0, 86400_000_000 - 1}, nil)
	tsa := tb.NewArray()
	tb.Release()
	defer tsa.Release()
	days, _ := Cast(mem, tsa, arrow.FixedWidthTypes.Date32)
	defer days.Release()
	if got := days.String(); got != "[1969-12-31 1970-01-01 1970-01-01]" {
		t.Errorf("timestamp → date: %s", got)
	}
	if _, err := Cast(mem, d, arrow.PrimitiveTypes.Int64); err == nil {
		t.Error("date → bigint: accepted")
	}
	// Dates compare with dates, and with a date literal.
	sel, err := CompareColumns(Le, d, d, nil, nil)
	if err != nil || len(sel) != 2 || sel[1] != 2 {
		t.Errorf("date <= date: %v %v", sel, err)
	}
	sel, err = CompareScalar(Ge, d, arrow.Date32(0), nil, nil)
	if err != nil || len(sel) != 1 || sel[0] != 0 {
		t.Errorf("date >= 1970-01-01: %v %v", sel, err)
	}
}

// TestHashDates hashes a date key as the int32 of its days (the shuffle of
// GROUP BY to_date(ts)); before, every date hashed alike.
func TestHashDates(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	db := array.NewDate32Builder(mem)
	db.AppendValues([]arrow.Date32{19782, -1, 0}, nil)
	d := db.NewArray()
	db.Release()
	defer d.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{19782, -1, 0}, nil)
	i := ib.NewArray()
	ib.Release()
	defer i.Release()
	hd := HashColumns([]arrow.Array{d}, nil, nil)
	hi := HashColumns([]arrow.Array{i}, nil, nil)
	for k := range hd {
		if hd[k] != hi[k] {
			t.Errorf("row %d: date hash %x, int32 hash %x", k, hd[k], hi[k])
		}
	}
	if hd[0] == hd[1] {
		t.Error("different days hash alike")
	}
}
