package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
)

// TestDriverPurgesLogs runs more batches than the logs retain: the driver
// purges every few batches (not after each), so between DefaultRetain and
// DefaultRetain+9 committed batches stay, and a restart still works.
func TestDriverPurgesLogs(t *testing.T) {
	const batches = 125
	dir := t.TempDir()
	run := func(events int64) {
		src := testutil.Must(clicks.New(clicks.Options{Events: events, MaxEventsPerTrigger: 10, Interval: time.Millisecond}))
		q, err := millrace.ReadStream(src).Select(millrace.Col("user_id")).
			WriteStream(testutil.Must(blackhole.New())).Trigger(millrace.AvailableNow()).Checkpoint(dir).Start(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if err := q.AwaitTermination(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	run(batches * 10)
	count := func(sub string) int {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	for _, sub := range []string{"offsets", "commits"} {
		if n := count(sub); n < checkpoint.DefaultRetain || n >= checkpoint.DefaultRetain+10 {
			t.Fatalf("%s holds %d entries after %d batches, want %d to %d", sub, n, batches, checkpoint.DefaultRetain, checkpoint.DefaultRetain+9)
		}
	}
	t.Logf("offsets %d commits %d", count("offsets"), count("commits"))
	run(batches*10 + 50) // a restart on the purged logs goes on
	if n := count("commits"); n < checkpoint.DefaultRetain || n >= checkpoint.DefaultRetain+10 {
		t.Fatalf("commits holds %d entries after the restart", n)
	}
}
