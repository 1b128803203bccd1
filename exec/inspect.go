package exec

import (
	"context"
	"errors"
	"fmt"

	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/state"
	"github.com/millrace/millrace/storage"
)

// Report describes a stopped query's checkpoint: its files
// (checkpoint.Report) and its state store. It is what `millrace checkpoint
// inspect` prints; the JSON keeps the checkpoint report's fields at the top.
type Report struct {
	checkpoint.Report
	// State is the state store's content, nil for a stateless query.
	State *state.Summary `json:"state,omitempty"`
	// StateRows are the rows and bytes of each state partition as the
	// engine counts them (groups, keys), nil for a stateless query.
	StateRows []PartitionState `json:"stateRows,omitempty"`
	// RemoteState is the state's durable copy when the checkpoint is on
	// object storage (then State and StateRows are nil), nil otherwise.
	RemoteState *state.RemoteSummary `json:"remoteState,omitempty"`
}

// Inspect reads the checkpoint at path and its state store without
// changing them (checkpoint.Inspect, state.Describe, InspectState). It
// lives here, above both checkpoint and state, so that neither package
// imports the other. The state part needs the query to be stopped: a
// store open in a running query is an error naming the process.
func Inspect(path string) (Report, error) {
	cr, err := checkpoint.Inspect(path)
	if err != nil {
		return Report{}, err
	}
	r := Report{Report: cr}
	if loc := checkpoint.StateLocation(path); loc != "" {
		// On object storage the state is its durable copy; its rows are
		// not counted (that would mean downloading and replaying it).
		st, err := storage.Open(context.Background(), loc)
		if err != nil {
			return Report{}, err
		}
		rs, err := state.DescribeRemote(context.Background(), st)
		if err != nil {
			return Report{}, err
		}
		if rs.Version >= 0 {
			r.RemoteState = &rs
		}
		return r, nil
	}
	sum, err := state.Describe(checkpoint.StateDir(path))
	switch {
	case err == nil:
		r.State = &sum
	case errors.Is(err, state.ErrInUse):
		return Report{}, fmt.Errorf("checkpoint %s: the state store is open in a running query (%s): "+
			"stop the query to inspect its state: %w", path, checkpoint.LockHolder(path), err)
	case errors.Is(err, state.ErrMissing):
		return r, nil
	default:
		return Report{}, err
	}
	if r.StateRows, err = InspectState(sum.Dir); err != nil {
		return Report{}, err
	}
	return r, nil
}
