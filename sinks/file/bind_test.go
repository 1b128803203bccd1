package file

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// Bind records the owner; a directory with committed batches refuses
// another query, and a directory from before owners were recorded refuses
// a query that never planned a batch.
func TestBind(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := New(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	info := sinks.BindInfo{QueryID: "q1", Checkpoint: "/c1", LastCommitted: -1, LastPlanned: -1, Mode: sinks.Append}
	id, err := s.Bind(ctx, info)
	if err != nil || id.ID == "" {
		t.Fatal(id, err)
	}
	// Binding again (a restart) keeps the id.
	if again, err := s.Bind(ctx, info); err != nil || again != id {
		t.Fatalf("restart: %+v %v, want %+v", again, err, id)
	}
	// No batch yet: another query may take the directory over.
	info2 := info
	info2.QueryID, info2.Checkpoint = "q2", "/c2"
	if _, err := s.Bind(ctx, info2); err != nil {
		t.Fatal(err)
	}
	rec := testRecord(memory.DefaultAllocator, 0, 5)
	writeBatch(t, s, 0, rec)
	rec.Release()
	if _, err := s.Bind(ctx, info); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("another query on a directory with q2's batch: %v", err)
	}
	// q2 itself, after a crash before its checkpoint committed batch 0.
	info2.LastPlanned = 0
	if _, err := s.Bind(ctx, info2); err != nil {
		t.Fatalf("q2 restarting: %v", err)
	}
	// From before owners: refused only for a query that never ran.
	os.Remove(filepath.Join(dir, LogDir, ownerFile))
	if _, err := s.Bind(ctx, info); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("new query on an old directory with batches: %v", err)
	}
	info.LastPlanned, info.LastCommitted = 4, 3
	if _, err := s.Bind(ctx, info); err != nil {
		t.Fatalf("running query on an old directory: %v", err)
	}
	// The owner file is not a batch to readers of the log.
	if batches, err := Committed(dir); err != nil || len(batches) != 1 {
		t.Fatalf("committed batches %v %v", batches, err)
	}
}
