package e2e_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks/blackhole"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestForeachBatchReplay: a windowed count written through ForeachBatch
// to two sinks with Batch.WriteTo crashes after the function has run for
// batch 3 but before the batch commits. On restart the function is called
// again for batch 3, with the same rows, and each sink holds every batch
// once: the recorder's rows equal the oracle's, the Delta table has one
// commit per batch with rows.
func TestForeachBatchReplay(t *testing.T) {
	const delay = 10 * time.Second
	w := windowSpec{size: 60 * second, slide: 20 * second}
	chunks := split(genClicks(1500, 17, 0.05), 6)
	want, _ := oracle(chunks, w, millrace.Append, int64(delay/time.Microsecond))
	var wantRows [][]any
	for _, b := range want {
		wantRows = append(wantRows, b...)
	}
	dir := t.TempDir()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := testutil.NewRecorder()
	table := testutil.Must(lake.NewSink(filepath.Join(dir, "table"), lake.SinkOptions{}))
	calls := map[int64][]uint64{} // batch id -> checksum of the rows of each call
	fn := func(ctx context.Context, b *millrace.Batch) error {
		var sum uint64
		for _, r := range b.Records {
			sum += blackhole.RecordChecksum(r)
		}
		calls[b.ID] = append(calls[b.ID], sum)
		if err := b.WriteTo(ctx, rec); err != nil {
			return err
		}
		return b.WriteTo(ctx, table)
	}
	fault := &crash{step: exec.StepSinkCommitted, batch: 3}
	ctx := context.Background()
	start := func(added int) (*millrace.Query, *memsrc.Source) {
		src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
		for _, c := range chunks[:added] {
			if _, err := src.AddRows(clickRows(c)...); err != nil {
				t.Fatal(err)
			}
		}
		q, err := clickQuery(src, w, delay).ForeachBatch(fn).OutputMode(millrace.Append).Allocator(mem).
			StatePartitions(4).Checkpoint(filepath.Join(dir, "ckpt")).FaultInjection(fault.hook).Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return q, src
	}
	q, src := start(0)
	for i, c := range chunks {
		if _, err := src.AddRows(clickRows(c)...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			if !errors.Is(err, errCrash) {
				t.Fatal(err)
			}
			_ = q.Stop()
			q, src = start(i + 1)
			if err := q.ProcessAllAvailable(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	if !fault.crashed {
		t.Fatal("the query never crashed")
	}
	if len(calls[3]) != 2 || calls[3][0] != calls[3][1] {
		t.Fatalf("batch 3 was handed over %d times with checksums %v; want twice with the same rows", len(calls[3]), calls[3])
	}
	for id, sums := range calls {
		if id != 3 && len(sums) != 1 {
			t.Fatalf("batch %d was handed over %d times", id, len(sums))
		}
	}
	if d := testutil.Diff(rec.All(), wantRows); d != "" {
		t.Fatal(d)
	}
	snap, err := lake.LoadSnapshot(filepath.Join(dir, "table"), -1)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for _, f := range snap.Files() {
		n, ok := f.NumRecords()
		if !ok {
			t.Fatalf("file %s has no numRecords statistic", f.Path)
		}
		rows += n
	}
	if rows != int64(len(wantRows)) {
		t.Fatalf("the Delta table holds %d rows, want %d (each batch once)", rows, len(wantRows))
	}
}
