package lake

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// Bind creates the table, records the query once, and refuses a new query
// on the checkpoint of one whose output the table holds (Append mode).
func TestSinkBind(t *testing.T) { sinkBind(t, filepath.Join(t.TempDir(), "t")) }

// sinkBind runs on the table location path: local, or S3 (s3_test.go).
func sinkBind(t *testing.T, path string) {
	ctx := context.Background()
	s := mustSink(path, SinkOptions{})
	info := sinks.BindInfo{QueryID: "q1", Checkpoint: "/ckpt", LastCommitted: -1, LastPlanned: -1, Mode: sinks.Append, Schema: testSchema}
	id, err := s.Bind(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := LoadSnapshot(path, -1)
	if err != nil {
		t.Fatalf("Bind did not create the table: %v", err)
	}
	if id.Location != s.table.Path() || id.ID != snap.Metadata().ID {
		t.Fatalf("identity %+v, table %s id %s", id, s.table.Path(), snap.Metadata().ID)
	}
	recs, err := sinks.ReadQueryRecords(context.Background(), testLoc(t, path).store, QueriesDir)
	if err != nil || len(recs) != 1 || recs[0] != (sinks.QueryRecord{QueryID: "q1", Checkpoint: "/ckpt"}) {
		t.Fatalf("records %v %v", recs, err)
	}
	runBatch(t, s, memory.DefaultAllocator, sinks.Append, 0, []row{{id: 1, name: "a", value: 1, ts: 1, part: "x"}})

	// The checkpoint was recreated: a new query id with the same directory.
	again := mustSink(path, SinkOptions{})
	info2 := info
	info2.QueryID = "q2"
	if _, err := again.Bind(ctx, info2); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("new query on a recreated checkpoint: %v", err)
	}
	// Complete and Update modes cannot duplicate rows; forced binds.
	for _, c := range []func(*sinks.BindInfo){
		func(i *sinks.BindInfo) { i.Mode = sinks.Complete },
		func(i *sinks.BindInfo) { i.Mode = sinks.Update },
		func(i *sinks.BindInfo) { i.Force = true },
	} {
		i := info2
		c(&i)
		if _, err := mustSink(path, SinkOptions{}).Bind(ctx, i); err != nil {
			t.Fatalf("%+v: %v", i, err)
		}
	}
	// q2 owns the checkpoint now: q1's record is gone.
	recs, _ = sinks.ReadQueryRecords(context.Background(), testLoc(t, path).store, QueriesDir)
	if len(recs) != 1 || recs[0].QueryID != "q2" {
		t.Fatalf("records after q2 took the checkpoint over: %v", recs)
	}
}

// A batch without rows makes no commit; a restart whose checkpoint ends
// with such batches still binds, a replay of one is skipped, and a table
// restored to an older version is still refused.
func TestSinkEmptyBatches(t *testing.T) { sinkEmptyBatches(t, filepath.Join(t.TempDir(), "t")) }

// sinkEmptyBatches runs on the table location path: local, or S3
// (s3_test.go).
func sinkEmptyBatches(t *testing.T, path string) {
	ctx := context.Background()
	mem := memory.DefaultAllocator
	info := sinks.BindInfo{QueryID: "q1", Checkpoint: "/ckpt", LastCommitted: -1, LastPlanned: -1, Mode: sinks.Append, Schema: testSchema}
	s := mustSink(path, SinkOptions{})
	if _, err := s.Bind(ctx, info); err != nil {
		t.Fatal(err)
	}
	version := func() int64 {
		snap, err := LoadSnapshot(path, -1)
		if err != nil {
			t.Fatal(err)
		}
		return snap.Version()
	}
	runBatch(t, s, mem, sinks.Append, 0, []row{{id: 1, name: "a", part: "x"}})
	runBatch(t, s, mem, sinks.Append, 1, nil)
	runBatch(t, s, mem, sinks.Append, 2, nil)
	if v := version(); v != 1 {
		t.Fatalf("version %d after one batch with rows and two without, want 1 (no empty commits)", v)
	}
	if m := s.Metrics(); m["emptyBatches"] != "2" || m["commits"] != "1" {
		t.Errorf("metrics %v", m)
	}

	// The process dies after the checkpoint committed batch 2: the restart
	// binds, although the table's txn version is 0.
	restart := func(last int64) (*Sink, error) {
		s := mustSink(path, SinkOptions{})
		i := info
		i.LastCommitted, i.LastPlanned = last, last
		_, err := s.Bind(ctx, i)
		return s, err
	}
	s, err := restart(2)
	if err != nil {
		t.Fatalf("restart after empty batches: %v", err)
	}
	// A replay of empty batch 2 (it died before the checkpoint committed
	// it) is empty again and commits nothing.
	runBatch(t, s, mem, sinks.Append, 2, nil)
	runBatch(t, s, mem, sinks.Append, 3, []row{{id: 2, name: "b", part: "y"}})
	if v := version(); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	// Batches 1 and 2 replayed after batch 3 committed are covered by its txn.
	for _, b := range []int64{1, 2, 3} {
		if runBatch(t, s, mem, sinks.Append, b, []row{{id: 9, name: "dup", part: "z"}}) {
			t.Errorf("replayed batch %d was written", b)
		}
	}
	runBatch(t, s, mem, sinks.Append, 4, nil)
	if _, err := restart(4); err != nil {
		t.Fatalf("restart after batch 3 and empty batch 4: %v", err)
	}

	// Restore the table to before batch 3: the note (txn 3, through 4)
	// does not start at txn 0, so batches 3..4 would be missing: refused.
	if err := testLoc(t, path).store.Delete(ctx, logName(commitName(2))); err != nil {
		t.Fatal(err)
	}
	if _, err := restart(4); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("restart on a restored table: %v, want ErrSinkMismatch", err)
	}
}

// Complete mode skips an empty result only when the table is empty too; an
// empty result over rows empties the table.
func TestSinkEmptyCompleteBatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t")
	s := mustSink(path, SinkOptions{})
	mem := memory.DefaultAllocator
	runBatch(t, s, mem, sinks.Complete, 0, nil)
	runBatch(t, s, mem, sinks.Complete, 1, []row{{id: 1, name: "a", part: "x"}})
	runBatch(t, s, mem, sinks.Complete, 2, nil)
	runBatch(t, s, mem, sinks.Complete, 3, nil)
	snap, err := LoadSnapshot(path, -1)
	if err != nil {
		t.Fatal(err)
	}
	// 0: create, 1: batch 1, 2: batch 2 empties the table; 0 and 3 commit nothing.
	if snap.Version() != 2 || len(snap.Files()) != 0 {
		t.Fatalf("version %d with %d files, want version 2 and no files", snap.Version(), len(snap.Files()))
	}
}
