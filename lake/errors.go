package lake

import "errors"

// ErrUnsupported marks tables that use protocol versions or table features
// this package does not implement (column mapping, v2 checkpoints, …), and
// streamed commits a source cannot read (incompatible schema changes).
var ErrUnsupported = errors.New("lake: unsupported Delta table feature")

// ErrConcurrentModification marks a commit that lost a race to a commit that
// conflicts with it (it removed files this transaction read, or changed the
// protocol or metadata). The error message names the winning version.
var ErrConcurrentModification = errors.New("lake: concurrent modification")

// ErrNotATable is returned when a path has no _delta_log with commits.
var ErrNotATable = errors.New("lake: not a Delta table")

// ErrTableExists is returned by Create when the path already holds a table.
var ErrTableExists = errors.New("lake: table already exists")

// ErrVersionNotFound is returned for time travel to a version or timestamp
// the log cannot reconstruct.
var ErrVersionNotFound = errors.New("lake: version not found")

// ErrNonAppendCommit is returned by the streaming source for a commit that
// removes data, unless SkipChangeCommits is set.
var ErrNonAppendCommit = errors.New("lake: source table commit is not append-only")
