package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	mexec "github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/killtest"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/lake"
)

func TestMain(m *testing.M) { kinesistest.Main(m) }

// TestKinesisToDeltaSurvivesKills runs the example as a child process
// against kinesalite, SIGKILLs it at every step of several batches and at
// random moments, splits a shard and merges a child with its neighbour
// between runs while records keep arriving, restarts it each time, and
// checks that the Delta table — read by lake and by delta-rs — holds every
// record put exactly once, with the shard and sequence number it has.
func TestKinesisToDeltaSurvivesKills(t *testing.T) {
	srv := kinesistest.Start(t)
	srv.Setenv(t) // the child inherits the endpoint and credentials
	stream := srv.CreateStream(t, 3)
	r := rand.New(rand.NewSource(7))
	want := map[string]kinesistest.Record{}
	putMore := func(prefix string, n int) {
		keys, data := make([]string, n), make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("user-%d", r.Intn(500))
			data[i] = fmt.Sprintf("%s-%d", prefix, i)
		}
		for _, rec := range srv.Put(t, stream, keys, data) {
			want[rec.Data] = rec
		}
	}
	putMore("a", 1500)

	dir := t.TempDir()
	bin := filepath.Join(dir, "kinesis_to_delta")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	table, ckpt := filepath.Join(dir, "table"), filepath.Join(dir, "ckpt")
	args := []string{"--stream", stream, "--table", table, "--checkpoint", ckpt, "--max-records-per-trigger", "150", "--available-now"}
	kills := 0
	run := func(crash string, killAfter time.Duration) {
		if killtest.RunChild(t, bin, args, nil, crash, killAfter) {
			kills++
		}
	}
	// The query keeps no state, so there is no state-committed step.
	steps := []string{mexec.StepOffsetsWritten, mexec.StepDataRead, mexec.StepSinkCommitted, mexec.StepCommitWritten}
	for batch := int64(0); batch < 12; batch++ {
		run(fmt.Sprintf("%s=%s:%d", mexec.CrashEnv, steps[batch%4], batch), 0)
		switch batch {
		case 4: // a reshard while the query is behind: shard 0 splits into 3 and 4
			srv.Split(t, stream, "shardId-000000000000")
			putMore("b", 900)
		case 8: // child 4 merges with its neighbour, shard 1, into 5
			srv.Merge(t, stream, "shardId-000000000004", "shardId-000000000001")
			putMore("c", 900)
		}
	}
	putMore("d", 3000)
	for i := 0; i < 8; i++ {
		run("", time.Duration(100+r.Intn(300))*time.Millisecond)
	}
	for killtest.RunChild(t, bin, args, nil, "", 0) {
		kills++
	}
	if kills < 10 {
		t.Fatalf("only %d kills landed", kills)
	}
	t.Logf("%d kills, then a clean finish", kills)

	got := readWithLake(t, table)
	if len(got) != len(want) {
		t.Fatalf("lake reads %d rows, want the %d records put", len(got), len(want))
	}
	perShard := map[string]int{}
	for _, g := range got {
		perShard[g.Shard]++
	}
	for _, sh := range []string{"shardId-000000000000", "shardId-000000000003", "shardId-000000000004", "shardId-000000000005"} {
		if perShard[sh] == 0 {
			t.Fatalf("no row of %s, a parent or child of the reshards: rows per shard %v", sh, perShard)
		}
	}
	t.Logf("rows per shard: %v", perShard)
	seen := map[string]bool{}
	for _, g := range got {
		w, ok := want[g.Data]
		if !ok || seen[g.Data] {
			t.Fatalf("row %+v: unexpected or duplicated", g)
		}
		seen[g.Data] = true
		if g.Shard != w.Shard || g.Seq != w.Seq || g.Key != w.Key {
			t.Fatalf("row %+v, the record put was %+v", g, w)
		}
	}
	if rs, ok := readWithDeltaRS(t, table); ok {
		sort.Strings(rs)
		var ws []string
		for d := range want {
			ws = append(ws, d)
		}
		sort.Strings(ws)
		if strings.Join(rs, ",") != strings.Join(ws, ",") {
			t.Fatalf("delta-rs reads %d rows, not the %d records put once each", len(rs), len(ws))
		}
		t.Logf("delta-rs reads the %d records once each", len(rs))
	}
}

func readWithLake(t *testing.T, table string) []kinesistest.Record {
	snap, err := lake.LoadSnapshot(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := snap.ReadAll(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	var out []kinesistest.Record
	for _, rec := range recs {
		s := rec.Schema()
		col := func(name string) *array.String {
			idx := s.FieldIndices(name)
			if len(idx) != 1 {
				t.Fatalf("table has no column %s: %s", name, s)
			}
			return rec.Column(idx[0]).(*array.String)
		}
		data := rec.Column(s.FieldIndices("data")[0]).(*array.Binary)
		key, shard, seq := col("partitionKey"), col("shardId"), col("sequenceNumber")
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, kinesistest.Record{Key: key.Value(i), Data: string(data.Value(i)), Shard: shard.Value(i), Seq: seq.Value(i)})
		}
		rec.Release()
	}
	return out
}

// readWithDeltaRS returns the data column as delta-rs reads it, when the
// project's .venv (made by make test) is there.
func readWithDeltaRS(t *testing.T, table string) ([]string, bool) {
	py, _ := filepath.Abs("../../.venv/bin/python")
	if _, err := os.Stat(py); err != nil {
		if os.Getenv("MILLRACE_REQUIRE_DELTA_RS") != "" {
			t.Fatalf("no %s: run make venv", py)
		}
		t.Logf("delta-rs check skipped: no %s (make test creates it)", py)
		return nil, false
	}
	script := `
import os, sys, json
from deltalake import DeltaTable
print(json.dumps([b.decode() for b in DeltaTable(sys.argv[1]).to_pyarrow_table().column("data").to_pylist()]))
# leave without the interpreter's teardown, where deltalake's and pyarrow's
# native thread pools have aborted the process after a complete read
# ("terminate called without an active exception")
sys.stdout.flush()
os._exit(0)
`
	out, err := exec.Command(py, "-c", script, table).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("delta-rs read: %v\n%s", err, stderr)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("delta-rs output: %v\n%s", err, out)
	}
	return got, true
}
