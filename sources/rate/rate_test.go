package rate

import (
	"context"
	"encoding/json"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

var t0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// readAll reads (start, end] and returns (value, timestamp) pairs sorted by
// value, checking record sizes and schema.
func readAll(t *testing.T, mem memory.Allocator, s *Source, start, end sources.Offset) [][2]int64 {
	t.Helper()
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]int64
	for _, p := range parts {
		err := p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			if rec.NumRows() > BatchRows || rec.NumRows() == 0 {
				t.Errorf("record of %d rows", rec.NumRows())
			}
			if !rec.Schema().Equal(Schema()) {
				t.Errorf("schema %s", rec.Schema())
			}
			ts := rec.Column(0).(*array.Timestamp).TimestampValues()
			vs := rec.Column(1).(*array.Int64).Int64Values()
			for i := range vs {
				rows = append(rows, [2]int64{vs[i], int64(ts[i])})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i][0] < rows[j][0] })
	return rows
}

func offValue(t *testing.T, o sources.Offset) int64 {
	t.Helper()
	d, err := decodeOffset(o)
	if err != nil {
		t.Fatal(err)
	}
	return d.Value
}

func TestRateRowsAndTimestamps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rps   int64
		parts int
		after time.Duration
		want  int64
	}{
		{"1 per second", 1, 1, 5 * time.Second, 5},
		{"3 per second split", 3, 2, 1500 * time.Millisecond, 4},
		{"7 per second, 3 parts", 7, 3, 10 * time.Second, 70},
		{"large", 1_000_000, 4, 50 * time.Millisecond, 50_000},
		{"more parts than rows", 2, 8, 1 * time.Second, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			clk := &fakeClock{t0}
			s, err := New(Options{RowsPerSecond: tc.rps, NumPartitions: tc.parts, Clock: clk.now})
			if err != nil {
				t.Fatal(err)
			}
			start, _ := s.InitialOffset(context.Background())
			clk.t = t0.Add(tc.after)
			end, err := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
			if err != nil {
				t.Fatal(err)
			}
			if got := offValue(t, end); got != tc.want {
				t.Fatalf("latest value %d, want %d", got, tc.want)
			}
			rows := readAll(t, mem, s, start, end)
			if int64(len(rows)) != tc.want {
				t.Fatalf("read %d rows, want %d", len(rows), tc.want)
			}
			for i, r := range rows {
				v := int64(i)
				// Oracle: exact rational arithmetic in float is fine here.
				want := t0.UnixMicro() + int64(float64(v)*1e6/float64(tc.rps)+1e-9)
				if r[0] != v || r[1] != want || r[1] != timestampOf(v, t0.UnixMicro(), tc.rps) {
					t.Fatalf("row %d = %v, want value %d ts %d", i, r, v, want)
				}
				if r[1] > clk.t.UnixMicro() {
					t.Fatalf("row %d has a future timestamp", i)
				}
			}
		})
	}
}

func TestRateDeterministicAcrossInstancesAndPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	clk := &fakeClock{t0}
	a, _ := New(Options{RowsPerSecond: 12345, NumPartitions: 1, Clock: clk.now})
	start, _ := a.InitialOffset(context.Background())
	clk.t = t0.Add(3 * time.Second)
	end, _ := a.LatestOffset(context.Background(), start, sources.ReadLimit{})
	want := readAll(t, mem, a, start, end)

	// A second instance (a "restart" at a later wall-clock time, different
	// partitioning) replays the recorded offsets and must yield the same rows.
	clk2 := &fakeClock{t0.Add(time.Hour)}
	b, _ := New(Options{RowsPerSecond: 12345, NumPartitions: 5, Clock: clk2.now})
	got := readAll(t, mem, b, start, end)
	if len(got) != len(want) || len(want) != 3*12345 {
		t.Fatalf("rows %d vs %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d differs: %v vs %v", i, got[i], want[i])
		}
	}
	// The restarted instance continues the recorded timeline.
	next, _ := b.LatestOffset(context.Background(), end, sources.ReadLimit{})
	if v := offValue(t, next); v != 3600*12345 {
		t.Fatalf("after restart latest value %d", v)
	}
}

func TestRateSplitIntoTriggersEqualsOneBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	clk := &fakeClock{t0}
	s, _ := New(Options{RowsPerSecond: 1000, NumPartitions: 3, Clock: clk.now})
	first, _ := s.InitialOffset(context.Background())
	clk.t = t0.Add(20 * time.Second)
	var all [][2]int64
	cur := first
	for {
		next, err := s.LatestOffset(context.Background(), cur, sources.ReadLimit{MaxRows: 777})
		if err != nil {
			t.Fatal(err)
		}
		if next == cur {
			break
		}
		if d := offValue(t, next) - offValue(t, cur); d > 777 {
			t.Fatalf("batch of %d rows exceeds MaxRows", d)
		}
		all = append(all, readAll(t, mem, s, cur, next)...)
		cur = next
	}
	whole := readAll(t, mem, s, first, cur)
	if len(all) != 20000 || len(whole) != 20000 {
		t.Fatalf("rows %d and %d", len(all), len(whole))
	}
	for i := range whole {
		if all[i] != whole[i] {
			t.Fatalf("row %d differs", i)
		}
	}
}

func TestRateRampUp(t *testing.T) {
	// Spark's example: rampUpTime 4s, 10 rows/s → 0 2 6 12 20 30 40.
	clk := &fakeClock{t0}
	s, _ := New(Options{RowsPerSecond: 10, RampUpTime: 4 * time.Second, Clock: clk.now})
	start, _ := s.InitialOffset(context.Background())
	for sec, want := range []int64{0, 2, 6, 12, 20, 30, 40} {
		clk.t = t0.Add(time.Duration(sec) * time.Second)
		end, _ := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
		if got := offValue(t, end); got != want {
			t.Errorf("after %ds: %d rows, want %d", sec, got, want)
		}
	}
	clk.t = t0.Add(4500 * time.Millisecond)
	end, _ := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
	if got := offValue(t, end); got != 25 {
		t.Errorf("after 4.5s: %d rows, want 25", got)
	}
}

func TestRateAvailableNowAndOffsets(t *testing.T) {
	clk := &fakeClock{t0}
	s, _ := New(Options{RowsPerSecond: 10, Clock: clk.now})
	start, _ := s.InitialOffset(context.Background())
	again, _ := s.InitialOffset(context.Background())
	if start != again {
		t.Fatalf("InitialOffset changed: %s vs %s", start, again)
	}
	var doc map[string]int64
	if err := json.Unmarshal([]byte(start), &doc); err != nil || doc["value"] != 0 || doc["startMicros"] != t0.UnixMicro() {
		t.Fatalf("offset %s: %v", start, err)
	}
	clk.t = t0.Add(2 * time.Second)
	if err := s.PrepareAvailableNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	clk.t = t0.Add(time.Minute)
	end, _ := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
	if v := offValue(t, end); v != 20 {
		t.Fatalf("AvailableNow end %d, want 20", v)
	}
	// A restarted instance prepared for AvailableNow keeps the recorded timeline.
	clk2 := &fakeClock{t0.Add(5 * time.Second)}
	r, _ := New(Options{RowsPerSecond: 10, Clock: clk2.now})
	r.PrepareAvailableNow(context.Background())
	clk2.t = t0.Add(time.Hour)
	if v := offValue(t, must(r.LatestOffset(context.Background(), end, sources.ReadLimit{}))); v != 50 {
		t.Fatalf("restarted AvailableNow end %d, want 50", v)
	}
	if _, err := s.PlanPartitions(end, start); err == nil {
		t.Fatal("reversed range accepted")
	}
	if _, err := s.LatestOffset(context.Background(), "garbage", sources.ReadLimit{}); err == nil {
		t.Fatal("bad offset accepted")
	}
	if _, err := New(Options{RowsPerSecond: -1}); err == nil {
		t.Fatal("negative rate accepted")
	}
}

func BenchmarkRateRead(b *testing.B) {
	mem := memory.NewGoAllocator()
	p := &Partition{From: 0, To: 1 << 20, StartMicros: t0.UnixMicro(), RowsPerSecond: 7777, schema: Schema()}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error { rec.Release(); return nil })
	}
	b.ReportMetric(float64(b.N)*float64(p.To)/b.Elapsed().Seconds(), "rows/s")
}

func must(o sources.Offset, err error) sources.Offset {
	if err != nil {
		panic(err)
	}
	return o
}
