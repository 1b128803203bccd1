package state

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrDiskFull marks a write that failed because the filesystem is full (or
// the user's disk quota is used up). Test with errors.Is; the error names
// the path and says what to do.
var ErrDiskFull = errors.New("disk full")

// IsDiskFull reports whether err is a full disk: ENOSPC, EDQUOT, or an
// error already marked with ErrDiskFull.
func IsDiskFull(err error) bool {
	return err != nil && (errors.Is(err, ErrDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT))
}

// diskFullError describes a full disk met by the store in dir.
func diskFullError(dir, what string, err error) error {
	if errors.Is(err, ErrDiskFull) {
		return err
	}
	return fmt.Errorf("state: store %s: %s: the disk is full (%w): free space on the filesystem holding %s "+
		"and restart the query; it resumes from its last committed batch: %w", dir, what, err, dir, ErrDiskFull)
}
