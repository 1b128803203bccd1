package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is the file a running query holds an exclusive lock on. It is
// not part of Spark's layout; Spark ignores it.
const lockFile = "lock"

// ErrInUse is returned by Open when another running query (in this process
// or another) holds the checkpoint.
var ErrInUse = errors.New("checkpoint in use by another running query")

// dirLock is the exclusive lock of a checkpoint directory: flock(2) on the
// lock file, so it is released by the kernel when the process dies, however
// it dies. flock locks belong to the open file, not the process, so two
// opens in one process exclude each other too (fcntl locks would not, and
// closing any descriptor of the file would drop them).
type dirLock struct {
	f *os.File
}

// lockDir takes the exclusive lock of checkpoint directory path, which must
// exist. It writes the holder's pid into the lock file so that a refused
// process can say who holds it. It never blocks: a held lock is ErrInUse.
func lockDir(path string) (*dirLock, error) {
	p := filepath.Join(path, lockFile)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: lock %s: %w%s", p, err, accessHint(err))
	}
	if err := flock(f); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
			return nil, fmt.Errorf("checkpoint %s is in use by another running query (%s): "+
				"stop that query first, or give this query its own checkpoint directory: %w", path, holder(p), ErrInUse)
		}
		return nil, fmt.Errorf("checkpoint: lock %s: %w", p, err)
	}
	// The pid is informational; the lock is what excludes.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

// holder describes the process holding the lock file p, from the pid it
// wrote there.
func holder(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return "pid unknown"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return "pid unknown"
	}
	if pid == os.Getpid() {
		return fmt.Sprintf("pid %d, this process", pid)
	}
	return fmt.Sprintf("pid %d", pid)
}

// unlock empties the lock file (so that a stale pid is never reported) and
// releases the lock.
func (l *dirLock) unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0)
	err := l.f.Close() // closing the file releases the flock
	l.f = nil
	return err
}

// accessHint says what an error opening a checkpoint file for writing
// means when it is about permissions or a read-only filesystem, the two
// causes a user can fix; "" otherwise.
func accessHint(err error) string {
	switch {
	case errors.Is(err, syscall.EROFS):
		return " (the checkpoint is on a read-only filesystem: a query needs to write its checkpoint)"
	case errors.Is(err, os.ErrPermission):
		return " (permission denied: run the query as a user who may write the checkpoint directory)"
	}
	return ""
}
