package file

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/storage"
)

// s3Sink returns a sink directory in a fresh bucket of the test S3 server
// and the Store on it.
func s3Sink(t *testing.T) (string, storage.Store) {
	t.Helper()
	return s3test.Start(t).NewStore(t, "out/clicks")
}

func objectNames(t *testing.T, st storage.Store) []string {
	t.Helper()
	objs, err := st.List(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		names = append(names, o.Name)
	}
	return names
}

// On S3 a committed batch is replayed as a skip; a batch whose attempt
// crashed after uploading data objects but before its log entry is
// invisible to readers, and its replay by a restarted sink removes the
// orphans and commits the batch once. The output equals the local sink's.
func TestS3SinkExactlyOnce(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir, st := s3Sink(t)
	ctx := context.Background()
	local := t.TempDir()
	r0, r1 := testRecord(mem, 0, 5), testRecord(mem, 5, 4)
	defer r0.Release()
	defer r1.Release()
	for _, d := range []string{dir, local} {
		s, err := New(d, Options{MaxRowsPerFile: 2})
		if err != nil {
			t.Fatal(err)
		}
		writeBatch(t, s, 0, r0)
	}
	s, _ := New(dir, Options{MaxRowsPerFile: 2})
	if w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: 0, Mode: sinks.Append}); err != nil || !w.Skip() {
		t.Fatalf("replay of committed batch 0: %v, skip %v", err, w != nil && w.Skip())
	}
	// batch 1 crashes after two data objects are uploaded
	w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: 1, Mode: sinks.Append, Schema: testSchema})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(ctx, r1); err != nil {
		t.Fatal(err)
	}
	orphans := objectNames(t, st)
	if n := len(orphans); n != 3+2+2 { // batch 0: 3 files, its log entry; the log marker; batch 1: 2 files
		t.Fatalf("objects after the crash: %v", orphans)
	}
	if lines, _ := ReadCommittedLines(dir); len(lines) != 5 {
		t.Fatalf("readers see %d rows, want batch 0's 5", len(lines))
	}
	// restart: a new sink replays batch 1
	s2, err := New(dir, Options{MaxRowsPerFile: 2})
	if err != nil {
		t.Fatal(err)
	}
	writeBatch(t, s2, 1, r1)
	ls, _ := New(local, Options{MaxRowsPerFile: 2})
	writeBatch(t, ls, 1, r1)
	got, err := ReadCommittedLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ReadCommittedLines(local)
	if len(got) != 9 || !slices.Equal(got, want) {
		t.Fatalf("S3 output %v\nlocal output %v", got, want)
	}
	names := objectNames(t, st)
	for _, n := range orphans {
		if strings.HasPrefix(n, "part-1-") && slices.Contains(names, n) {
			t.Fatalf("orphan %s of the crashed attempt survived the replay: %v", n, names)
		}
	}
	cb, err := Committed(dir)
	if err != nil || len(cb) != 2 || cb[1].Rows != 4 || !strings.HasPrefix(cb[1].Files[0], dir+"/part-1-0-") {
		t.Fatalf("Committed = %+v, %v", cb, err)
	}
	rows, err := ReadCommitted(dir)
	if err != nil || len(rows) != 9 {
		t.Fatalf("ReadCommitted: %d rows, %v", len(rows), err)
	}
	if m := s2.Metrics(); m["numOutputRows"] != "4" || m["numFiles"] != "2" {
		t.Fatalf("metrics %v", m)
	}
	// an empty batch commits an entry with no files, so its replay skips
	writeBatch(t, s2, 2)
	if w, err := s2.Begin(ctx, sinks.BatchInfo{BatchID: 2, Mode: sinks.Append}); err != nil || !w.Skip() {
		t.Fatalf("replay of empty batch 2: %v", err)
	}
	if cb, _ := Committed(dir); len(cb) != 3 || len(cb[2].Files) != 0 {
		t.Fatalf("Committed = %+v", cb)
	}
}

// The log entry is created, never replaced: an attempt that finds its own
// entry (its PUT's answer was lost) has committed; one that finds another
// writer's entry fails, removes its data objects and leaves the committed
// output alone. Abort removes uploaded objects.
func TestS3SinkLogEntryWrittenOnce(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir, st := s3Sink(t)
	ctx := context.Background()
	s, err := New(dir, Options{MaxRowsPerFile: 2})
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord(mem, 0, 3)
	defer rec.Release()
	begin := func(id int64) *writer {
		w, err := s.Begin(ctx, sinks.BatchInfo{BatchID: id, Mode: sinks.Append, Schema: testSchema})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		return w.(*writer)
	}
	// own entry already there
	w := begin(0)
	w.closeFile(ctx)
	entry, _ := encodeLogEntry(w.files)
	if err := st.WriteNew(ctx, logName(0), entry); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(ctx); err != nil {
		t.Fatalf("commit finding its own entry: %v", err)
	}
	// another writer's entry
	w = begin(1)
	if err := st.WriteNew(ctx, logName(1), []byte(logVersion+"\n")); err != nil {
		t.Fatal(err)
	}
	err = w.Commit(ctx)
	if !errors.Is(err, storage.ErrExists) || !strings.Contains(err.Error(), "committed by another writer") {
		t.Fatalf("commit over another entry: %v", err)
	}
	if cb, _ := Committed(dir); len(cb) != 2 || cb[1].Rows != 0 {
		t.Fatalf("the other writer's batch 1 changed: %+v", cb)
	}
	// abort
	w = begin(2)
	w.Abort()
	for _, n := range objectNames(t, st) {
		if strings.HasPrefix(n, "part-1-") || strings.HasPrefix(n, "part-2-") {
			t.Fatalf("object %s of a failed or aborted attempt left behind", n)
		}
	}
}

// A sink on S3 binds to its query with its s3:// location, and errors
// name the bucket.
func TestS3SinkBindAndErrors(t *testing.T) {
	dir, _ := s3Sink(t)
	ctx := context.Background()
	s, err := New(dir+"/", Options{Format: CSV})
	if err != nil {
		t.Fatal(err)
	}
	info := sinks.BindInfo{QueryID: "q1", Checkpoint: "s3://c/q1", LastCommitted: -1, LastPlanned: -1, Mode: sinks.Append}
	id, err := s.Bind(ctx, info)
	if err != nil || id.Location != dir || id.ID == "" {
		t.Fatalf("Bind = %+v, %v", id, err)
	}
	writeBatch(t, s, 0, testRecord(memory.DefaultAllocator, 0, 3))
	info2 := info
	info2.QueryID = "q2"
	if _, err := s.Bind(ctx, info2); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("another query bound: %v", err)
	}
	if rows, err := ReadCommitted(dir); err != nil || len(rows) != 3 {
		t.Fatalf("CSV on S3: %v %v", rows, err)
	}
	bucket := fmt.Sprintf("millrace-no-such-bucket-%d", time.Now().UnixNano())
	if _, err := New("s3://"+bucket+"/out", Options{}); err == nil || !strings.Contains(err.Error(), bucket) {
		t.Fatalf("missing bucket: %v", err)
	}
}
