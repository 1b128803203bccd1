package e2e_test

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources"
)

// TestS3DeltaToDeltaRecovery: a query streams a Delta table on the S3
// server (lake.Source) into another Delta table there (lake.Sink), with
// its checkpoint on S3 too. It crashes at a step of batch 1, restarts on
// the S3 checkpoint, and the output table holds every row of the input
// exactly once (the sink's txn action makes the replayed batch a no-op);
// the output read as a static table agrees.
func TestS3DeltaToDeltaRecovery(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	t.Setenv(checkpoint.WorkDirEnv, t.TempDir())
	for _, step := range []string{exec.StepDataRead, exec.StepSinkCommitted, exec.StepCommitWritten} {
		t.Run(step, func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			base := "s3://" + srv.NewBucket(t)
			in, out, ckpt := base+"/tables/in", base+"/tables/out", base+"/queries/copy"
			tbl, err := lake.Create(ctx, in, deltaSrcSchema, lake.Options{Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			var want [][]any
			for i := int64(0); i < 3; i++ {
				want = append(want, appendDelta(t, tbl, mem, i*100, 10+i)...)
			}
			fault := &crash{step: step, batch: 1}
			zero := int64(0)
			start := func() *millrace.Query {
				src := testutil.Must(lake.NewSource(in, lake.SourceOptions{StartingVersion: &zero}))
				sink := testutil.Must(lake.NewSink(out, lake.SinkOptions{Table: lake.Options{Allocator: mem}}))
				q, err := millrace.ReadStream(src).WriteStream(sink).Allocator(mem).Checkpoint(ckpt).
					ReadLimit(sources.ReadLimit{MaxFiles: 1}).FaultInjection(fault.hook).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return q
			}
			q := start()
			if err := q.ProcessAllAvailable(ctx); !errors.Is(err, errCrash) {
				t.Fatalf("want the simulated crash, got %v", err)
			}
			_ = q.Stop()
			q = start()
			if err := q.ProcessAllAvailable(ctx); err != nil {
				t.Fatal(err)
			}
			if err := q.Stop(); err != nil {
				t.Fatal(err)
			}
			snap, err := lake.LoadSnapshot(out, -1)
			if err != nil {
				t.Fatal(err)
			}
			if d := testutil.Diff(deltaRows(t, ctx, mem, snap.ReadAll), want); d != "" {
				t.Fatal(d)
			}
			static, err := lake.NewStaticTable(out)
			if err != nil {
				t.Fatal(err)
			}
			if d := testutil.Diff(deltaRows(t, ctx, mem, func(ctx context.Context, mem memory.Allocator, _ ...lake.Predicate) ([]arrow.RecordBatch, error) {
				return static.ReadAll(ctx, mem)
			}), want); d != "" {
				t.Fatalf("static table: %s", d)
			}
		})
	}
}

// deltaRows returns the rows read as Go values.
func deltaRows(t *testing.T, ctx context.Context, mem memory.Allocator,
	read func(context.Context, memory.Allocator, ...lake.Predicate) ([]arrow.RecordBatch, error)) [][]any {
	t.Helper()
	recs, err := read(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for _, r := range recs {
		rows = append(rows, testutil.Rows(r)...)
		r.Release()
	}
	return rows
}
