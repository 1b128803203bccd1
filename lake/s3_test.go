package lake

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/storage"
)

// s3Table returns a table location in a fresh bucket on the test S3
// server, with package storage pointed at the server.
func s3Table(t *testing.T) string {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t)
	return "s3://" + srv.NewBucket(t) + "/tables/t"
}

// noLocalDir fails t if a test on S3 made a local directory named after
// the URL (the old behaviour: s3:// was a relative path).
func noLocalDir(t *testing.T) {
	t.Cleanup(func() {
		for _, d := range []string{"s3:", "s3a:"} {
			if _, err := os.Stat(d); err == nil {
				os.RemoveAll(d)
				t.Errorf("a local directory %s was created for an S3 table", d)
			}
		}
	})
}

func TestS3AppendOverwriteTimeTravel(t *testing.T) {
	noLocalDir(t)
	appendOverwriteTimeTravel(t, s3Table)
}

func TestS3ConcurrentAppendsAndConflicts(t *testing.T) {
	noLocalDir(t)
	concurrentAppends(t, s3Table(t))
}

func TestS3OptimizeVacuum(t *testing.T) {
	noLocalDir(t)
	optimizeVacuum(t, s3Table(t))
}

func TestS3SinkModesExactlyOnce(t *testing.T) {
	noLocalDir(t)
	sinkModesExactlyOnce(t, s3Table)
}

func TestS3SinkBind(t *testing.T) {
	noLocalDir(t)
	sinkBind(t, s3Table(t))
}

func TestS3SinkEmptyBatches(t *testing.T) {
	noLocalDir(t)
	sinkEmptyBatches(t, s3Table(t))
}

func TestS3SourceStreamsCommits(t *testing.T) {
	noLocalDir(t)
	sourceStreamsCommits(t, s3Table(t))
}

// A table on S3 is read as a static table, through s3a:// too (Spark's
// spelling), and with ranged reads when its files are large.
func TestS3StaticTableAndRangedReads(t *testing.T) {
	noLocalDir(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	loc := s3Table(t)
	tbl, err := Create(ctx, loc, testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(rand.New(rand.NewSource(8)), 3000, 0)
	rec := makeRecord(mem, rows)
	_, err = tbl.Append(ctx, []arrow.RecordBatch{rec})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{loc, "s3a" + strings.TrimPrefix(loc, "s3") + "/"} {
		st, err := NewStaticTable(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := st.ReadAll(ctx, mem)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, recLines(r)...)
			r.Release()
		}
		assertLines(t, path, sortStrings(got), rowLines(rows))
	}
	// Every file above the threshold: the footer and column chunks are
	// read with ranged GETs.
	defer func(old int64) { wholeObjectMax = old }(wholeObjectMax)
	wholeObjectMax = 0
	s, err := LoadSnapshot(loc, -1)
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "ranged reads", tableLines(t, s, mem), rowLines(rows))
}

// Errors on S3 name the table's URL, the object and the operation.
func TestS3Errors(t *testing.T) {
	noLocalDir(t)
	loc := s3Table(t)
	if _, err := Open(loc, Options{}); !errors.Is(err, ErrNotATable) || !strings.Contains(err.Error(), loc) {
		t.Fatalf("open of an empty prefix: %v, want ErrNotATable naming %s", err, loc)
	}
	bucket := strings.TrimPrefix(loc, "s3://")
	bucket = bucket[:strings.Index(bucket, "/")]
	missing := "s3://" + bucket + "-missing/t"
	_, err := Open(missing, Options{})
	var serr *storage.Error
	if !errors.As(err, &serr) || serr.Op != "list" || !strings.Contains(err.Error(), bucket+"-missing") ||
		!strings.Contains(err.Error(), "bucket does not exist") {
		t.Fatalf("open in a missing bucket: %v, want a list error naming the bucket", err)
	}
	ctx := context.Background()
	if _, err := Create(ctx, missing, testSchema, Options{}); !strings.Contains(err.Error(), "write-new") ||
		!strings.Contains(err.Error(), missing+"/_delta_log/00000000000000000000.json") {
		t.Fatalf("create in a missing bucket: %v, want a write-new error naming the commit's key", err)
	}
}

// Exists finds a table's log on S3 as on disk, and reports an unreadable
// location as an error rather than as no table.
func TestS3Exists(t *testing.T) {
	loc := s3Table(t)
	for _, dir := range []string{loc, t.TempDir()} {
		if ok, err := Exists(dir); ok || err != nil {
			t.Fatalf("%s before Create: %v %v", dir, ok, err)
		}
		if _, err := Create(context.Background(), dir, testSchema, Options{}); err != nil {
			t.Fatal(err)
		}
		if ok, err := Exists(dir); !ok || err != nil {
			t.Fatalf("%s after Create: %v %v", dir, ok, err)
		}
	}
	if ok, err := Exists(loc + "-missing-bucket-x/t"); err != nil || ok {
		t.Fatalf("other prefix: %v %v", ok, err)
	}
	bucket := strings.SplitN(strings.TrimPrefix(loc, "s3://"), "/", 2)[0]
	if _, err := Exists("s3://" + bucket + "-missing/t"); err == nil || !strings.Contains(err.Error(), "bucket does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
}

// Refused credentials fail Open, the sink's first batch and a read with an
// error naming the operation, the table's key and the cause; they are not
// mistaken for a missing table.
func TestS3CredentialsRefused(t *testing.T) {
	srv := s3test.StartAuth(t)
	srv.Setenv(t)
	loc := "s3://locked-bucket/tables/t"
	want := func(what string, err error, frags ...string) {
		t.Helper()
		if err == nil || errors.Is(err, ErrNotATable) {
			t.Fatalf("%s: %v, want a refusal", what, err)
		}
		for _, f := range append(frags, "credentials refused") {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%s: %q lacks %q", what, err, f)
			}
		}
	}
	_, err := Open(loc, Options{})
	want("open", err, "list "+loc+"/_delta_log/")
	_, err = Exists(loc)
	want("exists", err, "list "+loc+"/_delta_log/")
	_, err = OpenOrCreate(context.Background(), loc, testSchema, Options{})
	want("open or create", err, "list "+loc+"/_delta_log/")
	_, err = NewSource(loc, SourceOptions{})
	want("source", err, "list "+loc+"/_delta_log/")
}

// listCounter is a Store that counts the log entries listings return.
type listCounter struct {
	storage.Store
	listed int
	after  []string
}

func (c *listCounter) List(ctx context.Context, prefix string) ([]storage.ObjectInfo, error) {
	objs, err := c.Store.List(ctx, prefix)
	c.listed += len(objs)
	return objs, err
}

func (c *listCounter) ListAfter(ctx context.Context, prefix, startAfter string) ([]storage.ObjectInfo, error) {
	objs, err := storage.ListAfter(ctx, c.Store, prefix, startAfter)
	c.listed += len(objs)
	c.after = append(c.after, startAfter)
	return objs, err
}

// On S3 the latest snapshot lists the log from the checkpoint
// _last_checkpoint names, and a stream from its offset's version: the
// keys of older versions are never paged through, so a long-running
// stream's growing log does not slow every batch. Time travel below the
// checkpoint still lists everything.
func TestS3LogListedFromCheckpoint(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := s3Table(t)
	tbl, err := Create(ctx, path, testSchema, Options{Allocator: mem, CheckpointInterval: 10})
	if err != nil {
		t.Fatal(err)
	}
	var all []row
	for i := range 23 {
		rows := randomRows(rand.New(rand.NewSource(int64(i))), 3, int64(i*10))
		rec := makeRecord(mem, rows)
		_, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
	}
	c := &listCounter{Store: tbl.loc.store}
	loc := &location{root: tbl.loc.root, store: c}
	s, err := loadSnapshot(loc, -1)
	if err != nil {
		t.Fatal(err)
	}
	// Versions 20..23 and the checkpoint at 20; not _last_checkpoint's
	// neighbours below.
	if s.Version() != 23 || c.listed != 6 || len(c.after) != 1 || c.after[0] != "_delta_log/00000000000000000020" {
		t.Fatalf("latest: version %d, listed %d entries after %v; want version 23 from 6 entries after checkpoint 20",
			s.Version(), c.listed, c.after)
	}
	assertLines(t, "latest from the checkpoint", tableLines(t, s, mem), rowLines(all))

	c.listed, c.after = 0, nil
	if s, err = loadSnapshot(loc, 5); err != nil || s.Version() != 5 || len(c.after) != 0 || c.listed < 24 {
		t.Fatalf("time travel to 5: %v, listed %d after %v; want the whole log", err, c.listed, c.after)
	}
	assertLines(t, "version 5", tableLines(t, s, mem), rowLines(all[:3*5]))

	src, err := NewSource(path, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src.loc = loc
	c.listed, c.after = 0, nil
	from := src.encode(SourceOffset{ReservoirVersion: 22, Index: endIndex})
	end, err := src.LatestOffset(ctx, from, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.after) == 0 || c.after[0] != "_delta_log/00000000000000000022" {
		t.Fatalf("the source listed after %v, want from version 22", c.after)
	}
	assertLines(t, "stream from 22", readBatch(t, src, mem, from, end), rowLines(all[3*22:]))

	// A hint naming a checkpoint that is gone: the whole log is listed
	// and the table still loads (from the checkpoint at 10).
	if err := c.Store.Delete(ctx, logName(fmt.Sprintf("%020d.checkpoint.parquet", 20))); err != nil {
		t.Fatal(err)
	}
	c.listed, c.after = 0, nil
	if s, err = loadSnapshot(loc, -1); err != nil || s.Version() != 23 || c.listed < 24 {
		t.Fatalf("without checkpoint 20: %v, listed %d", err, c.listed)
	}
	assertLines(t, "without checkpoint 20", tableLines(t, s, mem), rowLines(all))
}

func TestS3SnapshotCacheFollowsTheLog(t *testing.T) {
	snapshotCacheFollowsTheLog(t, s3Table(t))
}

// readCounter counts Reads.
type readCounter struct {
	listCounter
	reads []string
}

func (c *readCounter) Read(ctx context.Context, name string) ([]byte, error) {
	c.reads = append(c.reads, name)
	return c.Store.Read(ctx, name)
}

// A handle that keeps its snapshot reads only what changed: after another
// writer's commit, one listing from the kept version and one GET of the
// new commit; with nothing new, one listing. A streaming sink's batch
// reads the latest snapshot twice.
func TestS3SnapshotCacheRequests(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	path := s3Table(t)
	b, err := Create(ctx, path, testSchema, Options{Allocator: mem, CheckpointInterval: 5})
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(rand.New(rand.NewSource(1)), 10, 0)
	rec := makeRecord(mem, rows)
	defer rec.Release()
	for range 7 {
		if _, err := b.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(path, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	c := &readCounter{listCounter: listCounter{Store: a.loc.store}}
	a.loc = &location{root: a.loc.root, store: c}
	a.kept.loc = a.loc
	if _, err := b.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	s, err := a.Snapshot()
	if err != nil || s.Version() != 8 {
		t.Fatalf("version %v %v, want 8", s, err)
	}
	if len(c.after) != 1 || c.after[0] != "_delta_log/00000000000000000007" || len(c.reads) != 1 || c.reads[0] != "_delta_log/00000000000000000008.json" {
		t.Fatalf("listed after %v, read %v; want one listing from version 7 and one read of commit 8", c.after, c.reads)
	}
	c.after, c.reads = nil, nil
	if s2, err := a.Snapshot(); err != nil || s2 != s || len(c.after) != 1 || len(c.reads) != 0 {
		t.Fatalf("nothing new: %v, listed after %v, read %v; want the same snapshot from one listing", err, c.after, c.reads)
	}

	// The handle's own commit advances its snapshot: the next one lists
	// once and reads nothing back, and it equals a fresh load.
	if _, err := a.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	c.after, c.reads = nil, nil
	s3, err := a.Snapshot()
	if err != nil || s3.Version() != 9 || len(c.after) != 1 || len(c.reads) != 0 {
		t.Fatalf("after its own commit: version %d %v, listed after %v, read %v; want version 9 from one listing, nothing read", s3.Version(), err, c.after, c.reads)
	}
	fresh, err := loadSnapshot(a.loc, -1)
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "advanced by its own commit", tableLines(t, s3, mem), tableLines(t, fresh, mem))
	if s3.Timestamp() != fresh.Timestamp() || len(s3.Files()) != len(fresh.Files()) {
		t.Fatalf("advanced snapshot: timestamp %v files %d; fresh load: %v, %d", s3.Timestamp(), len(s3.Files()), fresh.Timestamp(), len(fresh.Files()))
	}
}
