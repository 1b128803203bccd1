package file

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/millrace/millrace/sources"
)

// drain runs triggers from cur until the offset stops moving and returns
// the rows read, the trigger sizes and the last offset; check sees every
// new offset.
func drain(t *testing.T, s *Source, cur sources.Offset, check func(sources.Offset)) (rows []string, sizes []int, end sources.Offset) {
	t.Helper()
	ctx := context.Background()
	mem := checkedMem(t)
	for {
		next, err := s.LatestOffset(ctx, cur, sources.ReadLimit{})
		if err != nil {
			t.Fatal(err)
		}
		if next == cur {
			return rows, sizes, cur
		}
		parts, err := s.PlanPartitions(cur, next)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(parts))
		r, err := readRange(t, mem, s, cur, next)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r...)
		if check != nil {
			check(next)
		}
		cur = next
	}
}

func decoded(t *testing.T, o sources.Offset) state {
	t.Helper()
	st, err := decodeState(o)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// With MaxFileAge the offset keeps only the files of one age window (the
// record stays bounded over many files), every file inside the window is
// read exactly once across triggers and restarts, and a file that turns up
// with a modification time older than the window is ignored, as Spark's
// maxFileAge documents.
func TestBoundedSeenFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	opts := Options{Path: dir, Format: JSON, Schema: clickSchema, MaxFileAge: 10 * time.Second, MaxFilesPerTrigger: 7}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := s.InitialOffset(ctx)
	var all []string
	maxSeen := 0
	// 300 files, one a second, added 30 at a time between triggers.
	for round := 0; round < 10; round++ {
		for i := round * 30; i < (round+1)*30; i++ {
			writeFile(t, dir, fmt.Sprintf("f%04d.json", i), fmt.Sprintf(`{"n":%d}`+"\n", i), i)
		}
		if round == 5 { // a restarted source continues from the offset
			s, _ = New(opts)
		}
		rows, sizes, end := drain(t, s, cur, func(o sources.Offset) {
			st := decoded(t, o)
			maxSeen = max(maxSeen, len(st.Seen))
			latest := int64(0)
			for _, ms := range st.Seen {
				latest = max(latest, ms)
			}
			for name, ms := range st.Seen {
				if ms < latest-10_000 {
					t.Fatalf("offset keeps %s, modified %d ms before the newest file", name, latest-ms)
				}
			}
		})
		for _, n := range sizes {
			if n > 7 {
				t.Fatalf("a trigger read %d files, MaxFilesPerTrigger is 7", n)
			}
		}
		all = append(all, rows...)
		cur = end
	}
	if len(all) != 300 {
		t.Fatalf("read %d rows of 300 files", len(all))
	}
	for i, r := range all {
		if r != fmt.Sprintf("null|%d|null", i) {
			t.Fatalf("row %d = %s", i, r)
		}
	}
	if maxSeen > 11 { // files modified in the last 10 s, one a second
		t.Fatalf("the record of seen files grew to %d names", maxSeen)
	}
	// Late arrivals: one older than the window is ignored for good, one
	// inside it is read once.
	writeFile(t, dir, "late-old.json", `{"n":-1}`+"\n", 280)
	writeFile(t, dir, "late-new.json", `{"n":-2}`+"\n", 295)
	rows, _, end := drain(t, s, cur, nil)
	if !slices.Equal(rows, []string{"null|-2|null"}) {
		t.Fatalf("late files read as %v, want only late-new.json", rows)
	}
	if next, _ := s.LatestOffset(ctx, end, sources.ReadLimit{}); next != end {
		t.Fatalf("offset moved with nothing new: %s", next)
	}
}

// A local query checkpointed before MaxFileAge existed (v1 offsets, every
// name) continues in the bounded layout when the option is set, without
// reading any file again.
func TestBoundedUpgradesListOffset(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		writeFile(t, dir, fmt.Sprintf("f%d.json", i), fmt.Sprintf(`{"n":%d}`+"\n", i), i)
	}
	old, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema})
	start, _ := old.InitialOffset(ctx)
	v1, _ := old.LatestOffset(ctx, start, sources.ReadLimit{})
	if decoded(t, v1).bounded() {
		t.Fatalf("local source without MaxFileAge wrote %s", v1)
	}
	writeFile(t, dir, "f5.json", `{"n":5}`+"\n", 5)
	s, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema, MaxFileAge: time.Hour})
	rows, sizes, end := drain(t, s, v1, nil)
	if !slices.Equal(rows, []string{"null|5|null"}) || !slices.Equal(sizes, []int{1}) {
		t.Fatalf("after the upgrade read %v in %v", rows, sizes)
	}
	if st := decoded(t, end); !st.bounded() || len(st.Seen) != 6 || st.Batch != 1 {
		t.Fatalf("upgraded offset %s", end)
	}
	// Once bounded, a source without the option keeps the bounded layout.
	s2, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema})
	writeFile(t, dir, "f6.json", `{"n":6}`+"\n", 6)
	rows, _, end2 := drain(t, s2, end, nil)
	if !slices.Equal(rows, []string{"null|6|null"}) || !decoded(t, end2).bounded() {
		t.Fatalf("read %v, offset %s", rows, end2)
	}
	if _, err := s.PlanPartitions(v1, end2); err == nil {
		t.Fatal("PlanPartitions accepted an end two batches past its start")
	}
}
