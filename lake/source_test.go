package lake

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// readBatch plans and reads (start, end] of src.
func readBatch(t *testing.T, src *Source, mem memory.Allocator, start, end sources.Offset) []string {
	t.Helper()
	parts, err := src.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for _, p := range parts {
		if err := p.Read(context.Background(), mem, func(r arrow.RecordBatch) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	for _, r := range recs {
		out = append(out, recLines(r)...)
		r.Release()
	}
	return sortStrings(out)
}

func TestSourceStreamsCommits(t *testing.T) { sourceStreamsCommits(t, t.TempDir()) }

// sourceStreamsCommits runs on the table location dir: a local directory,
// or S3 (s3_test.go).
func sourceStreamsCommits(t *testing.T, dir string) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(6))
	appendRows := func(n int, base int64) []row {
		rows := randomRows(rng, n, base)
		rec := makeRecord(mem, rows)
		defer rec.Release()
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	first := append(appendRows(100, 0), appendRows(50, 1000)...)
	src, err := NewSource(dir, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start, _ := src.InitialOffset(ctx)
	end, err := src.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "starting snapshot", readBatch(t, src, mem, start, end), rowLines(first))
	if again, _ := src.LatestOffset(ctx, end, sources.ReadLimit{}); again != end {
		t.Fatalf("no new data but offset moved: %s -> %s", end, again)
	}
	next := appendRows(70, 2000)
	// One file per trigger: batches add up to the commit.
	var got []string
	for start = end; ; start = end {
		end, err = src.LatestOffset(ctx, start, sources.ReadLimit{MaxFiles: 1})
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			break
		}
		if parts, _ := src.PlanPartitions(start, end); len(parts) != 1 {
			t.Fatalf("MaxFiles 1 planned %d files", len(parts))
		}
		got = append(got, readBatch(t, src, mem, start, end)...)
	}
	assertLines(t, "new commit", sortStrings(got), rowLines(next))
	// Compaction is not new data.
	if _, err := tbl.Optimize(ctx); err != nil {
		t.Fatal(err)
	}
	start = end
	end, _ = src.LatestOffset(ctx, start, sources.ReadLimit{})
	if rows := readBatch(t, src, mem, start, end); len(rows) != 0 {
		t.Fatalf("optimize produced %d rows", len(rows))
	}
	// An overwrite fails the stream unless change commits are skipped.
	rec := makeRecord(mem, randomRows(rng, 10, 5000))
	if _, err := tbl.Overwrite(ctx, []arrow.RecordBatch{rec}); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if _, err := src.LatestOffset(ctx, end, sources.ReadLimit{}); !errors.Is(err, ErrNonAppendCommit) {
		t.Fatalf("overwrite: %v", err)
	}
	skip, _ := NewSource(dir, SourceOptions{SkipChangeCommits: true})
	last := appendRows(5, 9000)
	e2, err := skip.LatestOffset(ctx, end, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	assertLines(t, "after skipped change", readBatch(t, skip, mem, end, e2), rowLines(last))
	// Starting at a version streams its commits.
	v := int64(1)
	fromV, _ := NewSource(dir, SourceOptions{StartingVersion: &v})
	s0, _ := fromV.InitialOffset(ctx)
	e0, _ := fromV.LatestOffset(ctx, s0, sources.ReadLimit{MaxRows: 100})
	assertLines(t, "from version 1, 100 rows", readBatch(t, fromV, mem, s0, e0), rowLines(first[:100]))
}
