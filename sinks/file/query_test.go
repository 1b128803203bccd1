package file_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/testutil"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/file"
	"github.com/millrace/millrace/sources/clicks"
)

func clickCounts(mem memory.Allocator) *millrace.Stream {
	src := testutil.Must(clicks.New(clicks.Options{Seed: 7, Events: 30_000, MaxEventsPerTrigger: 5_000}))
	return millrace.ReadStream(src).
		WithWatermark("event_time", 2*time.Second).
		GroupBy(millrace.Window(millrace.Col("event_time"), 5*time.Second), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"), millrace.CountDistinct(millrace.Col("user_id")).As("users"))
}

// TestQueryAppend runs a windowed aggregation into the sink: every window
// and campaign appears once, and the counts add up to the events kept.
func TestQueryAppend(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	sink, err := file.New(dir, file.Options{MaxRowsPerFile: 50})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q, err := clickCounts(mem).WriteStream(sink).Trigger(millrace.AvailableNow()).
		Allocator(mem).Checkpoint(t.TempDir()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := file.ReadCommitted(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 100 {
		t.Fatalf("only %d rows", len(rows))
	}
	seen := map[string]bool{}
	var total int64
	for _, r := range rows {
		w := r["window"].(map[string]any)
		k := fmt.Sprint(w["start"], r["campaign_id"])
		if seen[k] {
			t.Fatalf("window %v campaign %v written twice", w["start"], r["campaign_id"])
		}
		seen[k] = true
		total += r["clicks"].(int64)
		if r["users"].(int64) > r["clicks"].(int64) {
			t.Fatalf("row %v: more users than clicks", r)
		}
	}
	if total > 30_000 || total < 25_000 {
		t.Fatalf("%d clicks counted in closed windows of 30000 events", total)
	}
	if m := sink.Metrics(); m["numOutputRows"] != fmt.Sprint(len(rows)) {
		t.Fatalf("metrics %v, %d rows", m, len(rows))
	}
}

func TestQueryRejectsUpdateAndComplete(t *testing.T) {
	sink, err := file.New(t.TempDir(), file.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []millrace.OutputMode{millrace.Update, millrace.Complete} {
		_, err := clickCounts(memory.DefaultAllocator).WriteStream(sink).OutputMode(m).Start(context.Background())
		if err == nil || !strings.Contains(err.Error(), m.String()+" output mode would rewrite rows") {
			t.Fatalf("%s: got %v", m, err)
		}
	}
}
