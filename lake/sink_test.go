package lake

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// mustSink is NewSink for options known to be good.
func mustSink(path string, opts SinkOptions) *Sink {
	s, err := NewSink(path, opts)
	if err != nil {
		panic(err)
	}
	return s
}

func runBatch(t *testing.T, s *Sink, mem memory.Allocator, mode sinks.OutputMode, id int64, rows []row) bool {
	t.Helper()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q1", BatchID: id, Mode: mode, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if w.Skip() {
		w.Abort()
		return false
	}
	for lo := 0; lo < len(rows); lo += 100 {
		rec := makeRecord(mem, rows[lo:min(lo+100, len(rows))])
		err := w.Write(ctx, rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return true
}

func TestSinkModesExactlyOnce(t *testing.T) {
	sinkModesExactlyOnce(t, func(t *testing.T) string { return t.TempDir() })
}

// sinkModesExactlyOnce runs on tables at newDir(t): local directories, or
// S3 locations (s3_test.go).
func sinkModesExactlyOnce(t *testing.T, newDir func(*testing.T) string) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewSource(3))
	for _, mode := range []sinks.OutputMode{sinks.Append, sinks.Complete, sinks.Update} {
		t.Run(mode.String(), func(t *testing.T) {
			dir := newDir(t)
			opts := SinkOptions{Table: Options{PartitionBy: []string{"part"}, Allocator: mem, CheckpointInterval: 4}}
			if mode == sinks.Update {
				opts.KeyColumns = []string{"id"}
			}
			s := mustSink(dir, opts)
			var want []row
			oracle := map[int64]row{}
			for id := int64(0); id < 6; id++ {
				rows := randomRows(rng, 1+rng.Intn(300), id*1000)
				if mode == sinks.Update {
					for i := range rows {
						rows[i].id = rng.Int63n(400)
					}
				}
				if !runBatch(t, s, mem, mode, id, rows) {
					t.Fatalf("batch %d skipped", id)
				}
				// Replays of this and earlier batches are skipped.
				if runBatch(t, s, mem, mode, id, rows) || runBatch(t, s, mem, mode, id/2, rows) {
					t.Fatalf("replayed batch %d was not skipped", id)
				}
				// A fresh sink (restart) also skips it.
				if runBatch(t, mustSink(dir, opts), mem, mode, id, rows) {
					t.Fatalf("batch %d not skipped after restart", id)
				}
				switch mode {
				case sinks.Append:
					want = append(want, rows...)
				case sinks.Complete:
					want = rows
				case sinks.Update:
					for _, r := range rows {
						oracle[r.id] = r
					}
					want = want[:0]
					for _, r := range oracle {
						want = append(want, r)
					}
				}
				snap, err := LoadSnapshot(dir, -1)
				if err != nil {
					t.Fatal(err)
				}
				if v, _ := snap.TxnVersion("q1"); v != id {
					t.Fatalf("txn version %d, want %d", v, id)
				}
				assertLines(t, fmt.Sprintf("%s batch %d", mode, id), tableLines(t, snap, mem), rowLines(want))
			}
			if m := s.Metrics(); m["commits"] != "6" {
				t.Errorf("metrics %v", m)
			}
		})
	}
}

func TestKilledWriterLeavesTableReadable(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(rand.New(rand.NewSource(4)), 100, 0)
	rec := makeRecord(mem, rows)
	defer rec.Release()
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	// A writer dies after writing data files and a temp commit file, before
	// the link: orphans only.
	s, _ := tbl.Snapshot()
	if _, _, err := tbl.writeFiles(ctx, s, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, logDir, ".00000000000000000002.json.dead.tmp"), []byte(`{"add":`), 0o644)
	s, err = tbl.Snapshot()
	if err != nil || s.Version() != 1 {
		t.Fatalf("after crash: v%v %v", s, err)
	}
	assertLines(t, "after crash", tableLines(t, s, mem), rowLines(rows))
	// The next commit takes version 2.
	if v, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil || v != 2 {
		t.Fatalf("append after crash: v%d %v", v, err)
	}
}

// Update without key columns is refused with advice, at Start and at Begin.
func TestSinkUpdateNeedsKeyColumns(t *testing.T) {
	s := mustSink(filepath.Join(t.TempDir(), "t"), SinkOptions{})
	for _, m := range []sinks.OutputMode{sinks.Append, sinks.Complete} {
		if err := s.CheckMode(m); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	err := s.CheckMode(sinks.Update)
	if err == nil || !strings.Contains(err.Error(), "set lake.SinkOptions.KeyColumns") {
		t.Fatalf("Update: %v", err)
	}
	if _, err := s.Begin(context.Background(), sinks.BatchInfo{QueryID: "q", Mode: sinks.Update, Schema: testSchema}); err == nil ||
		!strings.Contains(err.Error(), "KeyColumns") {
		t.Fatalf("Begin in Update mode: %v", err)
	}
}
