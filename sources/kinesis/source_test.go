package kinesis

import (
	"context"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/sources"
)

// TestExactAcrossTriggersAndRestarts reads a 3-shard stream in triggers of
// at most 40 records, replays batches on a fresh source (no kept records:
// read again from the server), restarts from the last offset with records
// put meanwhile: every record exactly once, in order within its shard.
func TestExactAcrossTriggersAndRestarts(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	stream := srv.CreateStream(t, 3)
	r := rand.New(rand.NewSource(1))
	want := put(t, srv, stream, "a", 150, r)
	ctx := context.Background()

	s := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon, MaxRecordsPerTrigger: 40, BatchRows: 7})
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []row
	for i := 0; i < 2; i++ {
		end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
		if err != nil {
			t.Fatal(err)
		}
		got := readBatch(t, mem, s, start, end)
		if len(got) != 40 {
			t.Fatalf("batch %d: %d rows, want the limit 40", i, len(got))
		}
		replay := readBatch(t, mem, newSource(t, srv, stream, Options{}), start, end)
		if strings.Join(rowKeys(replay), ",") != strings.Join(rowKeys(got), ",") {
			t.Fatalf("batch %d replayed on a fresh source reads other rows", i)
		}
		all = append(all, got...)
		start = end
	}
	if m := s.Metrics(); m["numShards"] != "3" || m["maxRecordsPerTrigger"] != "40" || m["recordsRead"] != "40" || m["maxMillisBehindLatest"] == "" {
		t.Fatalf("metrics %v", m)
	}

	// Restart: a new source from the checkpointed offset; a smaller
	// ReadLimit.MaxRows wins over MaxRecordsPerTrigger.
	want = append(want, put(t, srv, stream, "b", 120, r)...)
	s2 := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon, MaxRecordsPerTrigger: 40})
	batches, _ := drain(t, mem, s2, start, sources.ReadLimit{MaxRows: 25})
	for i, b := range batches {
		if len(b) > 25 {
			t.Fatalf("batch %d after restart: %d rows, limit 25", i, len(b))
		}
	}
	all = append(all, flatten(batches)...)
	sameRecords(t, "all", all, want)
}

func rowKeys(rs []row) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.shard + "/" + r.seq
	}
	return out
}

// TestStartingPositions: TRIM_HORIZON reads what the stream holds, LATEST
// only what arrives after the initial offset, AT_TIMESTAMP what arrived at
// or after the timestamp.
func TestStartingPositions(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	stream := srv.CreateStream(t, 2)
	r := rand.New(rand.NewSource(2))
	ctx := context.Background()
	before := put(t, srv, stream, "before", 20, r)

	latest := newSource(t, srv, stream, Options{StartingPosition: Latest})
	lstart, err := latest.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // arrival times are in milliseconds
	ts := time.Now()
	time.Sleep(20 * time.Millisecond)
	after := put(t, srv, stream, "after", 15, r)

	for _, c := range []struct {
		name  string
		opts  Options
		start sources.Offset
		want  []kinesistest.Record
	}{
		{"TRIM_HORIZON", Options{StartingPosition: TrimHorizon}, "", append(append([]kinesistest.Record(nil), before...), after...)},
		{"LATEST", Options{}, lstart, after},
		{"AT_TIMESTAMP", Options{StartingPosition: AtTimestamp, StartingTimestamp: ts}, "", after},
	} {
		s := newSource(t, srv, stream, c.opts)
		start := c.start
		if start == "" {
			if start, err = s.InitialOffset(ctx); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		batches, _ := drain(t, mem, s, start, sources.ReadLimit{})
		sameRecords(t, c.name, flatten(batches), c.want)
	}
}

// TestReshardParentsBeforeChildren splits a shard and merges a child with
// its neighbour while a query reads in small triggers, across a restart:
// every record exactly once, in order within its shard, and no record of a
// child before a batch after the last record of each of its parents.
func TestReshardParentsBeforeChildren(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	stream := srv.CreateStream(t, 2)
	r := rand.New(rand.NewSource(3))
	ctx := context.Background()
	want := put(t, srv, stream, "a", 120, r)

	s := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon, MaxRecordsPerTrigger: 30})
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var batches [][]row
	end, err := s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	batches = append(batches, readBatch(t, mem, s, start, end))
	start = end

	// Split shard 0 into 2 and 3, then merge 3 (the upper half of 0) with
	// shard 1 into 4, putting records after each step.
	srv.Split(t, stream, "shardId-000000000000")
	want = append(want, put(t, srv, stream, "b", 90, r)...)
	end, err = s.LatestOffset(ctx, start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	batches = append(batches, readBatch(t, mem, s, start, end))
	start = end
	srv.Merge(t, stream, "shardId-000000000003", "shardId-000000000001")
	want = append(want, put(t, srv, stream, "c", 90, r)...)
	if open := srv.OpenShards(t, stream); strings.Join(open, ",") != "shardId-000000000002,shardId-000000000004" {
		t.Fatalf("open shards after the reshard: %v", open)
	}

	// Restart mid-way.
	s2 := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon, MaxRecordsPerTrigger: 30})
	more, last := drain(t, mem, s2, start, sources.ReadLimit{})
	batches = append(batches, more...)
	sameRecords(t, "all", flatten(batches), want)

	parents := map[string][]string{
		"shardId-000000000002": {"shardId-000000000000"},
		"shardId-000000000003": {"shardId-000000000000"},
		"shardId-000000000004": {"shardId-000000000003", "shardId-000000000001"},
	}
	lastBatch, firstBatch := map[string]int{}, map[string]int{}
	for i, b := range batches {
		for _, row := range b {
			lastBatch[row.shard] = i
			if _, ok := firstBatch[row.shard]; !ok {
				firstBatch[row.shard] = i
			}
		}
	}
	for child, ps := range parents {
		for _, p := range ps {
			if fb, ok := firstBatch[child]; ok && fb <= lastBatch[p] {
				t.Fatalf("child %s read in batch %d, its parent %s until batch %d", child, fb, p, lastBatch[p])
			}
		}
	}
	eo, err := decodeOffset(stream, last)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"shardId-000000000000", "shardId-000000000001", "shardId-000000000003"} {
		if !eo.Shards[id].Closed {
			t.Fatalf("final offset %s: %s is not marked read to its end", last, id)
		}
	}
}

// TestFailOnDataLoss puts records dated 25 hours ago (the server's clock
// shifted back), reads some, and lets the server's 24-hour retention trim
// the rest before a restart: the restarted source fails naming the shard
// and the checkpointed sequence number, or with FailOnDataLoss=false reads
// the records left and counts the loss.
func TestFailOnDataLoss(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	srv.SetClock(t, -25*time.Hour)
	stream := srv.CreateStream(t, 1)
	r := rand.New(rand.NewSource(4))
	ctx := context.Background()
	put(t, srv, stream, "old", 5, r)
	s := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon})
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	batches, ckpt := drain(t, mem, s, start, sources.ReadLimit{})
	if len(flatten(batches)) != 5 {
		t.Fatalf("read %d old records, want 5", len(flatten(batches)))
	}
	put(t, srv, stream, "lost", 5, r)
	srv.SetClock(t, 0)
	fresh := put(t, srv, stream, "new", 3, r)

	s2 := newSource(t, srv, stream, Options{})
	_, err = s2.LatestOffset(ctx, ckpt, sources.ReadLimit{})
	if err == nil || !strings.Contains(err.Error(), "data loss") || !strings.Contains(err.Error(), "shardId-000000000000") {
		t.Fatalf("LatestOffset after retention trimmed the checkpoint: %v, want a data loss error naming the shard", err)
	}
	t.Log(err)

	f := false
	var logged []string
	s3 := newSource(t, srv, stream, Options{FailOnDataLoss: &f, Logf: func(f string, a ...any) { logged = append(logged, f) }})
	batches, _ = drain(t, mem, s3, ckpt, sources.ReadLimit{})
	sameRecords(t, "after the loss", flatten(batches), fresh)
	if m := s3.Metrics(); m["dataLossWarnings"] != "1" || len(logged) != 1 {
		t.Fatalf("metrics %v, log %v", m, logged)
	}
}

// TestAvailableNow: after PrepareAvailableNow, triggers read only the
// records that arrived before it, though more keep arriving.
func TestAvailableNow(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	stream := srv.CreateStream(t, 2)
	r := rand.New(rand.NewSource(5))
	ctx := context.Background()
	want := put(t, srv, stream, "before", 30, r)
	s := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon, MaxRecordsPerTrigger: 8})
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // arrival times are in milliseconds
	if err := s.PrepareAvailableNow(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	put(t, srv, stream, "after", 20, r)
	batches, _ := drain(t, mem, s, start, sources.ReadLimit{})
	sameRecords(t, "AvailableNow", flatten(batches), want)
}

// TestStreamRecreated: a checkpoint of a stream deleted and created again
// under the same name names sequence numbers the new stream refuses: data
// loss, or with FailOnDataLoss=false the new stream's records.
func TestStreamRecreated(t *testing.T) {
	srv := kinesistest.Start(t)
	mem := checkedMem(t)
	stream := srv.CreateStream(t, 1)
	r := rand.New(rand.NewSource(6))
	ctx := context.Background()
	put(t, srv, stream, "old", 5, r)
	s := newSource(t, srv, stream, Options{StartingPosition: TrimHorizon})
	start, err := s.InitialOffset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, ckpt := drain(t, mem, s, start, sources.ReadLimit{})
	srv.Recreate(t, stream, 1)
	fresh := put(t, srv, stream, "new", 4, r)

	_, err = newSource(t, srv, stream, Options{}).LatestOffset(ctx, ckpt, sources.ReadLimit{})
	if err == nil || !strings.Contains(err.Error(), "stream was recreated") || !strings.Contains(err.Error(), "data loss") {
		t.Fatalf("LatestOffset on the recreated stream: %v, want data loss", err)
	}
	f := false
	s3 := newSource(t, srv, stream, Options{FailOnDataLoss: &f, Logf: func(string, ...any) {}})
	end, err := s3.LatestOffset(ctx, ckpt, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, "the new stream", readBatch(t, mem, s3, ckpt, end), fresh)
	if !strings.Contains(string(end), `"reset":true`) {
		t.Fatalf("end offset %s does not say the batch began at TRIM_HORIZON", end)
	}
	replayer := newSource(t, srv, stream, Options{FailOnDataLoss: &f, Logf: func(string, ...any) {}})
	sameRecords(t, "the batch replayed", readBatch(t, mem, replayer, ckpt, end), fresh)
	// The next trigger drops the flag (an empty batch), then nothing moves.
	batches, _ := drain(t, mem, s3, end, sources.ReadLimit{})
	if len(flatten(batches)) != 0 || len(batches) > 1 {
		t.Fatalf("after the reset: %d batches of %d rows, want at most one empty batch", len(batches), len(flatten(batches)))
	}
}
