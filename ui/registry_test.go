package ui

import (
	"testing"

	"github.com/millrace/millrace/exec"
)

// The ring keeps the last History events in order across wrap-arounds, and
// after picks the later ones; an after beyond the last event (a reconnect
// with a stale id, or the existence check of the event stream) gives none
// rather than a panic.
func TestRegistryRing(t *testing.T) {
	r := newRegistry(4, 0)
	r.started("q", "run", "name")
	for b := int64(0); b < 10; b++ {
		r.progress(&exec.Progress{ID: "q", RunID: "run", Name: "name", BatchID: b})
	}
	for _, tc := range []struct {
		after int64
		want  []int64
	}{
		{0, []int64{6, 7, 8, 9}},
		{7, []int64{7, 8, 9}},
		{9, []int64{9}},
		{10, nil},
		{1 << 62, nil},
	} {
		d, ok := r.detail("run", tc.after)
		if !ok {
			t.Fatal("run not found")
		}
		var got []int64
		for _, p := range d.Progress {
			got = append(got, p.BatchID)
		}
		if len(got) != len(tc.want) {
			t.Errorf("after %d: batches %v, want %v", tc.after, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("after %d: batches %v, want %v", tc.after, got, tc.want)
				break
			}
		}
		if d.Seq != 10 || d.LastBatchID != 9 || d.Batches != 10 {
			t.Errorf("after %d: seq %d, last batch %d, batches %d; want 10, 9, 10", tc.after, d.Seq, d.LastBatchID, d.Batches)
		}
	}
	// by query id and by name: the latest run
	for _, key := range []string{"q", "name"} {
		if d, ok := r.detail(key, 0); !ok || d.RunID != "run" {
			t.Errorf("detail(%q) = %q, %v; want run", key, d.RunID, ok)
		}
	}
}

// Ended runs beyond the retained number are forgotten, oldest first;
// running ones never are.
func TestRegistryForgetsOldRuns(t *testing.T) {
	r := newRegistry(4, 2)
	r.started("live", "live", "live")
	for _, id := range []string{"a", "b", "c"} {
		r.started(id, id, id)
		r.terminated(id, id, nil)
	}
	var got []string
	for _, q := range r.list() {
		got = append(got, q.RunID)
	}
	if len(got) != 3 || got[0] != "live" || got[1] != "b" || got[2] != "c" {
		t.Fatalf("runs listed %v, want [live b c]", got)
	}
}
