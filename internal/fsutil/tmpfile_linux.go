package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// writeNewUnnamed is WriteNew through an unnamed file: open(2) of the
// directory with O_TMPFILE, write, fsync, then linkat(2) of the open file
// to path (through /proc/self/fd, which needs no privilege, unlike
// AT_EMPTY_PATH) and the directory's fsync. It saves creating and
// removing a temporary name (two directory updates in the filesystem's
// journal a file), and a crash leaves nothing behind: an unlinked file
// vanishes. Linking never replaces, so of two writers exactly one wins,
// as with the named temporary file.
//
// Crash points: before linkat, nothing is visible; after it, path holds
// the complete, synced content or (before the directory's fsync) is
// absent — the same two outcomes as the named temporary file's link.
//
// done is false when the filesystem or the system cannot do it (no
// O_TMPFILE, no /proc, no hard links): the caller then takes the named
// temporary file's path, which reports those cases itself.
func writeNewUnnamed(dir, path string, data []byte) (done bool, err error) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
	if err != nil {
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			return false, nil
		}
		return true, &fs.PathError{Op: "write", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if _, err := writeData(f, data); err != nil {
		return true, &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := f.Sync(); err != nil {
		return true, &fs.PathError{Op: "fsync", Path: path, Err: err}
	}
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	switch {
	case err == nil:
	case errors.Is(err, unix.EEXIST):
		return true, fmt.Errorf("%s: %w", path, ErrExists)
	default:
		// no /proc, or a filesystem without links: the named path knows
		// what to say (the unnamed file goes away with its descriptor)
		return false, nil
	}
	return true, SyncDir(dir)
}
