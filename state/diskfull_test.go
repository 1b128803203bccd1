package state

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"
)

// fullDisk is a filesystem that, once on, fails every write of file data
// as a full disk does (ENOSPC; creating files and syncing still work, as
// on a real full disk), and counts the failures.
type fullDisk struct {
	on     atomic.Bool
	failed atomic.Int64
}

func (d *fullDisk) fs() vfs.FS {
	return errorfs.Wrap(vfs.Default, errorfs.InjectorFunc(func(op errorfs.Op) error {
		if !d.on.Load() {
			return nil
		}
		switch op.Kind {
		case errorfs.OpFileWrite, errorfs.OpFileWriteAt, errorfs.OpFilePreallocate:
			d.failed.Add(1)
			return &fs.PathError{Op: "write", Path: op.Path, Err: syscall.ENOSPC}
		}
		return nil
	}))
}

// captureLog sends the store's log lines to a buffer for the test.
func captureLog(t *testing.T) *syncBuffer {
	t.Helper()
	b := &syncBuffer{}
	old := logOutput
	logOutput = b
	t.Cleanup(func() { logOutput = old })
	return b
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// openWithin runs Open and fails the test if it has not returned after a
// minute: the defect was an Open that never returned.
func openWithin(t *testing.T, dir string, opts Options) (*Store, error) {
	t.Helper()
	type res struct {
		s   *Store
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := Open(dir, opts)
		ch <- res{s, err}
	}()
	select {
	case r := <-ch:
		return r.s, r.err
	case <-time.After(time.Minute):
		t.Fatalf("Open(%s) on a full disk has not returned after a minute", dir)
		return nil, nil
	}
}

func commitRows(t *testing.T, s *Store, version int64, n int) error {
	t.Helper()
	txn := s.Begin(version)
	for i := range n {
		txn.Put(0, i%4, []byte(fmt.Sprintf("key-%d-%d", version, i)), bytes.Repeat([]byte("v"), 100))
	}
	return txn.Commit()
}

func checkDiskFull(t *testing.T, err error, dir, what string) {
	t.Helper()
	if !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want ErrDiskFull wrapping ENOSPC", err)
	}
	for _, frag := range []string{dir, what, "the disk is full", "free space on the filesystem holding"} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("error %q lacks %q", err, frag)
		}
	}
}

// Issue 10, item 10: restarting on a full disk used to never return:
// Pebble's Open flushes the replayed WAL and retries the failed flush in a
// loop at full CPU, logging each failure. Open must fail with an error
// that names the store and says the disk is full, log it once, and leave
// the store intact for a restart once there is space.
func TestOpenOnFullDisk(t *testing.T) {
	logs := captureLog(t)
	dir := filepath.Join(t.TempDir(), "state")
	disk := &fullDisk{}
	s, err := Open(dir, Options{QueryID: "q", fs: disk.fs()})
	if err != nil {
		t.Fatal(err)
	}
	for v := range int64(3) {
		if err := commitRows(t, s, v, 200); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil { // the WAL is replayed by the next Open
		t.Fatal(err)
	}

	disk.on.Store(true)
	_, err = openWithin(t, dir, Options{QueryID: "q", MustExist: true, fs: disk.fs()})
	checkDiskFull(t, err, dir, "flush")
	// Pebble's retries are paced and logged once, not once per retry.
	if n := strings.Count(logs.String(), "the disk is full"); n != 1 {
		t.Errorf("%d log lines about the full disk, want 1:\n%s", n, logs)
	}

	// A second open in this process, while the first still retries, says
	// why it cannot have the store.
	_, err = openWithin(t, dir, Options{QueryID: "q", MustExist: true, fs: disk.fs()})
	checkDiskFull(t, err, dir, "still waiting for space")

	// Space is freed: the abandoned open finishes and lets go of the store,
	// which reopens with every committed version.
	disk.on.Store(false)
	abandoned.Wait()
	s, err = Open(dir, Options{QueryID: "q", MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Version() != 2 {
		t.Fatalf("version %d after the full disk, want 2", s.Version())
	}
}

// A full disk under the WAL used to end the process with Pebble's own
// "fatal commit error" log line: no batch, no advice. Now the commit fails
// with an error naming the store, the version and the cause; later commits
// fail at once; Close returns; and the store reopens at a committed
// version (the failed one may or may not have reached the WAL, as after a
// crash during a commit).
func TestCommitOnFullDisk(t *testing.T) {
	captureLog(t)
	dir := filepath.Join(t.TempDir(), "state")
	disk := &fullDisk{}
	s, err := Open(dir, Options{QueryID: "q", fs: disk.fs()})
	if err != nil {
		t.Fatal(err)
	}
	if err := commitRows(t, s, 0, 10); err != nil {
		t.Fatal(err)
	}
	disk.on.Store(true)
	err = commitRows(t, s, 1, 10)
	checkDiskFull(t, err, dir, "commit version 1")
	if s.Version() != 0 {
		t.Fatalf("version %d after a failed commit, want 0", s.Version())
	}
	disk.on.Store(false)
	err = commitRows(t, s, 1, 10)
	checkDiskFull(t, err, dir, "commit version 1")
	_ = s.Close() // may report the failed WAL; must return
	abandoned.Wait()

	s, err = Open(dir, Options{QueryID: "q", MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.Version(); v != 0 && v != 1 {
		t.Fatalf("version %d after reopening, want 0 or 1", v)
	}
}

// The hint of a failed Open fits its cause: a store in use, a read-only
// filesystem, a permission problem.
func TestOpenErrorHints(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	s, err := Open(dir, Options{QueryID: "q"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = Open(dir, Options{QueryID: "q"})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "is a running query using it?") {
		t.Fatalf("second open: %v", err)
	}
	for _, c := range []struct {
		errno syscall.Errno
		want  string
	}{
		{syscall.EROFS, "read-only filesystem"},
		{syscall.EACCES, "permission denied"},
		{syscall.EAGAIN, "is a running query using it?"},
		{syscall.ENOSPC, "the disk is full"},
	} {
		err := openError(dir, &fs.PathError{Op: "open", Path: filepath.Join(dir, "LOCK"), Err: c.errno})
		if !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.errno) {
			t.Errorf("%v: %v, want %q", c.errno, err, c.want)
		}
		if c.errno != syscall.EAGAIN && strings.Contains(err.Error(), "running query") {
			t.Errorf("%v: misleading hint: %v", c.errno, err)
		}
	}
}
