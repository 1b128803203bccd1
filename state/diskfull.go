package state

import (
	"errors"
	"fmt"

	"github.com/millrace/millrace/internal/fsutil"
)

// ErrDiskFull marks a write that failed because the filesystem is full (or
// the user's disk quota is used up). Test with errors.Is; the error names
// the path and says what to do. It is internal/fsutil's sentinel, which the
// checkpoint's errors carry too: one errors.Is test covers both.
var ErrDiskFull = fsutil.ErrDiskFull

// diskFullError describes a full disk met by the store in dir.
func diskFullError(dir, what string, err error) error {
	if errors.Is(err, ErrDiskFull) {
		return err
	}
	return fmt.Errorf("state: store %s: %s: the disk is full (%w): free space on the filesystem holding %s "+
		"and restart the query; it resumes from its last committed batch: %w", dir, what, err, dir, ErrDiskFull)
}
