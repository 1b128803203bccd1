package foreachbatch_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sinks/foreachbatch"
)

var schema = arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, nil)

func record(mem memory.Allocator, vals ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(vals, nil)
	return b.NewRecordBatch()
}

// run writes records as batch id through the sink and commits.
func run(t *testing.T, s *foreachbatch.Sink, id int64, recs ...arrow.RecordBatch) error {
	t.Helper()
	w, err := s.Begin(context.Background(), sinks.BatchInfo{QueryID: "q", BatchID: id, Mode: sinks.Append, Schema: schema})
	if err != nil || w.Skip() {
		t.Fatalf("begin: %v, skip %v", err, w.Skip())
	}
	for _, r := range recs {
		if err := w.Write(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		r.Release() // the sink keeps its own reference
	}
	return w.Commit(context.Background())
}

// The function gets each batch whole, empty ones too; WriteTo writes a
// batch once into an exactly-once sink however often it is called; the
// records are released after the function returns.
func TestForeachBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := testutil.NewRecorder()
	var got []string
	s := testutil.Must(foreachbatch.New(func(ctx context.Context, b *foreachbatch.Batch) error {
		got = append(got, strings.Repeat("x", int(b.NumRows())))
		if b.QueryID != "q" || b.Schema != schema || b.Mode != sinks.Append {
			t.Errorf("batch %d: query %q schema %v mode %v", b.ID, b.QueryID, b.Schema, b.Mode)
		}
		if err := b.WriteTo(ctx, rec); err != nil {
			return err
		}
		return b.WriteTo(ctx, rec) // written again: skipped
	}, foreachbatch.Options{}))
	if err := run(t, s, 0, record(mem, 1, 2), record(mem, 3)); err != nil {
		t.Fatal(err)
	}
	if err := run(t, s, 1); err != nil {
		t.Fatal(err)
	}
	if err := run(t, s, 0, record(mem, 1, 2), record(mem, 3)); err != nil { // a replay
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "xxx,,xxx" {
		t.Fatalf("calls %q", got)
	}
	if d := testutil.Diff(rec.All(), [][]any{{int64(1)}, {int64(2)}, {int64(3)}}); d != "" {
		t.Fatal(d)
	}
}

// A function's error or panic fails the batch with an error naming it, and
// the records are released all the same.
func TestForeachBatchFailures(t *testing.T) {
	if _, err := foreachbatch.New(nil, foreachbatch.Options{}); err == nil {
		t.Fatal("a nil function was accepted")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	boom := errors.New("boom")
	failing := testutil.Must(foreachbatch.New(func(context.Context, *foreachbatch.Batch) error { return boom }, foreachbatch.Options{}))
	if err := run(t, failing, 4, record(mem, 1)); !errors.Is(err, boom) || !strings.Contains(err.Error(), "batch 4") {
		t.Fatalf("error %v", err)
	}
	panicking := testutil.Must(foreachbatch.New(func(context.Context, *foreachbatch.Batch) error { panic("oops") }, foreachbatch.Options{}))
	if err := run(t, panicking, 5, record(mem, 1)); err == nil || !strings.Contains(err.Error(), "panicked: oops") {
		t.Fatalf("error %v", err)
	}
}
