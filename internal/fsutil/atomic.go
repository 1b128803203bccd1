package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// TempPrefix starts the name of every temporary file: names starting with
// a dot are ignored by the checkpoint's logs, Delta readers and the file
// sink's readers, and RemoveTemps deletes leftovers of a crash.
const TempPrefix = ".tmp-"

// ErrExists is WriteNew's error when the file exists.
var ErrExists = errors.New("file already exists")

// ErrNoLinks is WriteNew's error on a filesystem without hard links, where
// creating a file exactly once needs a lock of the caller's.
var ErrNoLinks = errors.New("the filesystem has no hard links")

// Write writes data to path so that after a crash path holds either its
// old content or all of data: a temporary file in the same directory,
// fsynced, renamed over path, then the directory fsynced.
func Write(path string, data []byte) error {
	dir, tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return &fs.PathError{Op: "rename " + tmp + " to", Path: path, Err: err}
	}
	return SyncDir(dir)
}

// WriteNew is Write for a file that is written once: it fails with an
// error wrapping ErrExists, leaving the file alone, if path exists. It
// links the complete temporary file to path (link(2) never replaces), so
// of two writers racing exactly one succeeds and no reader ever sees a
// partial file. On a filesystem without hard links it fails with
// ErrNoLinks, having written nothing.
//
// On Linux the file is written unnamed (O_TMPFILE) and linked into place
// (writeNewUnnamed): the same outcomes, without a temporary name to create
// and remove.
func WriteNew(path string, data []byte) error {
	if useUnnamed {
		d, _ := filepath.Split(path)
		if d == "" {
			d = "."
		}
		if done, err := writeNewUnnamed(d, path, data); done {
			return err
		}
	}
	dir, tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w", path, ErrExists)
	case errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.ENOSYS):
		return fmt.Errorf("%s: %w (%w)", path, ErrNoLinks, err)
	default:
		return &fs.PathError{Op: "link", Path: path, Err: err}
	}
	return SyncDir(dir)
}

// writeTemp writes data to a new, fsynced temporary file beside path and
// returns the directory and the temporary file's name.
func writeTemp(path string, data []byte) (dir, tmp string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	var rnd [6]byte
	rand.Read(rnd[:]) // never fails since Go 1.24
	name := filepath.Join(dir, TempPrefix+base+"-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", "", &fs.PathError{Op: "write", Path: path, Err: err}
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if _, err = writeData(f, data); err != nil {
		return "", "", &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err = f.Sync(); err != nil {
		return "", "", &fs.PathError{Op: "fsync", Path: path, Err: err}
	}
	if err = f.Close(); err != nil {
		return "", "", &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return dir, name, nil
}

// useUnnamed: WriteNew tries an unnamed file first (tests turn it off to
// cover the named temporary file).
var useUnnamed = true

// writeData writes the content of a temporary file; SetWriteForTest
// replaces it.
var writeData = func(f *os.File, data []byte) (int, error) { return f.Write(data) }

// SetWriteForTest makes every write of a temporary file's content call w
// instead (to inject a full disk without needing one) until the returned
// function restores it. Tests only; not safe with concurrent writes.
func SetWriteForTest(w func(f *os.File, data []byte) (int, error)) (restore func()) {
	old := writeData
	writeData = w
	return func() { writeData = old }
}

// SyncDir fsyncs a directory so that creations, renames and removals in it
// are durable. A filesystem that cannot fsync directories (EINVAL) is
// taken as one that needs no such fsync.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return &fs.PathError{Op: "fsync dir", Path: dir, Err: err}
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !errors.Is(err, syscall.EINVAL) {
		return &fs.PathError{Op: "fsync dir", Path: dir, Err: err}
	}
	return nil
}

// RemoveTemps deletes the temporary files a crash left in dir.
func RemoveTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), TempPrefix) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove stale temp file: %w", err)
			}
		}
	}
	return nil
}
