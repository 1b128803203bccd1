package lake

import (
	"context"
	"errors"
	"fmt"

	"github.com/millrace/millrace/sinks"
)

// QueriesDir is the directory inside a table where the streaming sink
// records the queries that write to it (sinks.QueryRecord, one file per
// query). Delta readers ignore it, and Vacuum skips directories starting
// with "_".
const QueriesDir = "_millrace_queries"

var _ sinks.Binder = (*Sink)(nil)

// Bind checks at a checkpointed query's start that the table and the
// checkpoint belong together, creates the table (with info.Schema) if it
// does not exist, and records the query in the table. It refuses
// (sinks.ErrSinkMismatch) when:
//
//   - the table the checkpoint recorded at this path was deleted or
//     replaced, although the checkpoint has committed batches written to it
//     (their output would be lost; sinks.CheckRecorded);
//   - the table holds this query's batches only up to a batch before the
//     checkpoint's last committed one (restored to an older version: the
//     batches in between would be missing);
//   - in Append mode, the table holds output of another query that was
//     written with this same checkpoint directory: the checkpoint was
//     deleted and recreated, and the new query would append its sources'
//     data again.
//
// A table written by queries with other checkpoints is normal (several
// streams may append to one table), and a checkpoint without a recorded
// table is an older one: both bind, as in Spark. Complete mode never
// refuses: each batch rewrites the whole table. Update mode merges on keys,
// so a second query cannot duplicate rows.
func (s *Sink) Bind(ctx context.Context, info sinks.BindInfo) (sinks.Identity, error) {
	loc, err := tableLocation(s.path)
	if err != nil {
		return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
	}
	t, err := Open(s.path, s.tableOptions())
	switch {
	case errors.Is(err, ErrNotATable):
		// Refuse before creating a new table where the old one should be.
		if err := sinks.CheckRecorded(info, sinks.Identity{Location: loc}, "Delta table"); err != nil {
			return sinks.Identity{}, err
		}
		if t, err = s.tableFor(ctx, info.Schema); err != nil {
			return sinks.Identity{}, fmt.Errorf("lake: sink %s: create the table: %w", s.path, err)
		}
	case err != nil:
		return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
	}
	snap, err := t.Snapshot()
	if err != nil {
		return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
	}
	id := sinks.Identity{Location: t.Path(), ID: snap.Metadata().ID}
	if err := sinks.CheckRecorded(info, id, "Delta table"); err != nil {
		return sinks.Identity{}, err
	}
	recs, err := sinks.ReadQueryRecords(ctx, t.loc.store, QueriesDir)
	if err != nil {
		return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
	}
	if !info.Force && info.Mode != sinks.Complete {
		if err := checkTxns(t.loc, snap, info, recs); err != nil {
			return sinks.Identity{}, err
		}
	}
	mine := sinks.QueryRecord{QueryID: info.QueryID, Checkpoint: info.Checkpoint}
	recorded := false
	for _, r := range recs {
		recorded = recorded || r == mine
		if r.Checkpoint == info.Checkpoint && r.QueryID != info.QueryID {
			// The checkpoint is this query's now: the older record would
			// refuse this query's restarts until its first batch commits.
			if err := sinks.RemoveQueryRecord(ctx, t.loc.store, QueriesDir, r.QueryID); err != nil {
				return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
			}
		}
	}
	if !recorded {
		if err := sinks.WriteQueryRecord(ctx, t.loc.store, QueriesDir, mine); err != nil {
			return sinks.Identity{}, fmt.Errorf("lake: sink %s: record the query: %w", s.path, err)
		}
	}
	// Batches use this handle; tableFor keeps it.
	if _, err := s.tableFor(ctx, info.Schema); err != nil {
		return sinks.Identity{}, fmt.Errorf("lake: sink %s: %w", s.path, err)
	}
	return id, nil
}

// checkTxns compares the table's txn actions with the checkpoint (see Bind).
func checkTxns(loc *location, snap *Snapshot, info sinks.BindInfo, recs []sinks.QueryRecord) error {
	path := loc.root
	v, ok := snap.TxnVersion(info.QueryID)
	if ok && v < info.LastCommitted {
		// Batches after v that wrote no rows committed nothing.
		empty, err := emptyThrough(loc, info.QueryID, v, info.LastCommitted)
		if err != nil {
			return err
		}
		if empty {
			return nil
		}
		//lint:ignore ST1005 Delta is a proper noun
		return fmt.Errorf("Delta table %s holds query %s's batches only up to %d, but checkpoint %s has committed "+
			"batches up to %d: the table was restored to an older version, and batches %d..%d would be missing from it. "+
			"Restore the table to its latest version; or set IgnoreSinkMismatch to continue, accepting the loss: %w",
			path, info.QueryID, v, info.Checkpoint, info.LastCommitted, v+1, info.LastCommitted, sinks.ErrSinkMismatch)
	}
	if ok || info.Mode != sinks.Append {
		return nil
	}
	for _, r := range recs {
		if r.Checkpoint != info.Checkpoint || r.QueryID == info.QueryID {
			continue
		}
		if last, wrote := snap.TxnVersion(r.QueryID); wrote {
			//lint:ignore ST1005 Delta is a proper noun
			return fmt.Errorf("Delta table %s already holds the output of query %s (batches up to %d), written with "+
				"checkpoint %s, which now belongs to a new query %s: the checkpoint was deleted and recreated, and the new "+
				"query would append its sources' data to the table again (duplicates). Restore the checkpoint from a "+
				"backup; or, to start over, delete the table too; or, if the new query's output is meant to go beside "+
				"the old one, set IgnoreSinkMismatch: %w",
				path, r.QueryID, last, info.Checkpoint, info.QueryID, sinks.ErrSinkMismatch)
		}
	}
	return nil
}

// tableOptions are the options of the table handle the sink opens.
func (s *Sink) tableOptions() Options { return s.opts.Table }
