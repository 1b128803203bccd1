package kinesis

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/sources"
)

func TestMain(m *testing.M) { kinesistest.Main(m) }

// row is one emitted record.
type row struct{ shard, seq, key, data string }

func newSource(t *testing.T, srv *kinesistest.Server, stream string, o Options) *Source {
	t.Helper()
	srv.Setenv(t)
	s, err := New(stream, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func checkedMem(t *testing.T) memory.Allocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// readBatch reads the batch (start, end] through PlanPartitions and Read.
func readBatch(t *testing.T, mem memory.Allocator, s *Source, start, end sources.Offset) []row {
	t.Helper()
	parts, err := s.PlanPartitions(start, end)
	if err != nil {
		t.Fatal(err)
	}
	var out []row
	for _, p := range parts {
		err := p.Read(context.Background(), mem, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			data := rec.Column(0).(*array.Binary)
			key := rec.Column(2).(*array.String)
			seq := rec.Column(3).(*array.String)
			shard := rec.Column(5).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				out = append(out, row{shard.Value(i), seq.Value(i), key.Value(i), string(data.Value(i))})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// drain runs triggers from start until the offset stops moving, and returns
// the rows of each batch and the last offset.
func drain(t *testing.T, mem memory.Allocator, s *Source, start sources.Offset, limit sources.ReadLimit) ([][]row, sources.Offset) {
	t.Helper()
	var batches [][]row
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("drain: over 1000 triggers")
		}
		end, err := s.LatestOffset(context.Background(), start, limit)
		if err != nil {
			t.Fatal(err)
		}
		if end == start {
			return batches, start
		}
		batches = append(batches, readBatch(t, mem, s, start, end))
		if err := s.Commit(end); err != nil {
			t.Fatal(err)
		}
		start = end
	}
}

// put puts n records with random partition keys and data prefix-i.
func put(t *testing.T, srv *kinesistest.Server, stream, prefix string, n int, r *rand.Rand) []kinesistest.Record {
	t.Helper()
	keys, data := make([]string, n), make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", r.Intn(1000))
		data[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return srv.Put(t, stream, keys, data)
}

// sameRecords checks that rows are exactly the records put, each once, and
// in sequence number order within each shard.
func sameRecords(t *testing.T, what string, rows []row, want []kinesistest.Record) {
	t.Helper()
	byShard := map[string][]row{}
	for _, r := range rows {
		byShard[r.shard] = append(byShard[r.shard], r)
	}
	wantBy := map[string][]kinesistest.Record{}
	for _, w := range want {
		wantBy[w.Shard] = append(wantBy[w.Shard], w)
	}
	for shard, ws := range wantBy {
		sort.Slice(ws, func(i, j int) bool { return compareSeq(ws[i].Seq, ws[j].Seq) < 0 })
		got := byShard[shard]
		if len(got) != len(ws) {
			t.Fatalf("%s: shard %s: %d rows, want %d", what, shard, len(got), len(ws))
		}
		for i := range ws {
			if got[i].seq != ws[i].Seq || got[i].data != ws[i].Data || got[i].key != ws[i].Key {
				t.Fatalf("%s: shard %s row %d: got %+v, want %+v", what, shard, i, got[i], ws[i])
			}
		}
	}
	for shard, got := range byShard {
		if _, ok := wantBy[shard]; !ok {
			t.Fatalf("%s: %d rows of shard %s, which got no record", what, len(got), shard)
		}
	}
}

func flatten(batches [][]row) []row {
	var out []row
	for _, b := range batches {
		out = append(out, b...)
	}
	return out
}
