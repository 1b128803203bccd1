package lake

import (
	"context"
	"encoding/hex"
	"errors"
	"math/rand"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// dvProtocol is the protocol a table needs before it may hold DVs.
var dvProtocol = &Protocol{MinReaderVersion: 3, MinWriterVersion: 7,
	ReaderFeatures: []string{"deletionVectors"}, WriterFeatures: []string{"deletionVectors"}}

// deleteWithDV deletes the rows of tbl's latest snapshot whose id matches
// as Spark's DELETE does with deletion vectors: per touched file a remove
// of the logical file and an add of the same data file with a DV holding
// its old deleted rows plus the new ones. storage picks where DVs go: "i"
// inline, "u" one DV file (in subdirectory prefix "dv") for all touched
// files at increasing offsets, "p" the same file by absolute path. It
// returns the committed version and the deleted rows.
func deleteWithDV(t *testing.T, tbl *Table, mem memory.Allocator, storage string, match func(id int64) bool) (int64, []string) {
	t.Helper()
	ctx := context.Background()
	s, err := tbl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	type touched struct {
		f       AddFile
		deleted []uint64
	}
	var hits []touched
	var gone []string
	for _, f := range s.Files() {
		name, _ := decodePath(f.Path)
		old, err := loadDeletionVector(s.loc, &f)
		if err != nil {
			t.Fatal(err)
		}
		var deleted []uint64
		if old != nil {
			deleted = allDeleted(old)
		}
		var pos uint64
		var newRows bool
		err = readDataFile(ctx, mem, s.loc, name, f.Size, s.schema, s.metadata.PartitionColumns, f.PartitionValues, func(r arrow.RecordBatch) error {
			defer r.Release()
			ids := r.Column(0).(*array.Int64)
			lines := recLines(r)
			for i := 0; i < ids.Len(); i++ {
				if match(ids.Value(i)) && !slices.Contains(deleted, pos) {
					deleted = append(deleted, pos)
					gone = append(gone, lines[i])
					newRows = true
				}
				pos++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if newRows {
			slices.Sort(deleted)
			hits = append(hits, touched{f, deleted})
		}
	}
	op := &operation{name: "DELETE", readPaths: map[string]bool{}}
	if s.protocol.MinReaderVersion < 3 {
		op.protocol = dvProtocol
	}
	var blobs [][]byte
	for _, h := range hits {
		blobs = append(blobs, serializeDV(t, h.deleted))
	}
	var offs []int32
	var uuidZ85, dvPath string
	if storage != "i" && len(blobs) > 0 {
		u := make([]byte, 16)
		_, _ = rand.New(rand.NewSource(int64(len(s.files)) + s.version)).Read(u)
		uuidZ85 = z85Encode(u)
		h := hex.EncodeToString(u)
		dvPath = filepath.Join(tbl.Path(), "dv", "deletion_vector_"+h[0:8]+"-"+h[8:12]+"-"+h[12:16]+"-"+h[16:20]+"-"+h[20:]+".bin")
		offs = writeDVFile(t, dvPath, blobs...)
	}
	now := tbl.now().UnixMilli()
	for i, h := range hits {
		p, _ := decodePath(h.f.Path)
		op.readPaths[p] = true
		op.removes = append(op.removes, removeOf(&h.f, now))
		add := h.f
		add.ModificationTime = now
		d := &DeletionVector{StorageType: storage, SizeInBytes: int32(len(blobs[i])), Cardinality: int64(len(h.deleted))}
		switch storage {
		case "i":
			d.PathOrInlineDv = z85Encode(blobs[i])
		case "u":
			d.PathOrInlineDv, d.Offset = "dv"+uuidZ85, &offs[i]
		case "p":
			d.PathOrInlineDv, d.Offset = (&url.URL{Scheme: "file", Path: filepath.ToSlash(dvPath)}).String(), &offs[i]
		}
		add.DeletionVector = d
		op.adds = append(op.adds, add)
	}
	v, err := tbl.commit(ctx, s.version, op)
	if err != nil {
		t.Fatal(err)
	}
	return v, sortStrings(gone)
}

// without returns the lines of all that are not in gone (both sorted).
func without(all, gone []string) []string {
	var out []string
	for _, l := range all {
		if i, ok := slices.BinarySearch(gone, l); ok {
			gone = slices.Delete(slices.Clone(gone), i, i+1)
			continue
		}
		out = append(out, l)
	}
	return out
}

func TestDeletionVectorTable(t *testing.T) {
	for _, parts := range [][]string{nil, {"part"}} {
		t.Run("partitioned="+strings.Join(parts, ","), func(t *testing.T) {
			ctx := context.Background()
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := t.TempDir()
			tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: parts, Allocator: mem, CheckpointInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(11))
			var all []row
			for i := 0; i < 3; i++ {
				rows := randomRows(rng, 200, int64(i)*1000)
				rec := makeRecord(mem, rows)
				if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
					t.Fatal(err)
				}
				rec.Release()
				all = append(all, rows...)
			}
			want := map[int64][]string{}
			snapV := func() int64 { s, _ := tbl.Snapshot(); return s.Version() }
			want[snapV()] = rowLines(all)
			cur := rowLines(all)
			// Inline DVs, then one DV file shared by several data files,
			// then DVs that grow the deleted sets, by absolute path.
			for i, c := range []struct {
				storage string
				match   func(int64) bool
			}{
				{"i", func(id int64) bool { return id%7 == 0 }},
				{"u", func(id int64) bool { return id%5 == 1 }},
				{"p", func(id int64) bool { return id%3 == 2 || id == 1001 }},
			} {
				v, gone := deleteWithDV(t, tbl, mem, c.storage, c.match)
				if len(gone) == 0 {
					t.Fatalf("delete %d deleted nothing", i)
				}
				cur = without(cur, gone)
				want[v] = cur
			}
			check := func(what string) {
				t.Helper()
				for v, w := range want {
					s, err := tbl.SnapshotAt(v)
					if err != nil {
						t.Fatal(err)
					}
					assertLines(t, what, tableLines(t, s, mem), w)
					if n, ok := s.NumRecords(); !ok || n != int64(len(w)) {
						t.Fatalf("%s: version %d NumRecords %d %v, want %d", what, v, n, ok, len(w))
					}
				}
			}
			check("time travel over DV commits")
			// A checkpoint keeps the DVs (it brought deleted rows back when
			// it dropped them).
			if err := tbl.Checkpoint(ctx); err != nil {
				t.Fatal(err)
			}
			check("after a checkpoint")
			latest := snapV()

			// The static join side reads the latest snapshot with its DVs.
			st, err := NewStaticTable(dir)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := st.ReadAll(ctx, mem)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, r := range recs {
				lines = append(lines, recLines(r)...)
				r.Release()
			}
			assertLines(t, "static table", sortStrings(lines), want[latest])

			// Vacuum keeps the DV files the table uses.
			if _, err := tbl.Vacuum(ctx, VacuumOptions{Retention: 1, Force: true}); err != nil {
				t.Fatal(err)
			}
			assertLines(t, "after vacuum", tableLines(t, mustSnap(t, tbl), mem), want[latest])

			// Millrace's writers on a DV table: merge and optimize read
			// the files with their DVs, so deleted rows stay deleted.
			up := []row{all[1], all[3], all[250]}
			for i := range up {
				up[i].value = -1
			}
			up = append(up, row{id: 99999, name: "new", ts: 1_700_000_000_000_000, part: "a"})
			rec := makeRecord(mem, up)
			if _, err := tbl.Merge(ctx, []arrow.RecordBatch{rec}, []string{"id"}); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			byID := map[int64]bool{}
			for _, r := range up {
				byID[r.id] = true
			}
			var merged []string
			for _, l := range want[latest] {
				id := l[:strings.IndexByte(l, '|')]
				if !byID[mustAtoi(id)] {
					merged = append(merged, l)
				}
			}
			merged = sortStrings(append(merged, rowLines(up)...))
			assertLines(t, "merge into a DV table", tableLines(t, mustSnap(t, tbl), mem), merged)
			if _, err := tbl.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			s := mustSnap(t, tbl)
			assertLines(t, "optimize of a DV table", tableLines(t, s, mem), merged)
			for _, f := range s.Files() {
				if f.DeletionVector != nil {
					t.Fatalf("optimize left a DV on %s", f.Path)
				}
			}
			// Once nothing references them, vacuum deletes the DV files.
			removed, err := tbl.Vacuum(ctx, VacuumOptions{Retention: 1, Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(removed, func(p string) bool { return strings.Contains(p, "deletion_vector_") }) {
				t.Fatalf("vacuum kept the unreferenced DV file: %v", removed)
			}
			assertLines(t, "after the last vacuum", tableLines(t, mustSnap(t, tbl), mem), merged)
		})
	}
}

func mustSnap(t *testing.T, tbl *Table) *Snapshot {
	t.Helper()
	s, err := tbl.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAtoi(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestSourceOverDeletionVectors checks the streaming source against
// Spark's Delta source: the starting snapshot is read with its DVs
// applied; a later commit that deletes rows with DVs (a remove and an add
// of the same file) is a change commit, which fails the stream unless
// change commits are skipped.
func TestSourceOverDeletionVectors(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(rand.New(rand.NewSource(3)), 100, 0)
	rec := makeRecord(mem, rows)
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	_, gone := deleteWithDV(t, tbl, mem, "u", func(id int64) bool { return id%4 == 0 })
	live := without(rowLines(rows), gone)

	src, err := NewSource(dir, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := src.InitialOffset(ctx)
	end, err := src.LatestOffset(ctx, start, sources.ReadLimit{MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "starting snapshot with a DV", readBatch(t, src, mem, start, end), live)

	_, _ = deleteWithDV(t, tbl, mem, "i", func(id int64) bool { return id%4 == 1 })
	if _, err := src.LatestOffset(ctx, end, sources.ReadLimit{}); !errors.Is(err, ErrNonAppendCommit) {
		t.Fatalf("a DV delete after the start: %v, want ErrNonAppendCommit", err)
	}
	skip, _ := NewSource(dir, SourceOptions{SkipChangeCommits: true})
	more := randomRows(rand.New(rand.NewSource(4)), 5, 500)
	rec = makeRecord(mem, more)
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	e2, err := skip.LatestOffset(ctx, end, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "after a skipped DV commit", readBatch(t, skip, mem, end, e2), rowLines(more))
}

func TestDVFileMissingNamesFiles(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(mem, randomRows(rand.New(rand.NewSource(3)), 10, 0))
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	deleteWithDV(t, tbl, mem, "u", func(id int64) bool { return id == 3 })
	dvs, _ := filepath.Glob(filepath.Join(dir, "dv", "deletion_vector_*.bin"))
	if len(dvs) != 1 {
		t.Fatalf("DV files %v", dvs)
	}
	os.Remove(dvs[0])
	_, err = mustSnap(t, tbl).ReadAll(ctx, mem)
	if err == nil || !strings.Contains(err.Error(), dvs[0]) || !strings.Contains(err.Error(), ".parquet") {
		t.Fatalf("missing DV file: %v", err)
	}
}
