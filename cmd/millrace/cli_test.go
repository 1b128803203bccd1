package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/lake"
)

func run(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := newRoot()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// TestDemoThenInspect runs the demo with a checkpoint and inspects it.
func TestDemoThenInspect(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(t.TempDir(), "clicks")
	out, _, err := run(t, "demo", "--events", "300000", "--per-trigger", "100000", "--checkpoint", dir, "--table", table)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Demo finished: 300000 events") || !strings.Contains(out, "Delta table: "+table) || !strings.Contains(out, "Latest closed window") {
		t.Fatalf("demo output lacks the summary or the table:\n%s", out)
	}
	snap, err := lake.LoadSnapshot(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	// 300K events at 1ms span 5 minutes: with a 10s watermark, windows
	// 00:00–00:04 of 20 campaigns are closed (and some late events'
	// windows before them).
	if n, _ := snap.NumRecords(); n < 80 {
		t.Fatalf("the demo table has %d rows", n)
	}
	con, _, err := run(t, "demo", "--events", "300000", "--console")
	if err != nil || !strings.Contains(con, "Batch: 1") {
		t.Fatalf("demo --console: %v\n%s", err, con)
	}
	js, _, err := run(t, "checkpoint", "inspect", "--format", "json", dir)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		LatestCommitBatchID int64 `json:"latestCommitBatchId"`
		NextBatchID         int64 `json:"nextBatchId"`
		WatermarkMs         int64 `json:"watermarkMs"`
		StateRows           []struct {
			OperatorID   int   `json:"operatorId"`
			NumRowsTotal int64 `json:"numRowsTotal"`
		} `json:"stateRows"`
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("inspect --format json: %v\n%s", err, js)
	}
	if r.LatestCommitBatchID < 2 || r.NextBatchID != r.LatestCommitBatchID+1 || r.WatermarkMs == 0 {
		t.Fatalf("unexpected report: %+v", r)
	}
	var rows int64
	for _, p := range r.StateRows {
		rows += p.NumRowsTotal
	}
	if rows != 20 {
		t.Fatalf("state should hold the 20 campaigns' open windows, has %d rows: %+v", rows, r.StateRows)
	}
	text, _, err := run(t, "checkpoint", "inspect", dir)
	if err != nil || !strings.Contains(text, "on restart:") {
		t.Fatalf("text inspect: %v\n%s", err, text)
	}
	if _, _, err := run(t, "checkpoint", "inspect", t.TempDir()+"/nope"); err == nil {
		t.Fatal("inspecting a missing checkpoint succeeded")
	}
}

func TestVersion(t *testing.T) {
	out, _, err := run(t, "version")
	if err != nil || !strings.HasPrefix(out, "millrace ") {
		t.Fatalf("version: %q %v", out, err)
	}
}

// Issue 10, item 14: inspect fails on a path that is not a checkpoint
// (exit status non-zero) and shows a garbled old batch as a warning.
func TestInspectNotACheckpoint(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	if err := os.MkdirAll(filepath.Join(table, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{t.TempDir(), table} {
		out, _, err := run(t, "checkpoint", "inspect", dir)
		if !errors.Is(err, checkpoint.ErrNotCheckpoint) || !strings.Contains(err.Error(), "is not a query checkpoint") {
			t.Fatalf("inspect %s: %v\n%s", dir, err, out)
		}
	}

	ckpt := t.TempDir()
	d, err := checkpoint.Open(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMetadata(checkpoint.Metadata{ID: "q", NumSources: 1}); err != nil {
		t.Fatal(err)
	}
	for id := int64(0); id < 3; id++ {
		if err := d.WriteOffsets(checkpoint.OffsetEntry{BatchID: id, Offsets: []string{"1"}}); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteCommit(checkpoint.CommitEntry{BatchID: id}); err != nil {
			t.Fatal(err)
		}
	}
	d.Close()
	if err := os.WriteFile(filepath.Join(ckpt, "offsets", "0"), []byte("v1\n{garbled"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, "checkpoint", "inspect", ckpt)
	if err != nil || !strings.Contains(out, "runs batch 3") || !strings.Contains(out, "warning: batch 0:") {
		t.Fatalf("inspect with a garbled old offsets/0: %v\n%s", err, out)
	}
}
