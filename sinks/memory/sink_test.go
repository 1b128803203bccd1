package memory

import (
	"context"
	"github.com/millrace/millrace/internal/testutil"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "t", Type: columnar.Timestamp, Nullable: true},
}, nil)

var t0 = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

type row struct {
	k any
	v any
}

func record(mem memory.Allocator, rows ...row) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, r := range rows {
		if r.k == nil {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(r.k.(string))
		}
		if r.v == nil {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.Int64Builder).Append(int64(r.v.(int)))
		}
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(t0.UnixMicro() + int64(i)))
	}
	return b.NewRecordBatch()
}

// write runs one batch through the sink, the records released after Write.
func write(t *testing.T, mem memory.Allocator, s *Sink, id int64, mode sinks.OutputMode, commit bool, recs ...[]row) (skipped bool) {
	t.Helper()
	ctx := context.Background()
	w, err := s.Begin(ctx, sinks.BatchInfo{QueryID: "q", BatchID: id, Mode: mode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range recs {
		rec := record(mem, rows...)
		if err := w.Write(ctx, rec); err != nil {
			t.Fatal(err)
		}
		rec.Release() // the sink copied what it needs
	}
	if commit {
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	} else {
		w.Abort()
	}
	return w.Skip()
}

func kv(rows [][]any) [][2]any {
	out := make([][2]any, len(rows))
	for i, r := range rows {
		out[i] = [2]any{r[0], r[1]}
	}
	return out
}

func TestMemorySinkModes(t *testing.T) {
	type step struct {
		id     int64
		mode   sinks.OutputMode
		commit bool
		rows   []row
		skip   bool
	}
	for _, tc := range []struct {
		name  string
		keys  []string
		steps []step
		want  [][2]any
		last  int64
	}{
		{"append", nil, []step{
			{0, sinks.Append, true, []row{{"a", 1}, {"b", 2}}, false},
			{1, sinks.Append, true, []row{{"a", 3}}, false},
		}, [][2]any{{"a", int64(1)}, {"b", int64(2)}, {"a", int64(3)}}, 1},
		{"replay is skipped", nil, []step{
			{0, sinks.Append, true, []row{{"a", 1}}, false},
			{1, sinks.Append, true, []row{{"b", 2}}, false},
			{1, sinks.Append, true, []row{{"b", 2}}, true},
			{0, sinks.Append, true, []row{{"a", 1}}, true},
			{2, sinks.Append, true, []row{{"c", 3}}, false},
		}, [][2]any{{"a", int64(1)}, {"b", int64(2)}, {"c", int64(3)}}, 2},
		{"abort leaves nothing and can be retried", nil, []step{
			{0, sinks.Append, false, []row{{"x", 9}}, false},
			{0, sinks.Append, true, []row{{"a", 1}}, false},
		}, [][2]any{{"a", int64(1)}}, 0},
		{"complete replaces", nil, []step{
			{0, sinks.Complete, true, []row{{"a", 1}, {"b", 1}}, false},
			{1, sinks.Complete, true, []row{{"a", 2}}, false},
		}, [][2]any{{"a", int64(2)}}, 1},
		{"update without keys appends", nil, []step{
			{0, sinks.Update, true, []row{{"a", 1}}, false},
			{1, sinks.Update, true, []row{{"a", 2}}, false},
		}, [][2]any{{"a", int64(1)}, {"a", int64(2)}}, 1},
		{"update with keys upserts", []string{"k"}, []step{
			{0, sinks.Update, true, []row{{"a", 1}, {"b", 1}, {nil, 1}}, false},
			{1, sinks.Update, true, []row{{"b", 2}, {"c", 2}, {nil, 2}, {"c", 3}}, false},
			{1, sinks.Update, true, []row{{"b", 99}}, true},
		}, [][2]any{{"a", int64(1)}, {"b", int64(2)}, {nil, int64(2)}, {"c", int64(3)}}, 1},
		{"update with two keys", []string{"k", "v"}, []step{
			{0, sinks.Update, true, []row{{"a", 1}, {"a", 2}}, false},
			{1, sinks.Update, true, []row{{"a", 2}, {"a", nil}}, false},
		}, [][2]any{{"a", int64(1)}, {"a", int64(2)}, {"a", nil}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			s := testutil.Must(New(Options{Keys: tc.keys}))
			defer s.Close()
			for i, st := range tc.steps {
				if got := write(t, mem, s, st.id, st.mode, st.commit, st.rows); got != st.skip {
					t.Fatalf("step %d: skip %v, want %v", i, got, st.skip)
				}
			}
			if got := kv(s.Rows()); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("rows %v\nwant %v", got, tc.want)
			}
			if s.LastBatchID() != tc.last || s.NumRows() != len(tc.want) {
				t.Fatalf("last %d rows %d", s.LastBatchID(), s.NumRows())
			}
		})
	}
}

func TestMemorySinkValuesRecordsSorted(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(Options{}))
	if recs, err := s.Records(mem); recs != nil || err != nil {
		t.Fatalf("empty table records %v %v", recs, err)
	}
	write(t, mem, s, 0, sinks.Append, true, []row{{"b", 2}, {nil, nil}}, []row{{"a", 5}})
	rows := s.Rows()
	if rows[0][2] != t0 || rows[1][0] != nil || rows[1][1] != nil {
		t.Fatalf("values %v", rows)
	}
	if tt := rows[0][2].(time.Time); tt.Location() != time.UTC {
		t.Fatal("timestamp not UTC")
	}
	if got := kv(s.Sorted()); !reflect.DeepEqual(got, [][2]any{{nil, nil}, {"a", int64(5)}, {"b", int64(2)}}) {
		t.Fatalf("sorted %v", got)
	}
	recs, err := s.Records(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer recs[0].Release()
	if recs[0].NumRows() != 3 || !recs[0].Schema().Equal(schema) {
		t.Fatalf("record %v", recs[0])
	}
	// Round trip: the rebuilt record gives the same rows.
	for i := 0; i < 3; i++ {
		for c := 0; c < 3; c++ {
			if got := Value(recs[0].Column(c), i); !reflect.DeepEqual(got, rows[i][c]) {
				t.Fatalf("row %d col %d: %v vs %v", i, c, got, rows[i][c])
			}
		}
	}
	if s.Schema() != schema || s.Batches() != 1 {
		t.Fatal("schema or batches")
	}
}

func TestMemorySinkBadKey(t *testing.T) {
	s := testutil.Must(New(Options{Keys: []string{"nope"}}))
	_, err := s.Begin(context.Background(), sinks.BatchInfo{BatchID: 0, Mode: sinks.Update, Schema: schema})
	if err == nil {
		t.Fatal("unknown key column accepted")
	}
}

func TestMemorySinkConcurrentReads(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := testutil.Must(New(Options{}))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			// Rows appear a whole batch (two rows) at a time.
			if n := len(s.Rows()); n%2 != 0 {
				t.Errorf("saw %d rows: a batch became visible partially", n)
				return
			}
			_ = s.Sorted()
		}
	}()
	for id := int64(0); id < 200; id++ {
		write(t, mem, s, id, sinks.Append, true, []row{{"a", 1}}, []row{{"b", 2}})
	}
	close(stop)
	wg.Wait()
	if s.NumRows() != 400 {
		t.Fatalf("%d rows", s.NumRows())
	}
}
