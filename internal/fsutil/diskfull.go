package fsutil

import (
	"errors"
	"syscall"
)

// ErrDiskFull marks a write that failed because the filesystem is full (or
// the user's disk quota is used up). Test with errors.Is; callers wrap it
// in an error that names the path and says what to do.
var ErrDiskFull = errors.New("disk full")

// IsDiskFull reports whether err is a full disk: ENOSPC, EDQUOT, or an
// error already marked with ErrDiskFull.
func IsDiskFull(err error) bool {
	return err != nil && (errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT))
}
