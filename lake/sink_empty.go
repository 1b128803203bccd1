package lake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/millrace/millrace/storage"
)

// A batch that writes no rows makes no commit (an empty commit per idle
// trigger would only churn the log). Exactly-once still holds:
//
//   - A replay of such a batch is recognised as it always is, by the
//     query's txn version in the table: a later batch's txn covers it
//     (txn versions only grow), and a replay with no later batch written
//     is empty again (replays are deterministic) and skipped again.
//   - Bind's check that the table holds every batch the checkpoint
//     committed cannot count on the txn version for trailing empty batches,
//     so the sink notes them in <table>/_millrace_queries/<queryId>.skipped:
//     {"txnVersion": v, "through": b} says that batches v+1..b wrote no
//     rows. Bind accepts a txn version below the checkpoint's last batch
//     only when this note starts at exactly that txn version and reaches
//     the last batch; a table restored to an older version still fails
//     (its txn version differs from the note's).

// skippedNote is the content of a .skipped file.
type skippedNote struct {
	TxnVersion int64 `json:"txnVersion"`
	Through    int64 `json:"through"`
}

func skippedName(queryID string) string { return queryID + ".skipped" }

// noteSkipped records that the query's batches after txn version v (-1:
// none) up to batch were empty.
func noteSkipped(ctx context.Context, loc *location, queryID string, v, batch int64) error {
	data, err := json.Marshal(skippedNote{TxnVersion: v, Through: batch})
	if err != nil {
		return err
	}
	if err := loc.store.Write(ctx, QueriesDir+"/"+skippedName(queryID), append(data, '\n')); err != nil {
		return fmt.Errorf("lake: note empty batch %d: %w", batch, err)
	}
	return nil
}

// readSkipped returns the query's note, nil if it has none.
func readSkipped(loc *location, queryID string) (*skippedNote, error) {
	name := QueriesDir + "/" + skippedName(queryID)
	data, err := loc.store.Read(context.Background(), name)
	if errors.Is(err, storage.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lake: %w", err)
	}
	var n skippedNote
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("lake: %s is corrupt (%v): delete it; it only notes batches that wrote no rows", loc.where(name), err)
	}
	return &n, nil
}

// emptyThrough reports whether the note says the query's batches after
// txn version v up to last were all empty.
func emptyThrough(loc *location, queryID string, v, last int64) (bool, error) {
	n, err := readSkipped(loc, queryID)
	if err != nil || n == nil {
		return false, err
	}
	return n.TxnVersion == v && n.Through >= last, nil
}
