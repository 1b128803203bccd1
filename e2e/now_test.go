package e2e_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestCurrentTimestamp: every row of a batch gets the batch's processing
// time, from the query's clock.
func TestCurrentTimestamp(t *testing.T) {
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	var clock atomic.Int64 // µs; the engine reads it from its own goroutine
	clock.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixMicro())
	now := func() time.Time { return time.UnixMicro(clock.Load()) }
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := millrace.ReadStream(src).Select(millrace.Col("user"), millrace.CurrentTimestamp().As("p_time")).
		WriteStream(rec).Clock(now).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range split(genClicks(30, 1, 0), 3) {
		clock.Add(int64(time.Duration(i+1) * time.Minute / time.Microsecond))
		if _, err := src.AddRows(clickRows(c)...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	_, batches := rec.Batches()
	if len(batches) != 3 {
		t.Fatalf("%d batches", len(batches))
	}
	want := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, b := range batches {
		want = want.Add(time.Duration(i+1) * time.Minute)
		for _, row := range b {
			if row[1] != want.UnixMicro() {
				t.Fatalf("batch %d: p_time %v, want %v", i, row[1], want.UnixMicro())
			}
		}
	}
}
