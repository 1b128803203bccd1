package e2e_test

import (
	"context"
	"github.com/millrace/millrace/internal/testutil"
	"strconv"
	"testing"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
)

// TestAdaptiveReadLimit: triggers are sized by the measured processing
// rate, the chosen limit is reported in progress, and every event is read.
func TestAdaptiveReadLimit(t *testing.T) {
	const events = 500_000
	src := testutil.Must(clicks.New(clicks.Options{Events: events}))
	sink := testutil.Must(blackhole.New())
	q, err := millrace.ReadStream(src).WriteStream(sink).
		Trigger(millrace.AvailableNow()).AdaptiveReadLimit().MaxRowsPerTrigger(200_000).
		Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sink.Rows() != events {
		t.Fatalf("read %d events, want %d", sink.Rows(), events)
	}
	ps := q.RecentProgress()
	if len(ps) < 2 {
		t.Fatalf("%d batches", len(ps))
	}
	if ps[0].NumInputRows != 10_000 {
		t.Fatalf("first trigger read %d rows, want the 10K starting limit", ps[0].NumInputRows)
	}
	grew := false
	for _, p := range ps {
		lim, err := strconv.ParseInt(p.Sources[0].Metrics["adaptiveMaxRows"], 10, 64)
		if err != nil || lim < 1000 || lim > 200_000 {
			t.Fatalf("batch %d: adaptiveMaxRows %q", p.BatchID, p.Sources[0].Metrics["adaptiveMaxRows"])
		}
		grew = grew || p.NumInputRows > 10_000
	}
	if !grew {
		t.Fatal("the limit never grew past the starting size")
	}
}
