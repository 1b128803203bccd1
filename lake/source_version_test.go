package lake

import (
	"context"
	"errors"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// streamAll runs src from start to the end of the log, MaxFiles files per
// batch, and returns the rows (rendered by render) of each batch and the
// offsets after each batch.
func streamAll(t *testing.T, src *Source, mem memory.Allocator, start sources.Offset, maxFiles int,
	render func([]arrow.RecordBatch) []string) ([][]string, []sources.Offset) {
	t.Helper()
	ctx := context.Background()
	var rows [][]string
	var ends []sources.Offset
	for {
		end, err := src.LatestOffset(ctx, start, sources.ReadLimit{MaxFiles: maxFiles})
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			return rows, ends
		}
		parts, err := src.PlanPartitions(start, end)
		if err != nil {
			t.Fatal(err)
		}
		var recs []arrow.RecordBatch
		for _, p := range parts {
			if err := p.Read(ctx, mem, func(r arrow.RecordBatch) error { recs = append(recs, r); return nil }); err != nil {
				t.Fatal(err)
			}
		}
		rows = append(rows, render(recs))
		columnar.ReleaseAll(recs)
		ends = append(ends, end)
		start = end
	}
}

func flat(batches [][]string) []string {
	var out []string
	for _, b := range batches {
		out = append(out, b...)
	}
	return sortStrings(out)
}

func testRender(recs []arrow.RecordBatch) []string {
	var out []string
	for _, r := range recs {
		out = append(out, recLines(r)...)
	}
	return out
}

// TestSourceFromVersionZero starts a source at version 0, the table's
// creation (a commit with protocol and metaData only), of a table appended
// over several versions with a property change between them: every row
// arrives exactly once, and a restart from any batch's end offset goes on
// exactly where the first run stopped.
func TestSourceFromVersionZero(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(17))
	var all []row
	for i := 0; i < 5; i++ {
		rows := randomRows(rng, 30+i*7, int64(i)*1000)
		rec := makeRecord(mem, rows)
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		all = append(all, rows...)
		if i == 2 {
			// ALTER TABLE SET TBLPROPERTIES: a metaData-only commit.
			md := mustSnap(t, tbl).Metadata()
			md.Configuration = StringMap{"delta.appendOnly": "false", "owner": "me"}
			if _, err := tbl.commit(ctx, mustSnap(t, tbl).Version(), &operation{name: "SET TBLPROPERTIES", metadata: &md}); err != nil {
				t.Fatal(err)
			}
		}
	}
	zero := int64(0)
	open := func() *Source {
		src, err := NewSource(dir, SourceOptions{StartingVersion: &zero})
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	src := open()
	start, _ := src.InitialOffset(ctx)
	batches, ends := streamAll(t, src, mem, start, 2, testRender)
	assertLines(t, "from version 0", flat(batches), rowLines(all))
	if len(ends) < 4 {
		t.Fatalf("only %d batches; the restart test needs several", len(ends))
	}
	// Restart after each batch: a new source (as after a process restart)
	// from that batch's end offset yields exactly the rest.
	for k, off := range ends {
		rest, _ := streamAll(t, open(), mem, off, 2, testRender)
		assertLines(t, "restart after a batch", flat(append(append([][]string{}, batches[:k+1]...), rest...)), rowLines(all))
	}
}

// TestSourceSchemaChanges follows Spark's rules for metaData actions in
// streamed commits: a column added before the source opened reads as
// nulls in older files; one added after it fails the stream until a
// restart; a type change fails for good.
func TestSourceSchemaChanges(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	tbl, err := Create(ctx, dir, testSchema, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(mem, randomRows(rand.New(rand.NewSource(1)), 10, 0))
	if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	withColumn := func(name, typ string) {
		t.Helper()
		md := mustSnap(t, tbl).Metadata()
		md.SchemaString = strings.TrimSuffix(md.SchemaString, "]}") +
			`,{"name":"` + name + `","type":"` + typ + `","nullable":true,"metadata":{}}]}`
		if _, err := tbl.commit(ctx, mustSnap(t, tbl).Version(), &operation{name: "ADD COLUMNS", metadata: &md}); err != nil {
			t.Fatal(err)
		}
	}
	withColumn("extra", "long") // version 2
	zero := int64(0)
	src, err := NewSource(dir, SourceOptions{StartingVersion: &zero})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := src.InitialOffset(ctx)
	end, err := src.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatalf("a column added before the source opened: %v", err)
	}
	parts, _ := src.PlanPartitions(start, end)
	for _, p := range parts {
		err := p.Read(ctx, mem, func(r arrow.RecordBatch) error {
			defer r.Release()
			if c := r.Column(r.Schema().FieldIndices("extra")[0]); c.NullN() != c.Len() {
				t.Errorf("old file: extra has values")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	withColumn("later", "string") // version 3, after the source opened
	_, err = src.LatestOffset(ctx, end, sources.ReadLimit{})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "restart the query") || !strings.Contains(err.Error(), "version 3") {
		t.Fatalf("a column added after the source opened: %v", err)
	}
	restarted, _ := NewSource(dir, SourceOptions{StartingVersion: &zero})
	if _, err := restarted.LatestOffset(ctx, end, sources.ReadLimit{}); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	// A type change: not readable with either schema.
	md := mustSnap(t, tbl).Metadata()
	md.SchemaString = strings.Replace(md.SchemaString, `"name":"later","type":"string"`, `"name":"later","type":"integer"`, 1)
	if _, err := tbl.commit(ctx, mustSnap(t, tbl).Version(), &operation{name: "CHANGE COLUMN", metadata: &md}); err != nil {
		t.Fatal(err)
	}
	_, err = restarted.LatestOffset(ctx, end, sources.ReadLimit{})
	if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "restart the query") || !strings.Contains(err.Error(), "later") {
		t.Fatalf("a type change: %v", err)
	}
	// So does a change of partition columns.
	md = mustSnap(t, tbl).Metadata()
	md.PartitionColumns = []string{"part"}
	if _, err := tbl.commit(ctx, mustSnap(t, tbl).Version(), &operation{name: "REPLACE", metadata: &md}); err != nil {
		t.Fatal(err)
	}
	again, _ := NewSource(dir, SourceOptions{StartingVersion: &zero})
	if _, err := again.LatestOffset(ctx, end, sources.ReadLimit{}); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "partition columns") {
		t.Fatalf("a partitioning change: %v", err)
	}
}

// TestSourceFromVersionZeroGolden streams tables no one here wrote from
// version 0 and compares with a batch read of the latest version.
func TestSourceFromVersionZeroGolden(t *testing.T) {
	base := sharedDelta(t)
	for _, c := range []struct {
		table string
		skip  bool // SkipChangeCommits
	}{
		{"delta-rs/simple_table_with_checkpoint", false},
		{"delta-rs/delta-0.8.0-partitioned", false},
		{"delta-rs/delta-0.8.0-null-partition", false},
		{"delta-rs/delta-0.8.0-special-partition", false},
		{"delta-golden/multi-part-checkpoint", false},
		{"delta-golden/data-reader-partition-values", false},
		{"dat/basic_partitioned/delta", false},
		// Version 1 deletes two rows with a deletion vector: a change
		// commit, skipped, as Spark's skipChangeCommits does.
		{"delta-rs/table-with-dv-small", true},
	} {
		t.Run(c.table, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			root := filepath.Join(base, c.table)
			zero := int64(0)
			src, err := NewSource(root, SourceOptions{StartingVersion: &zero, SkipChangeCommits: c.skip})
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for _, f := range src.Schema().Fields() {
				cols = append(cols, f.Name)
			}
			render := func(recs []arrow.RecordBatch) []string { return rowStrings(t, recs, cols) }
			start, _ := src.InitialOffset(context.Background())
			batches, _ := streamAll(t, src, mem, start, 1, render)
			got := flat(batches)
			if c.skip {
				snap, _ := LoadSnapshot(root, 0)
				recs, err := snap.ReadAll(context.Background(), mem)
				if err != nil {
					t.Fatal(err)
				}
				assertLines(t, "from version 0", got, render(recs))
				columnar.ReleaseAll(recs)
				return
			}
			snap, _ := LoadSnapshot(root, -1)
			recs, err := snap.ReadAll(context.Background(), mem)
			if err != nil {
				t.Fatal(err)
			}
			defer columnar.ReleaseAll(recs)
			assertLines(t, "from version 0", got, render(recs))
		})
	}
}
