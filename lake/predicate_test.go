package lake

import (
	"context"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestPruningAndSkipping(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tbl, err := Create(ctx, t.TempDir(), testSchema, Options{PartitionBy: []string{"part"}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(7))
	var all []row
	for i := 0; i < 4; i++ { // ids of commit i in [i*1000, i*1000+100)
		rows := randomRows(rng, 100, int64(i*1000))
		rec := makeRecord(mem, rows)
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		all = append(all, rows...)
	}
	s, _ := tbl.Snapshot()
	total := len(s.Files())
	count := func(preds ...Predicate) int {
		fs, err := s.ScanFiles(preds...)
		if err != nil {
			t.Fatal(err)
		}
		return len(fs)
	}
	if n := count(Predicate{Column: "part", Op: OpEq, Value: "a"}); n != 4 {
		t.Errorf("part = a kept %d files, want 4 (one per commit)", n)
	}
	if n := count(Predicate{Column: "part", Op: OpIsNull}); n != 4 {
		t.Errorf("part IS NULL kept %d files", n)
	}
	if n := count(Predicate{Column: "id", Op: OpGe, Value: 3000}); n != 5 {
		t.Errorf("id >= 3000 kept %d of %d files, want 5", n, total)
	}
	if n := count(Predicate{Column: "id", Op: OpEq, Value: 1050}, Predicate{Column: "part", Op: OpEq, Value: "b"}); n != 1 {
		t.Errorf("id = 1050 AND part = b kept %d files", n)
	}
	if n := count(Predicate{Column: "id", Op: OpLt, Value: int64(0)}); n != 0 {
		t.Errorf("id < 0 kept %d files", n)
	}
	if n := count(Predicate{Column: "ts", Op: OpGe, Value: time.UnixMicro(0)}); n != total {
		t.Errorf("ts >= epoch kept %d of %d", n, total)
	}
	if n := count(Predicate{Column: "ts", Op: OpLt, Value: time.UnixMicro(0)}); n != 0 {
		t.Errorf("ts < epoch kept %d", n)
	}
	if _, err := s.ScanFiles(Predicate{Column: "nope", Op: OpEq, Value: 1}); err == nil {
		t.Error("unknown column accepted")
	}
	// Scan keeps every row of the kept files.
	recs, err := s.ReadAll(ctx, mem, Predicate{Column: "id", Op: OpGe, Value: 3000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	releaseRecords(recs)
	if n != 100 {
		t.Errorf("scan id >= 3000 read %d rows, want 100", n)
	}
}

func TestGoldenPartitionValues(t *testing.T) {
	base := sharedDelta(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s, err := LoadSnapshot(filepath.Join(base, "delta-rs", "delta-0.8.0-special-partition"), -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := s.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	got := rowStrings(t, recs, []string{"x"})
	releaseRecords(recs)
	if strings.Join(got, ",") != "A/A,B B" {
		t.Errorf("special partition values %v", got)
	}
	s, err = LoadSnapshot(filepath.Join(base, "delta-golden", "data-reader-partition-values"), -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err = s.ReadAll(context.Background(), mem)
	if err != nil {
		t.Fatal(err)
	}
	cols := []string{"as_int", "as_boolean", "as_double", "as_string_lit_null", "as_date", "as_timestamp", "as_big_decimal"}
	got = rowStrings(t, recs, cols)
	releaseRecords(recs)
	want := []string{
		"(null)|(null)|(null)|(null)|(null)|(null)|(null)",
		"0|true|0|null|2021-09-08|2021-09-08T11:11:11Z|0",
		"1|false|1|null|2021-09-08|2021-09-08T11:11:11Z|1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("partition values:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
