package sinks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrSinkMismatch is returned at start when a checkpoint and the sink's
// output do not belong together: continuing would lose or duplicate
// output. The error says which evidence and what to do.
var ErrSinkMismatch = errors.New("sink output does not match the checkpoint")

// Identity says where a sink writes and which incarnation of that storage
// it is. A checkpoint records it; deleting and recreating the storage
// changes ID but not Location.
type Identity struct {
	// Location is where the output goes: an absolute path or a URI.
	Location string `json:"location"`
	// ID identifies the storage at Location (a Delta table's metaData id,
	// a file sink directory's id); "" when there is none.
	ID string `json:"id"`
}

// BindInfo describes the checkpointed query a sink is bound to at start.
type BindInfo struct {
	QueryID string
	// Checkpoint is the checkpoint directory as an absolute path.
	Checkpoint string
	// LastCommitted is the checkpoint's latest committed batch, -1 if none:
	// the sink must hold the output of every batch up to it.
	LastCommitted int64
	// LastPlanned is the latest batch with offsets, -1 if none: a query
	// that never planned a batch has written nothing anywhere.
	LastPlanned int64
	// Recorded is the sink identity the checkpoint recorded when the query
	// last started; nil for a new checkpoint or one older than this check.
	Recorded *Identity
	Mode     OutputMode
	Schema   *arrow.Schema
	// Force binds without refusing (the query's IgnoreSinkMismatch): the
	// user accepts that output may be lost or duplicated.
	Force bool
}

// Binder is implemented by exactly-once sinks that can tell whether their
// output and a checkpoint belong together. The driver of a checkpointed
// query calls Bind once at start, before any batch, and records the
// returned identity in the checkpoint. Bind records the query in the sink
// (so that a later query can tell whose output it holds) and refuses, with
// an error wrapping ErrSinkMismatch, when the evidence says output would
// be lost or written twice. Where the evidence is ambiguous it binds, as
// Spark does.
type Binder interface {
	Bind(ctx context.Context, info BindInfo) (Identity, error)
}

// CheckRecorded is the check every Binder makes first: the storage at the
// location the checkpoint recorded was deleted or replaced (now.ID differs
// from the recorded one, "" meaning it is gone) while the checkpoint has
// committed batches written to it. Their output would be lost, except in
// Complete mode, whose next batch rewrites the whole result. kind names
// the sink in the error ("Delta table").
func CheckRecorded(info BindInfo, now Identity, kind string) error {
	r := info.Recorded
	if info.Force || info.Mode == Complete || r == nil || info.LastCommitted < 0 ||
		!sameLocation(r.Location, now.Location) || r.ID == now.ID {
		return nil
	}
	state := "there is none now"
	if now.ID != "" {
		state = "it is now a different one (id " + now.ID + ")"
	}
	return fmt.Errorf("%s %s was deleted or replaced: checkpoint %s has committed batches up to %d written to it "+
		"(id %s), but %s: continuing would lose the output of those batches. Restore the output from a backup; or, "+
		"to start over, delete the checkpoint too (the query then reads its sources from the start); or set "+
		"IgnoreSinkMismatch to continue, accepting the loss: %w",
		kind, now.Location, info.Checkpoint, info.LastCommitted, r.ID, state, ErrSinkMismatch)
}

// sameLocation reports whether two recorded sink locations name the same
// storage: s3a:// (Spark's Hadoop spelling) is s3://.
func sameLocation(a, b string) bool {
	canonical := func(l string) string {
		if rest, ok := strings.CutPrefix(l, "s3a://"); ok {
			return "s3://" + rest
		}
		return l
	}
	return canonical(a) == canonical(b)
}
