package checkpoint

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
)

// s3Location is a checkpoint location in a fresh bucket on the test S3
// server, with the local work directory in a temporary directory.
func s3Location(t *testing.T) (loc, work string) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	work = t.TempDir()
	t.Setenv(WorkDirEnv, work)
	return "s3://" + srv.NewBucket(t) + "/queries/q1", work
}

// A checkpoint on S3: the logs, metadata and sink record round-trip through
// a reopen, purge deletes objects, and the local parts live in the work
// directory.
func TestS3CheckpointReopen(t *testing.T) {
	loc, work := s3Location(t)
	d, err := Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := d.Ensure(Metadata{NumStatePartitions: 4, NumSources: 2})
	if err != nil {
		t.Fatal(err)
	}
	for id := int64(0); id < 5; id++ {
		if err := d.WriteOffsets(OffsetEntry{BatchID: id, BatchTimestampMs: 1700000000000 + id, Offsets: []string{itoa(id), ""}}); err != nil {
			t.Fatal(err)
		}
		if id < 4 {
			if err := d.WriteCommit(CommitEntry{BatchID: id, NextBatchWatermarkMs: id * 10}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.WriteSink(SinkRecord{Location: "s3://tables/t", ID: "t-1"}); err != nil {
		t.Fatal(err)
	}
	if err := d.Purge(2); err != nil {
		t.Fatal(err)
	}
	if got, want := d.StateDir(), filepath.Join(work, "state"); !strings.HasPrefix(got, work) || !strings.HasSuffix(got, "state") {
		t.Fatalf("StateDir = %s, want under %s (%s)", got, work, want)
	}
	d2, err := reopen(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c, e := d2.Batches(); a != 2 || b != 4 || c != 2 || e != 3 {
		t.Fatalf("batches after reopen: offsets %d..%d commits %d..%d, want 2..4, 2..3", a, b, c, e)
	}
	e, ok, err := d2.LatestOffsets()
	if err != nil || !ok || e.BatchID != 4 || e.Offsets[0] != "4" {
		t.Fatalf("latest offsets = %+v %v %v", e, ok, err)
	}
	c, ok, err := d2.LatestCommit()
	if err != nil || !ok || c.NextBatchWatermarkMs != 30 {
		t.Fatalf("latest commit = %+v %v %v", c, ok, err)
	}
	m, ok, err := d2.Metadata()
	if err != nil || !ok || m.ID != meta.ID {
		t.Fatalf("metadata = %+v %v %v, want id %s", m, ok, err, meta.ID)
	}
	if r, ok, err := d2.Sink(); err != nil || !ok || r.ID != "t-1" {
		t.Fatalf("sink = %+v %v %v", r, ok, err)
	}
	// A missing offsets file that the logs need is reported naming the object.
	if _, err := d2.Offsets(0); err == nil || !strings.Contains(err.Error(), loc+"/offsets/0") {
		t.Fatalf("read of a purged entry: %v", err)
	}
}

// Two processes on one S3 checkpoint (no lock on object storage): for each
// entry exactly one wins the conditional write, the other gets ErrExists.
func TestS3CheckpointTwoWriters(t *testing.T) {
	loc, _ := s3Location(t)
	d, err := Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Ensure(Metadata{NumSources: 1}); err != nil {
		t.Fatal(err)
	}
	d.Close()
	var dirs [2]*Dir
	for i := range dirs {
		if dirs[i], err = Open(loc); err != nil {
			t.Fatal(err)
		}
		defer dirs[i].Close()
	}
	for _, write := range []func(d *Dir) error{
		func(d *Dir) error { return d.WriteOffsets(OffsetEntry{BatchID: 0, Offsets: []string{"1"}}) },
		func(d *Dir) error { return d.WriteCommit(CommitEntry{BatchID: 0}) },
	} {
		var wg sync.WaitGroup
		var errs [2]error
		for i, d := range dirs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = write(d) }()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("want exactly one writer to win, got %v and %v", errs[0], errs[1])
		}
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrExists) {
				t.Fatalf("loser: %v, want ErrExists", err)
			}
		}
		// The loser's view is behind; it must reopen, as a restarted query does.
		for i := range dirs {
			dirs[i].Close()
			if dirs[i], err = Open(loc); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Inspect reads a checkpoint on S3 (it used to stat the s3:// location as
// a local path and fail).
func TestS3Inspect(t *testing.T) {
	loc, _ := s3Location(t)
	d, err := Open(loc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Ensure(Metadata{NumStatePartitions: 2, NumSources: 1}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteOffsets(OffsetEntry{BatchID: 0, Offsets: []string{"1"}}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCommit(CommitEntry{BatchID: 0}); err != nil {
		t.Fatal(err)
	}
	r, err := Inspect(loc)
	if err != nil {
		t.Fatal(err)
	}
	if r.LatestCommitBatchID != 0 || r.NextBatchID != 1 || r.Metadata == nil || r.Metadata.NumStatePartitions != 2 {
		t.Fatalf("inspect %s: %+v", loc, r)
	}
	if got := StateLocation(loc); got != loc+"/state" || StateLocation(t.TempDir()) != "" {
		t.Fatalf("StateLocation(%s) = %s", loc, got)
	}
	if _, err := Inspect(loc + "-none"); !errors.Is(err, ErrNotCheckpoint) {
		t.Fatalf("inspect of an empty prefix: %v, want ErrNotCheckpoint", err)
	}
}
