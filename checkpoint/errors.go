package checkpoint

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/millrace/millrace/internal/fsutil"
)

// ErrCorrupt marks a checkpoint file or log that cannot be trusted: a
// truncated or garbled file, a gap in the batch ids, a commit without its
// offsets. Test with errors.Is; the error names the file and what to do.
var ErrCorrupt = errors.New("checkpoint corrupt")

// ErrUnsupportedVersion marks a log file written in a newer format than this
// Millrace reads (a header v2 or later).
var ErrUnsupportedVersion = errors.New("unsupported checkpoint log version")

// ErrExists is returned when writing a log entry or the metadata that is
// already written: checkpoint files are written once.
var ErrExists = errors.New("checkpoint entry already exists")

// ErrOutOfOrder is returned when a log entry is written out of sequence
// (offsets for batch N before batch N-1 committed, a commit without offsets).
var ErrOutOfOrder = errors.New("checkpoint entry out of order")

// ErrIncompatible is returned by Ensure when a query restarts on a checkpoint
// written by a different query plan or partition count.
var ErrIncompatible = errors.New("checkpoint incompatible with query")

// ErrNotCheckpoint is returned by Inspect for a path that holds no query
// checkpoint (no metadata file): a mistyped path, a table, an empty
// directory.
var ErrNotCheckpoint = errors.New("not a checkpoint")

// remedy is what a user can do about a corrupt checkpoint.
const remedy = "restore it from a backup or delete the checkpoint directory to start the query " +
	"from scratch (this reprocesses or skips data)"

// CorruptError describes a corrupt checkpoint file or log directory. It
// matches ErrCorrupt with errors.Is and unwraps to the underlying cause.
type CorruptError struct {
	Kind   string // "offsets file", "commit file", "metadata file", "offsets log", …
	Path   string
	Line   int // 1-based line of a file, 0 if not about one line
	Reason string
	Err    error // underlying cause, may be nil
}

// Error implements error.
func (e *CorruptError) Error() string {
	reason := e.Reason
	if e.Line > 0 {
		reason = fmt.Sprintf("line %d: %s", e.Line, reason)
	}
	return fmt.Sprintf("checkpoint: %s %s is corrupt (%s): %s", e.Kind, e.Path, reason, remedy)
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Unwrap returns the underlying cause.
func (e *CorruptError) Unwrap() error { return e.Err }

func corrupt(kind, path string, line int, err error, format string, args ...any) error {
	reason := fmt.Sprintf(format, args...)
	if err != nil {
		if reason != "" {
			reason += ": "
		}
		reason += err.Error()
	}
	return &CorruptError{Kind: kind, Path: path, Line: line, Reason: reason, Err: err}
}

// ErrDiskFull marks a write that failed because the filesystem holding the
// checkpoint is full (or the user's quota is used up). It is
// internal/fsutil's sentinel, which the state store's errors carry too: one
// errors.Is test covers the logs and the state.
var ErrDiskFull = fsutil.ErrDiskFull

// ioError wraps an I/O error of a checkpoint file. A full disk gets an
// error that says so, names the file and says what to do; the other errors
// get the permission hint when it applies.
func ioError(op, path string, err error) error {
	if fsutil.IsDiskFull(err) {
		return fmt.Errorf("checkpoint: %s %s: the disk is full (%w): free space on the filesystem holding %s "+
			"and restart the query; it resumes from its last committed batch: %w", op, path, err, filepath.Dir(path), ErrDiskFull)
	}
	return fmt.Errorf("checkpoint: %s %s: %w%s", op, path, err, accessHint(err))
}
