package lake

import (
	"context"
	"math/rand"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestOptimizeVacuum(t *testing.T) { optimizeVacuum(t, t.TempDir()) }

// optimizeVacuum runs on the table location dir: a local directory, or S3
// (s3_test.go).
func optimizeVacuum(t *testing.T, dir string) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := Create(ctx, dir, testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem, TargetFileSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(5))
	var all []row
	for i := 0; i < 8; i++ {
		rows := randomRows(rng, 50, int64(i*100))
		rec := makeRecord(mem, rows)
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		all = append(all, rows...)
	}
	before, _ := tbl.Files()
	res, err := tbl.Optimize(ctx)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := tbl.Files()
	if res.FilesRemoved != len(before) || len(after) != 5 || res.FilesAdded != 5 {
		t.Fatalf("optimize %+v: %d files before, %d after", res, len(before), len(after))
	}
	for _, f := range after {
		if f.DataChange {
			t.Fatalf("optimize add with dataChange=true: %s", f.Path)
		}
	}
	s, _ := tbl.Snapshot()
	assertLines(t, "after optimize", tableLines(t, s, mem), rowLines(all))
	hist, _ := tbl.History()
	if hist[0].Info.Operation != "OPTIMIZE" {
		t.Fatalf("history %+v", hist[0].Info)
	}
	if res, _ := tbl.Optimize(ctx); res.Version != -1 {
		t.Fatalf("second optimize did something: %+v", res)
	}
	// Vacuum: default retention keeps everything; short retention needs Force.
	if gone, err := tbl.Vacuum(ctx, VacuumOptions{}); err != nil || len(gone) != 0 {
		t.Fatalf("vacuum default: %v %v", gone, err)
	}
	if _, err := tbl.Vacuum(ctx, VacuumOptions{Retention: time.Hour}); err == nil {
		t.Fatal("short retention without Force accepted")
	}
	tbl.now = func() time.Time { return time.Now().Add(time.Minute) }
	gone, err := tbl.Vacuum(ctx, VacuumOptions{Retention: time.Second, Force: true})
	if err != nil || len(gone) != len(before) {
		t.Fatalf("vacuum removed %d files (%v), want %d", len(gone), err, len(before))
	}
	s, _ = tbl.Snapshot()
	assertLines(t, "after vacuum", tableLines(t, s, mem), rowLines(all))
}
