package memory

import (
	"context"
	"errors"
	"github.com/millrace/millrace/internal/testutil"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts", Type: columnar.Timestamp, Nullable: true},
}, nil)

var t0 = time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC)

// ids reads (start, end] and returns the id column in emitted order.
func ids(t *testing.T, mem memory.Allocator, s *Source, start, end sources.Offset) []int64 {
	t.Helper()
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, p := range parts {
		err := p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			out = append(out, rec.Column(0).(*array.Int64).Int64Values()...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestMemorySourceOffsetsAndLimits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(schema, Options{Allocator: mem}))
	defer s.Close()
	ctx := context.Background()
	start, _ := s.InitialOffset(ctx)
	if end, _ := s.LatestOffset(ctx, start, sources.ReadLimit{}); end != start {
		t.Fatalf("empty source latest %s", end)
	}
	mustAdd := func(rows ...[]any) {
		t.Helper()
		if _, err := s.AddRows(rows...); err != nil {
			t.Fatal(err)
		}
	}
	mustAdd([]any{1, "a", t0}, []any{2, nil, int64(17)})
	mustAdd([]any{int64(3), []byte("c"), nil})
	mustAdd([]any{4, "d", t0}, []any{5, "e", t0}, []any{6, "f", t0})

	for _, tc := range []struct {
		maxRows int64
		want    [][]int64 // ids per trigger
	}{
		{0, [][]int64{{1, 2, 3, 4, 5, 6}}},
		{1, [][]int64{{1, 2}, {3}, {4, 5, 6}}}, // whole batches, at least one
		{3, [][]int64{{1, 2, 3}, {4, 5, 6}}},
		{5, [][]int64{{1, 2, 3}, {4, 5, 6}}},
		{6, [][]int64{{1, 2, 3, 4, 5, 6}}},
	} {
		cur := start
		var got [][]int64
		for {
			end, err := s.LatestOffset(ctx, cur, sources.ReadLimit{MaxRows: tc.maxRows})
			if err != nil {
				t.Fatal(err)
			}
			if end == cur {
				break
			}
			got = append(got, ids(t, mem, s, cur, end))
			cur = end
		}
		if len(got) != len(tc.want) {
			t.Fatalf("maxRows %d: triggers %v, want %v", tc.maxRows, got, tc.want)
		}
		for i := range got {
			if len(got[i]) != len(tc.want[i]) {
				t.Fatalf("maxRows %d: triggers %v, want %v", tc.maxRows, got, tc.want)
			}
			for j := range got[i] {
				if got[i][j] != tc.want[i][j] {
					t.Fatalf("maxRows %d: triggers %v, want %v", tc.maxRows, got, tc.want)
				}
			}
		}
	}
	if cur, _ := s.LatestOffset(ctx, start, sources.ReadLimit{}); cur != `{"batches":3}` {
		t.Fatalf("offset %s", cur)
	}

	// Values convert as documented.
	parts, _ := s.PlanPartitions(start, `{"batches":1}`)
	_ = parts[0].Read(ctx, mem, func(rec arrow.RecordBatch) error {
		defer rec.Release()
		ts := rec.Column(2).(*array.Timestamp)
		if int64(ts.Value(0)) != t0.UnixMicro() || ts.Value(1) != 17 {
			t.Errorf("timestamps %v", ts)
		}
		if !rec.Column(1).IsNull(1) {
			t.Errorf("nil did not become null")
		}
		return nil
	})

	// Commit releases; reading a committed range fails clearly.
	if err := s.Commit(`{"batches":2}`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PlanPartitions(start, `{"batches":3}`); err == nil {
		t.Fatal("planned a committed range")
	}
	if got := ids(t, mem, s, `{"batches":2}`, `{"batches":3}`); len(got) != 3 {
		t.Fatalf("after commit read %v", got)
	}
}

func TestMemorySourceErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(schema, Options{Allocator: mem}))
	defer s.Close()
	for _, row := range [][]any{
		{1, "a"},
		{"x", "a", nil},
		{1, 2, nil},
		{1, "a", "yesterday"},
		{uint64(1 << 63), "a", nil},
	} {
		if _, err := s.AddRows(row); err == nil {
			t.Errorf("row %v accepted", row)
		}
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec, err := BuildRecord(mem, other, [][]any{{1}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if _, err := s.AddBatch(rec); err == nil {
		t.Error("mismatched schema accepted")
	}
	if _, err := s.PlanPartitions(`{"batches":0}`, `{"batches":9}`); err == nil {
		t.Error("range past the data accepted")
	}
}

func TestMemorySourceEmitErrorReleases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(schema, Options{Allocator: mem}))
	defer s.Close()
	for i := 0; i < 3; i++ {
		s.AddRows([]any{i, "x", nil})
	}
	parts, _ := s.PlanPartitions(`{"batches":0}`, `{"batches":3}`)
	stop := errors.New("stop")
	err := parts[0].Read(context.Background(), mem, func(rec arrow.RecordBatch) error { rec.Release(); return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err %v", err)
	}
}

func TestMemorySourceConcurrentAdd(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(schema, Options{Allocator: mem}))
	defer s.Close()
	ctx := context.Background()
	const writers, each = 4, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := s.AddRows([]any{w*each + i, "x", nil}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	cur, _ := s.InitialOffset(ctx)
	seen := map[int64]bool{}
	for len(seen) < writers*each {
		end, err := s.LatestOffset(ctx, cur, sources.ReadLimit{MaxRows: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids(t, mem, s, cur, end) {
			if seen[id] {
				t.Fatalf("id %d read twice", id)
			}
			seen[id] = true
		}
		s.Commit(end)
		cur = end
	}
	wg.Wait()
	if err := s.PrepareAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	s.AddRows([]any{-1, "late", nil})
	if end, _ := s.LatestOffset(ctx, cur, sources.ReadLimit{}); end != cur {
		t.Fatalf("AvailableNow did not cap: %s", end)
	}
}

// BuildRecord with a nil allocator uses the default one.
func TestBuildRecordDefaultAllocator(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	rec, err := BuildRecord(nil, s, [][]any{{int64(1)}, {nil}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if rec.NumRows() != 2 || rec.Column(0).NullN() != 1 {
		t.Fatalf("record %v", rec)
	}
	if _, err := BuildRecord(nil, nil, nil); err == nil {
		t.Fatal("no error without a schema")
	}
}
