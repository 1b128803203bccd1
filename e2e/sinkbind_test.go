package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/file"
	memsrc "github.com/millrace/millrace/sources/memory"
)

var bindSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// bindRun is one run of a checkpointed query over the same 30 rows (three
// triggers of 10): a projection in Append mode, or a count per key in
// Complete mode.
type bindRun struct {
	ckpt     string
	sink     sinks.Sink
	complete bool
	ignore   bool
}

func (r bindRun) run(t *testing.T) error {
	t.Helper()
	src := testutil.Must(memsrc.New(bindSchema, memsrc.Options{}))
	for b := range 3 {
		rows := make([][]any, 10)
		for i := range rows {
			rows[i] = []any{int64(i % 3), int64(b*10 + i)}
		}
		if _, err := src.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
	}
	s := millrace.ReadStream(src).Select(millrace.Col("k"), millrace.Col("v"))
	mode := millrace.Append
	if r.complete {
		s = millrace.ReadStream(src).GroupBy(millrace.Col("k")).Agg(millrace.Count().As("n"))
		mode = millrace.Complete
	}
	w := s.WriteStream(r.sink).OutputMode(mode).Trigger(millrace.AvailableNow()).
		Checkpoint(r.ckpt).MaxRowsPerTrigger(10)
	if r.ignore {
		w = w.IgnoreSinkMismatch()
	}
	ctx := context.Background()
	q, err := w.Start(ctx)
	if err != nil {
		return err
	}
	return q.AwaitTermination(ctx)
}

func wantMismatch(t *testing.T, what string, err error, frags ...string) {
	t.Helper()
	if !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("%s: %v, want ErrSinkMismatch", what, err)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: error %q lacks %q", what, err, f)
		}
	}
}

func tableRows(t *testing.T, table string) int64 {
	t.Helper()
	snap, err := lake.LoadSnapshot(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := snap.NumRecords()
	return n
}

// Issue 10, item 13: a Delta table deleted, or deleted and recreated,
// under a checkpoint with committed batches used to be refilled silently
// from the next batch on: the earlier batches' output was lost. The
// restart is refused; IgnoreSinkMismatch overrides it once.
func TestBindDeltaTableDeleted(t *testing.T) {
	root := t.TempDir()
	ckpt, table := filepath.Join(root, "ckpt"), filepath.Join(root, "table")
	delta := func() sinks.Sink { return testutil.Must(lake.NewSink(table, lake.SinkOptions{})) }
	if err := (bindRun{ckpt: ckpt, sink: delta()}).run(t); err != nil {
		t.Fatal(err)
	}
	if n := tableRows(t, table); n != 30 {
		t.Fatalf("table has %d rows, want 30", n)
	}
	if err := os.RemoveAll(table); err != nil {
		t.Fatal(err)
	}
	err := bindRun{ckpt: ckpt, sink: delta()}.run(t)
	t.Log(err)
	wantMismatch(t, "table deleted", err, table, "was deleted or replaced", "there is none now", "committed batches up to 2")
	if _, err := os.Stat(table); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused start created a table at %s: %v", table, err)
	}
	// Someone creates another table there: still not the checkpoint's.
	if _, err := lake.Create(context.Background(), table, bindSchema, lake.Options{}); err != nil {
		t.Fatal(err)
	}
	err = bindRun{ckpt: ckpt, sink: delta()}.run(t)
	wantMismatch(t, "table replaced", err, "it is now a different one")

	// The escape hatch, once; then the new table is the checkpoint's.
	if err := (bindRun{ckpt: ckpt, sink: delta(), ignore: true}).run(t); err != nil {
		t.Fatalf("IgnoreSinkMismatch: %v", err)
	}
	if err := (bindRun{ckpt: ckpt, sink: delta()}).run(t); err != nil {
		t.Fatalf("restart after IgnoreSinkMismatch: %v", err)
	}
}

// Issue 10, item 13: a checkpoint deleted while its Delta table kept the
// old output used to start a new query that appended everything again
// (duplicates). The table records which query wrote with which
// checkpoint, so the new query is refused. Another query with its own
// checkpoint may append to the same table, and Complete mode, which
// rewrites the table each batch, is never refused.
func TestBindDeltaCheckpointDeleted(t *testing.T) {
	root := t.TempDir()
	ckpt, table := filepath.Join(root, "ckpt"), filepath.Join(root, "table")
	delta := func() sinks.Sink { return testutil.Must(lake.NewSink(table, lake.SinkOptions{})) }
	if err := (bindRun{ckpt: ckpt, sink: delta()}).run(t); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(ckpt); err != nil {
		t.Fatal(err)
	}
	err := bindRun{ckpt: ckpt, sink: delta()}.run(t)
	t.Log(err)
	wantMismatch(t, "checkpoint deleted", err, table, "the checkpoint was deleted and recreated", "duplicates")
	if n := tableRows(t, table); n != 30 {
		t.Fatalf("table has %d rows after the refusal, want 30", n)
	}
	// A second query with its own checkpoint writes beside the first.
	if err := (bindRun{ckpt: filepath.Join(root, "other"), sink: delta()}).run(t); err != nil {
		t.Fatalf("a second query with its own checkpoint: %v", err)
	}
	if n := tableRows(t, table); n != 60 {
		t.Fatalf("table has %d rows, want 60", n)
	}
	// The escape hatch: the user means it.
	if err := (bindRun{ckpt: ckpt, sink: delta(), ignore: true}).run(t); err != nil {
		t.Fatalf("IgnoreSinkMismatch: %v", err)
	}
	if err := (bindRun{ckpt: ckpt, sink: delta()}).run(t); err != nil {
		t.Fatalf("restart after IgnoreSinkMismatch: %v", err)
	}

	// Complete mode: deleting either side loses nothing for long.
	ckpt2, table2 := filepath.Join(root, "ckpt2"), filepath.Join(root, "table2")
	complete := func() sinks.Sink { return testutil.Must(lake.NewSink(table2, lake.SinkOptions{})) }
	if err := (bindRun{ckpt: ckpt2, sink: complete(), complete: true}).run(t); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(table2)
	if err := (bindRun{ckpt: ckpt2, sink: complete(), complete: true}).run(t); err != nil {
		t.Fatalf("Complete mode, table deleted: %v", err)
	}
	os.RemoveAll(ckpt2)
	if err := (bindRun{ckpt: ckpt2, sink: complete(), complete: true}).run(t); err != nil {
		t.Fatalf("Complete mode, checkpoint deleted: %v", err)
	}
}

// Issue 10, item 13: a table restored to a version before the checkpoint's
// last committed batch misses those batches: refused.
func TestBindDeltaTableRolledBack(t *testing.T) {
	root := t.TempDir()
	ckpt, table := filepath.Join(root, "ckpt"), filepath.Join(root, "table")
	delta := func() sinks.Sink { return testutil.Must(lake.NewSink(table, lake.SinkOptions{})) }
	if err := (bindRun{ckpt: ckpt, sink: delta()}).run(t); err != nil {
		t.Fatal(err)
	}
	// Versions: 0 creates the table, 1..3 are batches 0..2. Roll back the
	// last one, as a restore to version 2 would leave the log.
	last := filepath.Join(table, "_delta_log", "00000000000000000003.json")
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	err := bindRun{ckpt: ckpt, sink: delta()}.run(t)
	wantMismatch(t, "table rolled back", err, "batches only up to 1", "committed batches up to 2", "restored to an older version")
}

// Issue 10, item 13, file sink: its log is keyed by batch id, so a new
// query on an output directory holding another query's batches used to
// skip its own batches as already written (lost) among the old output.
// And an output directory deleted under a checkpoint lost the committed
// batches. Both are refused.
func TestBindFileSink(t *testing.T) {
	root := t.TempDir()
	ckpt, out := filepath.Join(root, "ckpt"), filepath.Join(root, "out")
	fileSink := func() sinks.Sink {
		s, err := file.New(out, file.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := (bindRun{ckpt: ckpt, sink: fileSink()}).run(t); err != nil {
		t.Fatal(err)
	}
	// Checkpoint deleted, output kept.
	os.RemoveAll(ckpt)
	err := bindRun{ckpt: ckpt, sink: fileSink()}.run(t)
	t.Log(err)
	wantMismatch(t, "checkpoint deleted", err, out, "holds committed batches 0..2 of query", "would be skipped")
	// The same for a directory written before owners were recorded.
	os.RemoveAll(ckpt)
	os.Remove(filepath.Join(out, file.LogDir, "owner.json"))
	err = bindRun{ckpt: ckpt, sink: fileSink()}.run(t)
	wantMismatch(t, "checkpoint deleted, old output directory", err, "of an earlier query")

	// Output deleted, checkpoint kept.
	ckpt2, out2 := filepath.Join(root, "ckpt2"), filepath.Join(root, "out2")
	sink2 := func() sinks.Sink {
		s, err := file.New(out2, file.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := (bindRun{ckpt: ckpt2, sink: sink2()}).run(t); err != nil {
		t.Fatal(err)
	}
	if err := (bindRun{ckpt: ckpt2, sink: sink2()}).run(t); err != nil {
		t.Fatalf("plain restart: %v", err)
	}
	os.RemoveAll(out2)
	err = bindRun{ckpt: ckpt2, sink: sink2()}.run(t)
	wantMismatch(t, "output deleted", err, "file sink directory", "was deleted or replaced", "there is none now")
	rows, err := file.ReadCommitted(out2)
	if err != nil || len(rows) != 0 {
		t.Fatalf("the refused start wrote output: %d rows, %v", len(rows), err)
	}
}

// Issue 11, item 5: a trigger whose output is empty makes no Delta commit.
// The query is killed at every step of an empty batch (one in the middle,
// one at the end) and restarted on its checkpoint: the restart binds (the
// table's txn version lags the checkpoint only by empty batches), and the
// table ends with each row once and one commit per batch with rows.
func TestDeltaSinkEmptyBatchRecovery(t *testing.T) {
	// The query is stateless: no state-committed step.
	steps := []string{exec.StepOffsetsWritten, exec.StepDataRead, exec.StepSinkCommitted, exec.StepCommitWritten}
	for _, crashBatch := range []int64{1, 3} {
		for _, step := range steps {
			t.Run(fmt.Sprintf("batch-%d/%s", crashBatch, step), func(t *testing.T) {
				root := t.TempDir()
				ckpt, table := filepath.Join(root, "ckpt"), filepath.Join(root, "table")
				run := func(fault *crash) error {
					src := testutil.Must(memsrc.New(bindSchema, memsrc.Options{}))
					for b := range 4 {
						rows := make([][]any, 10)
						for i := range rows {
							rows[i] = []any{int64(i % 3), int64(b*10 + i)}
						}
						if _, err := src.AddRows(rows...); err != nil {
							t.Fatal(err)
						}
					}
					// Batches 1 (v 10..19) and 3 (v 30..39) keep no row.
					s := millrace.ReadStream(src).Where(millrace.Col("v").Lt(10).Or(millrace.Col("v").Ge(20).And(millrace.Col("v").Lt(30))))
					w := s.WriteStream(testutil.Must(lake.NewSink(table, lake.SinkOptions{}))).OutputMode(millrace.Append).
						Trigger(millrace.AvailableNow()).Checkpoint(ckpt).MaxRowsPerTrigger(10)
					if fault != nil {
						w = w.FaultInjection(fault.hook)
					}
					ctx := context.Background()
					q, err := w.Start(ctx)
					if err != nil {
						return err
					}
					return q.AwaitTermination(ctx)
				}
				fault := &crash{step: step, batch: crashBatch}
				if err := run(fault); !errors.Is(err, errCrash) {
					t.Fatalf("first run: %v, want the simulated crash", err)
				}
				if err := run(nil); err != nil {
					t.Fatalf("restart: %v", err)
				}
				snap, err := lake.LoadSnapshot(table, -1)
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := snap.NumRecords(); n != 20 {
					t.Errorf("table holds %d rows, want 20", n)
				}
				// Version 0 creates the table; batches 0 and 2 commit.
				if snap.Version() != 2 {
					t.Errorf("table version %d, want 2 (no commits for empty batches)", snap.Version())
				}
			})
		}
	}
}
