package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesCrashBeforeVersion: a commit that wrote its files and stopped
// before its Pebble batch (a crash there) leaves the store at the version
// before; Files never lists the files, Open removes them, and the next
// commit of the version writes its own.
func TestFilesCrashBeforeVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "st")
	s, err := Open(dir, Options{QueryID: "q"})
	if err != nil {
		t.Fatal(err)
	}
	txn := s.Begin(0)
	txn.PutFile(3, "delta", []byte("zero"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("crash")
	beforeApply = func(int64) error { return crash }
	txn = s.Begin(1)
	txn.PutFile(3, "delta", []byte("one"))
	txn.PutFile(4, "snapshot", []byte("one"))
	err = txn.Commit()
	beforeApply = func(int64) error { return nil }
	if !errors.Is(err, crash) {
		t.Fatalf("commit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, changelogDir, "4.1.snapshot")); err != nil {
		t.Fatalf("the crashed commit wrote no file: %v", err)
	}
	fs, err := s.Files()
	if err != nil || len(fs) != 1 || fs[0] != (File{Op: 3, Version: 0, Kind: "delta"}) {
		t.Fatalf("files after the crashed commit: %v, %v", fs, err)
	}
	// in the same process: the next commit of version 1 replaces them
	txn = s.Begin(1)
	txn.PutFile(3, "delta", []byte("one again"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	fs, _ = s.Files()
	if len(fs) != 2 || fs[1] != (File{Op: 3, Version: 1, Kind: "delta"}) {
		t.Fatalf("files after the second commit: %v", fs)
	}
	if b, err := s.ReadFile(fs[1]); err != nil || string(b) != "one again" {
		t.Fatalf("read %v: %q, %v", fs[1], b, err)
	}
	// after a restart: Open removes what a crash left
	s.Close()
	if err := os.WriteFile(filepath.Join(dir, changelogDir, "4.2.snapshot"), []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, Options{QueryID: "q", MustExist: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(filepath.Join(dir, changelogDir, "4.2.snapshot")); !os.IsNotExist(err) {
		t.Fatalf("Open left the file of an uncommitted version: %v", err)
	}
	// a snapshot drops the files before it once committed
	txn = s.Begin(2)
	txn.PutFile(3, "snapshot", []byte("two"))
	txn.DropFilesBefore(3, 2)
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	fs, _ = s.Files()
	if len(fs) != 1 || fs[0] != (File{Op: 3, Version: 2, Kind: "snapshot"}) {
		t.Fatalf("files after the snapshot: %v", fs)
	}
}

// TestFilesRefusedWithRemote: a store with a durable copy keeps no files
// (its uploads carry Pebble batches only).
func TestFilesRefusedWithRemote(t *testing.T) {
	s := &Store{dir: "d", opts: Options{Remote: nil}}
	if !s.LocalFiles() {
		t.Fatal("a local store refuses files")
	}
	s.remote = &remoteCopy{}
	txn := &Txn{s: s, version: 0}
	txn.PutFile(0, "delta", []byte("x"))
	if txn.err == nil {
		t.Fatal("a store with a durable copy took a file")
	}
}

// TestLayoutVersionUpgrade: a store of layout 1 (before the changelog
// files) opens and its first commit marks it 2, so that an older Millrace,
// which would not see the files, refuses it; a later layout is refused.
func TestLayoutVersionUpgrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "st")
	s, err := Open(dir, Options{QueryID: "q"})
	if err != nil {
		t.Fatal(err)
	}
	setFormat := func(v string) {
		if err := s.db.Set(keyFormat, []byte(v), nil); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	format := func() string {
		f, _, err := s.getRaw(keyFormat)
		if err != nil {
			t.Fatal(err)
		}
		return string(f)
	}
	setFormat("1")
	if s, err = Open(dir, Options{QueryID: "q"}); err != nil {
		t.Fatalf("a store of layout 1: %v", err)
	}
	if f := format(); f != "1" {
		t.Fatalf("layout %q before the first commit", f)
	}
	txn := s.Begin(0)
	txn.PutFile(0, "delta", []byte("x"))
	if err := txn.Commit(); err != nil {
		t.Fatal(err)
	}
	if f := format(); f != formatVersion {
		t.Fatalf("layout %q after the first commit, want %s", f, formatVersion)
	}
	setFormat("3")
	if _, err = Open(dir, Options{QueryID: "q"}); err == nil || !strings.Contains(err.Error(), "upgrade Millrace") {
		t.Fatalf("a store of layout 3: %v", err)
	}
}
