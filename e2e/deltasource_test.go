package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources"
)

var deltaSrcSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "tag", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

func appendDelta(t *testing.T, tbl *lake.Table, mem memory.Allocator, lo, n int64) [][]any {
	t.Helper()
	b := array.NewRecordBuilder(mem, deltaSrcSchema)
	defer b.Release()
	var rows [][]any
	for i := lo; i < lo+n; i++ {
		b.Field(0).(*array.Int64Builder).Append(i)
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("t%d", i%3))
		rows = append(rows, []any{i, fmt.Sprintf("t%d", i%3)})
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if _, err := tbl.Append(context.Background(), []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestDeltaSourceFromVersionZeroRecovery streams a Delta table from
// version 0 (its creation) in a checkpointed query, one file per trigger,
// crashes it at each step of a batch and restarts it on the checkpoint: the
// output holds every row of the table exactly once.
func TestDeltaSourceFromVersionZeroRecovery(t *testing.T) {
	steps := []string{exec.StepOffsetsWritten, exec.StepDataRead, exec.StepSinkCommitted, exec.StepCommitWritten}
	for _, step := range steps {
		for _, crashBatch := range []int64{0, 2} {
			t.Run(fmt.Sprintf("%s/batch-%d", step, crashBatch), func(t *testing.T) {
				ctx := context.Background()
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				tblDir, ckpt := t.TempDir(), t.TempDir()
				tbl, err := lake.Create(ctx, tblDir, deltaSrcSchema, lake.Options{Allocator: mem})
				if err != nil {
					t.Fatal(err)
				}
				var want [][]any
				for i := int64(0); i < 4; i++ {
					want = append(want, appendDelta(t, tbl, mem, i*100, 10+i)...)
				}
				rec := testutil.NewRecorder()
				fault := &crash{step: step, batch: crashBatch}
				zero := int64(0)
				start := func() *millrace.Query {
					src, err := lake.NewSource(tblDir, lake.SourceOptions{StartingVersion: &zero})
					if err != nil {
						t.Fatal(err)
					}
					q, err := millrace.ReadStream(src).WriteStream(rec).Allocator(mem).Checkpoint(ckpt).
						ReadLimit(sources.ReadLimit{MaxFiles: 1}).FaultInjection(fault.hook).Start(ctx)
					if err != nil {
						t.Fatal(err)
					}
					return q
				}
				q := start()
				err = q.ProcessAllAvailable(ctx)
				if !errors.Is(err, errCrash) {
					t.Fatalf("want the simulated crash, got %v", err)
				}
				_ = q.Stop()
				q = start()
				if err := q.ProcessAllAvailable(ctx); err != nil {
					t.Fatal(err)
				}
				// New commits after the restart arrive too.
				want = append(want, appendDelta(t, tbl, mem, 1000, 5)...)
				if err := q.ProcessAllAvailable(ctx); err != nil {
					t.Fatal(err)
				}
				if err := q.Stop(); err != nil {
					t.Fatal(err)
				}
				if d := testutil.Diff(rec.All(), want); d != "" {
					t.Fatal(d)
				}
			})
		}
	}
}
