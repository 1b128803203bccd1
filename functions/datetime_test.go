package functions

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// randomMicros are instants from year 1 to 9999, both sides of 1970.
func randomMicros(n int) []int64 {
	r := rand.New(rand.NewPCG(1, 2))
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	hi := time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
	out := []int64{0, -1, 1, 951782400_000_000, -2208988800_000_000} // epoch, leap day 2000, 1900
	for len(out) < n {
		out = append(out, lo+r.Int64N(hi-lo))
	}
	return out
}

// TestDateFormatMatchesTime checks the compiled Spark patterns against Go's
// time formatting of the same instants.
func TestDateFormatMatchesTime(t *testing.T) {
	for spark, goLayout := range map[string]string{
		"yyyy-MM-dd HH:mm:ss.SSSSSS": "2006-01-02 15:04:05.000000",
		"EEE, d MMM yy h:mm:ss a":    "Mon, 2 Jan 06 3:04:05 PM",
		"EEEE MMMM dd'T'HH":          "Monday January 02T15",
		"yyyyMMdd HHmmss.SSS":        "20060102 150405.000",
		"M/d/yyyy hh 'o''clock'":     "1/2/2006 03 o'clock",
	} {
		f, err := compileDateFormat(spark, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, us := range randomMicros(2000) {
			want := time.UnixMicro(us).UTC().Format(goLayout)
			if got := string(f.appendFormat(nil, us)); got != want {
				t.Fatalf("%q at %d: %q, time.Format gives %q", spark, us, got, want)
			}
		}
	}
}

// TestDateParseRoundTrip parses what a pattern formats back to the same
// instant, adjacent numbers (yyyyMMddHHmmss) included.
func TestDateParseRoundTrip(t *testing.T) {
	for _, p := range []string{"yyyy-MM-dd HH:mm:ss.SSSSSS", "yyyyMMddHHmmss.SSSSSS", "dd MMMM yyyy hh:mm:ss.SSSSSS a", "yyyy-DDD HH:mm:ss.SSSSSS"} {
		f, err := compileDateFormat(p, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, us := range randomMicros(2000) {
			s := string(f.appendFormat(nil, us))
			got, ok := f.parse(s)
			if !ok || got != us {
				t.Fatalf("%q: %q parses to %d (ok %v), want %d", p, s, got, ok, us)
			}
		}
	}
}

// TestDatePatternErrors checks the patterns refused when bound, each with
// an error that names the problem.
func TestDatePatternErrors(t *testing.T) {
	for _, c := range []struct {
		pattern string
		parsing bool
	}{
		{"YYYY-MM-dd", false}, {"yyyy-ww", false}, {"'open", false}, {"yyyy]", false}, {"[yyyy", false},
		{"MMMMM", false}, {"yyyy{", false}, {"EEE yyyy", true}, {"QQ", true}, {"yyyy zzz", true}, {"A", false},
	} {
		if _, err := compileDateFormat(c.pattern, c.parsing); err == nil {
			t.Errorf("%q (parsing %v) compiled", c.pattern, c.parsing)
		}
	}
	// A format must be a literal: a column is refused when bound.
	_, err := Bind("date_format", []Arg{{Type: columnar.Timestamp}, {Type: arrow.BinaryTypes.String}})
	if err == nil {
		t.Error("date_format with a non-literal pattern bound")
	}
}

// TestTruncAndWeekMatchTime checks date_trunc's units and weekofyear
// against time.Time.
func TestTruncAndWeekMatchTime(t *testing.T) {
	for _, us := range randomMicros(5000) {
		tm := time.UnixMicro(us).UTC()
		y, m, d := tm.Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		for level, want := range map[truncLevel]time.Time{
			truncYear:    time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC),
			truncQuarter: time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC),
			truncMonth:   time.Date(y, m, 1, 0, 0, 0, 0, time.UTC),
			truncWeek:    day.AddDate(0, 0, -((int(tm.Weekday()) + 6) % 7)),
			truncDay:     day,
			truncHour:    tm.Truncate(time.Hour),
			truncSecond:  tm.Truncate(time.Second),
			truncMilli:   tm.Truncate(time.Millisecond),
		} {
			if got := truncMicros(us, level); got != want.UnixMicro() {
				t.Fatalf("trunc %s to level %d: %s, want %s", tm, level, time.UnixMicro(got).UTC(), want)
			}
		}
		_, week := tm.ISOWeek()
		if got := isoWeek(day.Unix() / 86400); int(got) != week && day.Unix() >= 0 {
			t.Fatalf("weekofyear %s: %d, want %d", tm, got, week)
		}
	}
}

func benchTimestamps(b *testing.B) (arrow.Array, int) {
	mem := memory.DefaultAllocator
	tb := array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer tb.Release()
	for _, us := range randomMicros(4096) {
		tb.Append(arrow.Timestamp(us))
	}
	return tb.NewArray(), 4096
}

func benchCall(b *testing.B, name string, args []Arg, col int) {
	ts, n := benchTimestamps(b)
	defer ts.Release()
	bound, err := Bind(name, args)
	if err != nil {
		b.Fatal(err)
	}
	cols := make([]arrow.Array, len(args))
	cols[col] = ts
	b.ReportAllocs()
	b.SetBytes(int64(n) * 8)
	b.ResetTimer()
	for range b.N {
		out, err := bound.Eval(memory.DefaultAllocator, cols, n)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
}

// BenchmarkDateFormat formats 4096 timestamps per op.
func BenchmarkDateFormat(b *testing.B) {
	benchCall(b, "date_format", []Arg{{Type: columnar.Timestamp}, {Type: arrow.BinaryTypes.String, Const: true, Value: "yyyy-MM-dd HH:mm:ss.SSS"}}, 0)
}

// BenchmarkDateTrunc truncates 4096 timestamps per op to their month.
func BenchmarkDateTrunc(b *testing.B) {
	benchCall(b, "date_trunc", []Arg{{Type: arrow.BinaryTypes.String, Const: true, Value: "month"}, {Type: columnar.Timestamp}}, 1)
}

// TestClockFunctions checks the functions that read the clock, which the
// golden files cannot hold: unix_timestamp() is now in seconds and
// current_date() today, in UTC.
func TestClockFunctions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	before := time.Now().Unix()
	b, err := Bind("unix_timestamp", nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Eval(mem, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if v := out.(*array.Int64).Value(1); v < before || v > time.Now().Unix() {
		t.Errorf("unix_timestamp() = %d, now is %d", v, before)
	}
	b, err = Bind("current_date", nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Eval(mem, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	today := time.Now().UTC().Format("2006-01-02")
	if got := d.(*array.Date32).Value(0).FormattedString(); got != today && time.Now().UTC().Format("2006-01-02") == today {
		t.Errorf("current_date() = %s, today is %s", got, today)
	}
}
