package millrace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	filesink "github.com/millrace/millrace/sinks/file"
	"github.com/millrace/millrace/sources/clicks"
)

// ForeachBatch hands each micro-batch to a function, as Spark's
// foreachBatch. Here every batch goes to two sinks: a Delta table and a
// directory of JSON files. Batch.WriteTo writes under the query's id and
// the batch id, and both sinks skip a batch they already hold, so a batch
// that runs again after a crash (the function is called again with the
// same id and rows) is written once to each.
func ExampleStream_ForeachBatch() {
	dir, _ := os.MkdirTemp("", "foreachbatch")
	defer os.RemoveAll(dir)
	table := testutil.Must(lake.NewSink(filepath.Join(dir, "counts"), lake.SinkOptions{}))
	files := testutil.Must(filesink.New(filepath.Join(dir, "counts-json"), filesink.Options{}))

	src := testutil.Must(clicks.New(clicks.Options{Events: 150_000, MaxEventsPerTrigger: 50_000, Campaigns: 2}))
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", 10*time.Second).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"))

	q, err := counts.ForeachBatch(func(ctx context.Context, b *millrace.Batch) error {
		fmt.Printf("batch %d: %d rows\n", b.ID, b.NumRows())
		if err := b.WriteTo(ctx, table); err != nil {
			return err
		}
		return b.WriteTo(ctx, files)
	}).
		OutputMode(millrace.Append).
		Trigger(millrace.AvailableNow()).
		Checkpoint(filepath.Join(dir, "checkpoint")).
		Start(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	snap, _ := lake.LoadSnapshot(filepath.Join(dir, "counts"), -1)
	rows, _ := filesink.ReadCommitted(filepath.Join(dir, "counts-json"))
	fmt.Printf("Delta table: version %d, %d files; JSON: %d rows\n", snap.Version(), len(snap.Files()), len(rows))
	// Output:
	// batch 0: 0 rows
	// batch 1: 5 rows
	// batch 2: 2 rows
	// batch 3: 2 rows
	// Delta table: version 3, 3 files; JSON: 9 rows
}
