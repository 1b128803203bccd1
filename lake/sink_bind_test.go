package lake

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

// Bind creates the table, records the query once, and refuses a new query
// on the checkpoint of one whose output the table holds (Append mode).
func TestSinkBind(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "t")
	s := mustSink(path, SinkOptions{})
	info := sinks.BindInfo{QueryID: "q1", Checkpoint: "/ckpt", LastCommitted: -1, LastPlanned: -1, Mode: sinks.Append, Schema: testSchema}
	id, err := s.Bind(ctx, info)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := LoadSnapshot(path, -1)
	if err != nil {
		t.Fatalf("Bind did not create the table: %v", err)
	}
	if id.Location != s.table.Path() || id.ID != snap.Metadata().ID {
		t.Fatalf("identity %+v, table %s id %s", id, s.table.Path(), snap.Metadata().ID)
	}
	recs, err := sinks.ReadQueryRecords(filepath.Join(path, QueriesDir))
	if err != nil || len(recs) != 1 || recs[0] != (sinks.QueryRecord{QueryID: "q1", Checkpoint: "/ckpt"}) {
		t.Fatalf("records %v %v", recs, err)
	}
	runBatch(t, s, memory.DefaultAllocator, sinks.Append, 0, []row{{id: 1, name: "a", value: 1, ts: 1, part: "x"}})

	// The checkpoint was recreated: a new query id with the same directory.
	again := mustSink(path, SinkOptions{})
	info2 := info
	info2.QueryID = "q2"
	if _, err := again.Bind(ctx, info2); !errors.Is(err, sinks.ErrSinkMismatch) {
		t.Fatalf("new query on a recreated checkpoint: %v", err)
	}
	// Complete and Update modes cannot duplicate rows; forced binds.
	for _, c := range []func(*sinks.BindInfo){
		func(i *sinks.BindInfo) { i.Mode = sinks.Complete },
		func(i *sinks.BindInfo) { i.Mode = sinks.Update },
		func(i *sinks.BindInfo) { i.Force = true },
	} {
		i := info2
		c(&i)
		if _, err := mustSink(path, SinkOptions{}).Bind(ctx, i); err != nil {
			t.Fatalf("%+v: %v", i, err)
		}
	}
	// q2 owns the checkpoint now: q1's record is gone.
	recs, _ = sinks.ReadQueryRecords(filepath.Join(path, QueriesDir))
	if len(recs) != 1 || recs[0].QueryID != "q2" {
		t.Fatalf("records after q2 took the checkpoint over: %v", recs)
	}
}
