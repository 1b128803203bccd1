package lake

import (
	"context"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSnapshotCacheFollowsTheLog(t *testing.T) { snapshotCacheFollowsTheLog(t, t.TempDir()) }

// snapshotCacheFollowsTheLog: a handle's kept snapshot sees other
// writers' commits, and a table deleted and recreated under it is
// reloaded, not appended to at the old table's next version (which would
// leave a gap in the new log).
func snapshotCacheFollowsTheLog(t *testing.T, dir string) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	if _, err := Create(ctx, dir, testSchema, Options{Allocator: mem}); err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Open(dir, Options{Allocator: mem})
	rng := rand.New(rand.NewSource(4))
	appendTo := func(tbl *Table, base int64) []row {
		rows := randomRows(rng, 20, base)
		rec := makeRecord(mem, rows)
		defer rec.Release()
		if _, err := tbl.Append(ctx, []arrow.RecordBatch{rec}); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	var all []row
	for i := range 3 {
		all = append(all, appendTo(b, int64(i*100))...)
	}
	s, err := a.Snapshot()
	if err != nil || s.Version() != 3 {
		t.Fatalf("a sees version %v (%v), want 3", s, err)
	}
	assertLines(t, "a after b's appends", tableLines(t, s, mem), rowLines(all))
	all = append(all, appendTo(a, 1000)...)
	if s, _ := b.Snapshot(); s.Version() != 4 {
		t.Fatalf("b sees version %d, want 4", s.Version())
	} else {
		assertLines(t, "b after a's append", tableLines(t, s, mem), rowLines(all))
	}

	// Delete the table and create another there.
	st := a.loc.store
	objs, err := st.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if err := st.Delete(ctx, o.Name); err != nil {
			t.Fatal(err)
		}
	}
	c, err := Create(ctx, dir, testSchema, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	fresh := appendTo(c, 5000)
	s, err = a.Snapshot()
	if err != nil || s.Version() != 1 {
		t.Fatalf("a sees version %v (%v) of the new table, want 1", s, err)
	}
	assertLines(t, "the new table", tableLines(t, s, mem), rowLines(fresh))
	fresh = append(fresh, appendTo(a, 6000)...)
	s, err = LoadSnapshot(dir, -1)
	if err != nil || s.Version() != 2 {
		t.Fatalf("after a's append to the new table: %v %v, want version 2", s, err)
	}
	assertLines(t, "the new table after a's append", tableLines(t, s, mem), rowLines(fresh))
}
