package checkpoint

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

// tempPrefix starts the name of every temporary file; names starting with a
// dot are ignored by the logs, and Open removes leftovers of a crash.
const tempPrefix = ".tmp-"

// WriteFileAtomic writes data to path so that after a crash path holds
// either its old content or all of data: it writes a temporary file in the
// same directory, fsyncs it, renames it over path and fsyncs the directory.
// A full disk is an error wrapping ErrDiskFull that names the file.
func WriteFileAtomic(path string, data []byte) error {
	dir, tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return ioError("rename "+tmp+" to", path, err)
	}
	return syncDir(dir)
}

// writeFileNoReplace is WriteFileAtomic for a file that is written once: it
// fails with ErrExists, leaving the file alone, if path exists. It links the
// complete temporary file to path (link(2) never replaces), so of two
// writers racing exactly one succeeds and no reader ever sees a partial
// file. On a filesystem without hard links it falls back to a check and a
// rename, which the checkpoint's lock makes safe.
func writeFileNoReplace(path string, data []byte) error {
	dir, tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, path)
	switch {
	case err == nil:
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("checkpoint: %s already exists: %w", path, ErrExists)
	case errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.EMLINK) || errors.Is(err, syscall.ENOSYS):
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("checkpoint: %s already exists: %w", path, ErrExists)
		}
		if err := os.Rename(tmp, path); err != nil {
			return ioError("rename "+tmp+" to", path, err)
		}
	default:
		return ioError("link", path, err)
	}
	return syncDir(dir)
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
	name := filepath.Join(dir, tempPrefix+base+"-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", "", ioError("write", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(name)
		}
	}()
	if _, err = writeData(f, data); err != nil {
		return "", "", ioError("write", path, err)
	}
	if err = f.Sync(); err != nil {
		return "", "", ioError("fsync", path, err)
	}
	if err = f.Close(); err != nil {
		return "", "", ioError("close", path, err)
	}
	return dir, name, nil
}

// writeData writes the content of a temporary file; tests replace it to
// inject errors (a full disk) without needing one.
var writeData = func(f *os.File, data []byte) (int, error) { return f.Write(data) }

// syncDir fsyncs a directory so that renames and removals in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("checkpoint: fsync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return ioError("fsync dir", dir, err)
	}
	return nil
}

// removeTemps deletes temporary files a crash left in dir.
func removeTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) && e.Type().IsRegular() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("checkpoint: remove stale temp file: %w", err)
			}
		}
	}
	return nil
}

// NewQueryID returns a random (version 4) UUID for a new query.
func NewQueryID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails since Go 1.24
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
