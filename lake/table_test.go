package lake

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "value", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "part", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// row is one row of testSchema; name "" and part "" are null.
type row struct {
	id    int64
	name  string
	value float64
	ts    int64
	part  string
}

func (r row) String() string {
	n, p := r.name, r.part
	if n == "" {
		n = "(null)"
	}
	if p == "" {
		p = "(null)"
	}
	ts := time.UnixMicro(r.ts).UTC().Format("2006-01-02 15:04:05.000000Z")
	return fmt.Sprintf("%d|%s|%g|%s|%s", r.id, n, r.value, ts, p)
}

func makeRecord(mem memory.Allocator, rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.id)
		if r.name == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(r.name)
		}
		b.Field(2).(*array.Float64Builder).Append(r.value)
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(r.ts))
		if r.part == "" {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.StringBuilder).Append(r.part)
		}
	}
	return b.NewRecordBatch()
}

func randomRows(rng *rand.Rand, n int, idBase int64) []row {
	parts := []string{"a", "b", "c/d", "e f", ""}
	out := make([]row, n)
	for i := range out {
		name := fmt.Sprintf("n%d", rng.Intn(100))
		if rng.Intn(10) == 0 {
			name = ""
		}
		out[i] = row{id: idBase + int64(i), name: name, value: float64(rng.Intn(1000)) / 8,
			ts: 1_700_000_000_000_000 + rng.Int63n(1e12), part: parts[rng.Intn(len(parts))]}
	}
	return out
}

func rowLines(rows []row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.String()
	}
	sort.Strings(out)
	return out
}

// tableLines reads a snapshot and renders its rows like rowLines.
func tableLines(t *testing.T, s *Snapshot, mem memory.Allocator) []string {
	t.Helper()
	recs, err := s.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	defer columnar.ReleaseAll(recs)
	var out []string
	for _, r := range recs {
		out = append(out, recLines(r)...)
	}
	sort.Strings(out)
	return out
}

func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s: got %d rows, want %d\ngot:  %.600s\nwant: %.600s", what, len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAppendOverwriteTimeTravel(t *testing.T) {
	appendOverwriteTimeTravel(t, func(t *testing.T) string { return t.TempDir() })
}

// appendOverwriteTimeTravel runs on tables at newDir(t): local
// directories, or S3 locations (s3_test.go).
func appendOverwriteTimeTravel(t *testing.T, newDir func(*testing.T) string) {
	for _, parts := range [][]string{nil, {"part"}} {
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := newDir(t)
			st := testLoc(t, dir).store
			tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: parts, TargetFileSize: 4 << 10, Allocator: mem, CheckpointInterval: 3})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Create(ctx, dir, testSchema, Options{}); !errors.Is(err, ErrTableExists) {
				t.Fatalf("second Create: %v", err)
			}
			rng := rand.New(rand.NewSource(1))
			var all []row
			var versions [][]string
			for i := 0; i < 5; i++ {
				rows := randomRows(rng, 1+rng.Intn(2000), int64(i*10000))
				rec := makeRecord(mem, rows)
				v, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				if v != int64(i+1) {
					t.Fatalf("version %d, want %d", v, i+1)
				}
				all = append(all, rows...)
				versions = append(versions, rowLines(all))
			}
			s, err := tbl.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, "latest", tableLines(t, s, mem), rowLines(all))
			if len(parts) > 0 {
				for _, f := range s.Files() {
					if !strings.HasPrefix(f.Path, "part=") {
						t.Fatalf("file %s not in a partition dir", f.Path)
					}
				}
			}
			for i, want := range versions {
				s, err := tbl.SnapshotAt(int64(i + 1))
				if err != nil {
					t.Fatal(err)
				}
				assertLines(t, fmt.Sprintf("version %d", i+1), tableLines(t, s, mem), want)
			}
			// Checkpoints at 3 (interval 3): the snapshot must not need commits 0-2.
			if _, err := st.Stat(ctx, logName(fmt.Sprintf("%020d.checkpoint.parquet", 3))); err != nil {
				t.Fatal(err)
			}
			rows := randomRows(rng, 300, 1_000_000)
			rec := makeRecord(mem, rows)
			v, err := tbl.Overwrite(ctx, []arrow.RecordBatch{rec})
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			s, _ = tbl.SnapshotAt(v)
			assertLines(t, "overwrite", tableLines(t, s, mem), rowLines(rows))
			s, _ = tbl.SnapshotAt(v - 1)
			assertLines(t, "before overwrite", tableLines(t, s, mem), rowLines(all))
			// Time travel by timestamp.
			hist, err := tbl.History()
			if err != nil || len(hist) != int(v)+1 || hist[0].Info.Operation != "WRITE" {
				t.Fatalf("history %v %v", hist, err)
			}
			s, err = tbl.SnapshotAtTime(time.UnixMilli(hist[0].Timestamp))
			if err != nil || s.Version() != v {
				t.Fatalf("at time: %v %v", s, err)
			}
			if _, err := tbl.SnapshotAtTime(time.UnixMilli(0)); !errors.Is(err, ErrVersionNotFound) {
				t.Fatalf("before creation: %v", err)
			}
			// Old commits cleaned up: the checkpoint carries the state.
			for v := 0; v < 3; v++ {
				if err := st.Delete(ctx, logName(commitName(int64(v)))); err != nil {
					t.Fatal(err)
				}
			}
			s, err = tbl.SnapshotAt(4)
			if err != nil {
				t.Fatal(err)
			}
			assertLines(t, "from checkpoint", tableLines(t, s, mem), versions[3])
			if _, err := tbl.SnapshotAt(2); !errors.Is(err, ErrVersionNotFound) {
				t.Fatalf("cleaned-up version: %v", err)
			}
		})
	}
}

func TestMergeOracle(t *testing.T) {
	for _, parts := range [][]string{nil, {"part"}} {
		t.Run(fmt.Sprint(parts), func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			tbl, err := Create(ctx, t.TempDir(), testSchema, Options{PartitionBy: parts, TargetFileSize: 2 << 10, Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(2))
			oracle := map[string]row{} // key: id|part
			key := func(r row) string { return fmt.Sprint(r.id, "|", r.part) }
			for round := 0; round < 6; round++ {
				rows := randomRows(rng, 1+rng.Intn(500), 0)
				for i := range rows {
					rows[i].id = rng.Int63n(800) // collide with earlier rows
				}
				rec := makeRecord(mem, rows)
				_, err := tbl.Merge(ctx, []arrow.RecordBatch{rec}, []string{"id", "part"})
				rec.Release()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					oracle[key(r)] = r
				}
				var want []row
				for _, r := range oracle {
					want = append(want, r)
				}
				s, _ := tbl.Snapshot()
				assertLines(t, fmt.Sprintf("round %d", round), tableLines(t, s, mem), rowLines(want))
			}
			// A merge touching one key rewrites few files.
			s, _ := tbl.Snapshot()
			before := len(s.Files())
			var one row
			for _, r := range oracle {
				one = r
				break
			}
			one.value = -1
			rec := makeRecord(mem, []row{one})
			v, err := tbl.Merge(ctx, []arrow.RecordBatch{rec}, []string{"id", "part"})
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			acts, _ := readCommit(testLoc(t, tbl.Path()), v)
			removes := 0
			for _, a := range acts {
				if a.Remove != nil {
					removes++
				}
			}
			if removes != 1 {
				t.Errorf("single-key merge removed %d of %d files, want 1", removes, before)
			}
		})
	}
}

func TestConcurrentAppendsAndConflicts(t *testing.T) { concurrentAppends(t, t.TempDir()) }

// concurrentAppends runs on the table location dir: a local directory, or
// S3 (s3_test.go).
func concurrentAppends(t *testing.T, dir string) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	if _, err := Create(ctx, dir, testSchema, Options{Allocator: mem}); err != nil {
		t.Fatal(err)
	}
	const writers, commits = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	var mu sync.Mutex
	var all []row
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			tbl, err := Open(dir, Options{Allocator: mem})
			if err != nil {
				errs <- err
				return
			}
			for c := 0; c < commits; c++ {
				rows := randomRows(rand.New(rand.NewSource(int64(w*100+c))), 50, int64(w*100000+c*1000))
				rec := makeRecord(mem, rows)
				_, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
				rec.Release()
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				all = append(all, rows...)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	tbl, _ := Open(dir, Options{Allocator: mem})
	s, _ := tbl.Snapshot()
	if s.Version() != writers*commits {
		t.Fatalf("version %d", s.Version())
	}
	assertLines(t, "concurrent appends", tableLines(t, s, mem), rowLines(all))

	// An overwrite that read version v loses to an append at v+1.
	op := &operation{name: "WRITE", readAll: true, readPaths: map[string]bool{}}
	for p := range s.files {
		op.readPaths[p.path] = true
	}
	rec := makeRecord(mem, randomRows(rand.New(rand.NewSource(9)), 10, 0))
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	_, err := tbl.commit(ctx, s.Version(), op)
	if !errors.Is(err, ErrConcurrentModification) || !strings.Contains(err.Error(), fmt.Sprintf("version %d", s.Version()+1)) {
		t.Fatalf("want conflict naming version %d, got %v", s.Version()+1, err)
	}
	// A blind append that read version v succeeds after later appends.
	v, err := tbl.commit(ctx, s.Version(), &operation{name: "WRITE"})
	if err != nil || v != s.Version()+2 {
		t.Fatalf("blind append: v%d %v", v, err)
	}
	// Metadata changes conflict with everything.
	if err := putIfAbsent(context.Background(), testLoc(t, dir), commitName(v+1), []byte(`{"metaData":{"id":"x","format":{"provider":"parquet"},"schemaString":"{}","partitionColumns":[]}}`+"\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.commit(ctx, v, &operation{name: "WRITE"}); !errors.Is(err, ErrConcurrentModification) {
		t.Fatalf("after metadata change: %v", err)
	}
}

// recLines renders a record of testSchema like rowLines.
func recLines(r arrow.RecordBatch) []string {
	ids := r.Column(0).(*array.Int64)
	names := r.Column(1).(*array.String)
	vals := r.Column(2).(*array.Float64)
	ts := r.Column(3).(*array.Timestamp)
	parts := r.Column(4).(*array.String)
	var out []string
	for i := 0; i < int(r.NumRows()); i++ {
		x := row{id: ids.Value(i), value: vals.Value(i), ts: int64(ts.Value(i))}
		if names.IsValid(i) {
			x.name = names.Value(i)
		}
		if parts.IsValid(i) {
			x.part = parts.Value(i)
		}
		out = append(out, x.String())
	}
	return out
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}

// openFDs counts the process's open file descriptors.
func openFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// Data files are closed when finished. pqarrow's Close writes the footer
// but does not close the *os.File it sees only through the counting
// writer, so every data file written stayed open until the garbage
// collector's finalizer ran: a long-running sink could run out of file
// descriptors.
func TestDataFilesClosed(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no finalizers closing files behind our back
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := Create(ctx, t.TempDir(), testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	rec := makeRecord(mem, randomRows(rand.New(rand.NewSource(2)), 500, 0))
	defer rec.Release()
	for i := 0; i < 4; i++ {
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
	}
	if after := openFDs(t); after > before {
		t.Fatalf("%d file descriptors open after writing 20 data files, %d before: data files are left open", after, before)
	}
}
