package clicks

import (
	"context"
	"github.com/millrace/millrace/internal/testutil"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/sources"
)

// readAll reads (start, end] of s through its partitions, in order, and
// returns every column as int64s.
func readAll(t *testing.T, s *Source, start, end sources.Offset) [4][]int64 {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var out [4][]int64
	for _, p := range parts {
		err := p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			if rec.NumRows() > BatchRows {
				t.Fatalf("record of %d rows, more than BatchRows", rec.NumRows())
			}
			for c := 0; c < 3; c++ {
				out[c] = append(out[c], rec.Column(c).(*array.Int64).Int64Values()...)
			}
			for _, ts := range rec.Column(3).(*array.Timestamp).TimestampValues() {
				out[3] = append(out[3], int64(ts))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestClicksSplitInvariant: the events of a range do not depend on how the
// range is split into triggers or partitions, and follow the options.
func TestClicksSplitInvariant(t *testing.T) {
	ctx := context.Background()
	o := Options{Seed: 7, Events: 20_000, Campaigns: 50, Users: 1000}
	whole := testutil.Must(New(Options{Seed: 7, Events: 20_000, Campaigns: 50, Users: 1000, NumPartitions: 1}))
	want := readAll(t, whole, encode(0), encode(20_000))

	for _, perTrigger := range []int64{1, 999, 20_000} {
		o.MaxEventsPerTrigger = perTrigger
		o.NumPartitions = 3
		s := testutil.Must(New(o))
		start, err := s.InitialOffset(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got [4][]int64
		for triggers := 0; ; triggers++ {
			end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
			if err != nil {
				t.Fatal(err)
			}
			if end == start {
				break
			}
			if perTrigger == 1 && triggers > 50 {
				// enough to check one-event triggers; jump to the end
				end = encode(20_000)
			}
			part := readAll(t, s, start, end)
			for c := range got {
				got[c] = append(got[c], part[c]...)
			}
			start = end
		}
		for c := range want {
			if len(got[c]) != len(want[c]) {
				t.Fatalf("perTrigger=%d column %d: %d values, want %d", perTrigger, c, len(got[c]), len(want[c]))
			}
			for i := range want[c] {
				if got[c][i] != want[c][i] {
					t.Fatalf("perTrigger=%d column %d row %d: %d, want %d", perTrigger, c, i, got[c][i], want[c][i])
				}
			}
		}
	}

	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for i, id := range want[0] {
		if id != int64(i) {
			t.Fatalf("click_id %d at row %d", id, i)
		}
		if c := want[1][i]; c < 0 || c >= 50 {
			t.Fatalf("campaign %d out of range", c)
		}
		if u := want[2][i]; u < 0 || u >= 1000 {
			t.Fatalf("user %d out of range", u)
		}
		nominal := base + int64(i)*1000
		if ts := want[3][i]; ts > nominal || ts < nominal-(5*time.Second+2*time.Minute).Microseconds() {
			t.Fatalf("event %d time %d outside jitter and lateness of %d", i, ts, nominal)
		}
	}
}

// TestClicksPacingAndAvailableNow: with EventsPerSecond only the events
// the clock has reached exist; AvailableNow fixes the end.
func TestClicksPacingAndAvailableNow(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	s := testutil.Must(New(Options{EventsPerSecond: 100, Clock: func() time.Time { return now }}))
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{}); end != start {
		t.Fatalf("events before the clock moved: %s", end)
	}
	now = now.Add(2 * time.Second)
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{MaxRows: 150})
	if err != nil || end != encode(150) {
		t.Fatalf("limited offset %s, %v; want 150 events", end, err)
	}
	if err := s.PrepareAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	now = now.Add(time.Hour)
	if end, _ := s.LatestOffset(ctx, encode(150), sources.ReadLimit{}); end != encode(200) {
		t.Fatalf("AvailableNow end %s, want 200 events", end)
	}
	if _, err := s.PlanPartitions(encode(10), encode(5)); err == nil {
		t.Fatal("backwards range: no error")
	}
	if _, err := s.PlanPartitions("garbage", encode(5)); err == nil {
		t.Fatal("bad offset: no error")
	}
}
