package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/millrace/millrace/internal/fsutil"
)

// tempPrefix starts the name of every temporary file; names starting with a
// dot are ignored by the logs, and Open removes leftovers of a crash.
const tempPrefix = fsutil.TempPrefix

// WriteFileAtomic writes data to path so that after a crash path holds
// either its old content or all of data (internal/fsutil.Write: temporary
// file, fsync, rename, fsync of the directory). A full disk is an error
// wrapping ErrDiskFull that names the file.
func WriteFileAtomic(path string, data []byte) error {
	return ioErr(fsutil.Write(path, data))
}

// writeFileNoReplace is WriteFileAtomic for a file that is written once: it
// fails with ErrExists, leaving the file alone, if path exists
// (fsutil.WriteNew links the complete file into place, so of two writers
// racing exactly one succeeds). On a filesystem without hard links it falls
// back to a check and a rename, which the checkpoint's lock makes safe.
func writeFileNoReplace(path string, data []byte) error {
	err := fsutil.WriteNew(path, data)
	if errors.Is(err, fsutil.ErrNoLinks) {
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("checkpoint: %s already exists: %w", path, ErrExists)
		}
		err = fsutil.Write(path, data)
	}
	if errors.Is(err, fsutil.ErrExists) {
		return fmt.Errorf("checkpoint: %s already exists: %w", path, ErrExists)
	}
	return ioErr(err)
}

// ioErr turns fsutil's *fs.PathError into the checkpoint's I/O error (a
// full disk says so and what to do; a permission error says whose).
func ioErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return ioError(pe.Op, pe.Path, pe.Err)
	}
	return err
}

// syncDir fsyncs a directory so that renames and removals in it are
// durable. A variable so that tests count the syncs.
var syncDir = func(dir string) error { return ioErr(fsutil.SyncDir(dir)) }

// removeTemps deletes temporary files a crash left in dir.
func removeTemps(dir string) error {
	if err := fsutil.RemoveTemps(dir); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
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
