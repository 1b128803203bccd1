package exec

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/state"
)

// TestInspect reports a checkpoint's logs and its state store; a stateless
// checkpoint has no state.
func TestInspect(t *testing.T) {
	path := newCheckpoint(t)
	r, err := Inspect(path)
	if err != nil || r.State != nil || r.StateRows != nil {
		t.Fatalf("stateless: %+v, %v", r.State, err)
	}
	s, err := state.Open(checkpoint.StateDir(path), state.Options{QueryID: "q-1"})
	if err != nil {
		t.Fatal(err)
	}
	for v := int64(0); v < 2; v++ {
		txn := s.Begin(v)
		txn.Put(0, int(v), []byte("k"), []byte("value"))
		if err := txn.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	r, err = Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.NextBatchID != 1 || r.State == nil || r.State.Version != 1 || len(r.State.Operators) != 1 ||
		r.State.Operators[0].NumRowsTotal != 2 || len(r.StateRows) != 2 {
		t.Fatalf("%+v state %+v rows %+v", r.Report, r.State, r.StateRows)
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, frag := range []string{`"nextBatchId":1`, `"numRowsTotal":2`, `"stateRows":[`} {
		if !strings.Contains(string(data), frag) {
			t.Errorf("report JSON lacks %s:\n%s", frag, data)
		}
	}
}

// newCheckpoint returns the path of a stopped query's checkpoint with one
// committed batch.
func newCheckpoint(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cp")
	d, err := checkpoint.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMetadata(checkpoint.Metadata{ID: "q-1"}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteOffsets(checkpoint.OffsetEntry{BatchID: 0, Offsets: []string{`{"logOffset":0}`}}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteCommit(checkpoint.CommitEntry{BatchID: 0}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// Issue 10, item 14 (moved here with the state part of Inspect): a
// checkpoint that cannot be written (a read-only
// mount, another user's files) got the hint "is a running query using
// it?". The hint now names the real cause. Needs a read-only bind mount
// (root) or file permissions that bind (not root); skipped otherwise.
func TestInspectReadOnlyHint(t *testing.T) {
	path := newCheckpoint(t)
	s, err := state.Open(checkpoint.StateDir(path), state.Options{QueryID: "q-1"})
	if err != nil {
		t.Fatal(err)
	}
	txn := s.Begin(0)
	txn.Put(0, 0, []byte("k"), []byte("v"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	want := ""
	if os.Geteuid() == 0 {
		mnt := t.TempDir()
		if out, err := osexec.Command("mount", "--bind", "-o", "ro", path, mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot bind-mount read-only: %v: %s", err, out)
		}
		t.Cleanup(func() { osexec.Command("umount", mnt).Run() })
		if f, err := os.Create(filepath.Join(mnt, "probe")); err == nil {
			f.Close()
			t.Skip("the read-only bind mount is writable")
		}
		path, want = mnt, "read-only filesystem"
	} else {
		lock := filepath.Join(checkpoint.StateDir(path), "LOCK")
		os.Chmod(lock, 0o444)
		t.Cleanup(func() { os.Chmod(lock, 0o644) })
		want = "permission denied"
	}
	_, err = Inspect(path)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "running query") {
		t.Fatalf("inspect of a read-only checkpoint: %v, want the hint %q", err, want)
	}
}
