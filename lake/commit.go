package lake

import (
	"context"
	"errors"
	"fmt"
)

// operation is one transaction: what it commits and what it read.
type operation struct {
	name     string
	params   map[string]any
	protocol *Protocol
	metadata *Metadata
	adds     []AddFile
	removes  []RemoveFile
	txn      *Txn
	// readPaths are the (decoded) paths of files the operation read or
	// removes: a concurrent commit removing one of them conflicts.
	readPaths map[string]bool
	// readAll marks operations whose result depends on the whole table
	// (overwrite, merge): a concurrent commit adding data conflicts.
	readAll bool
	metrics map[string]any
}

func (op *operation) blindAppend() bool {
	return len(op.removes) == 0 && !op.readAll && len(op.readPaths) == 0 && op.metadata == nil
}

// maxCommitAttempts bounds retries after lost races.
const maxCommitAttempts = 1000

// commit writes op as the version after readVersion, retrying at later
// versions after lost races the conflict rules allow. It returns the
// committed version.
func (t *Table) commit(ctx context.Context, readVersion int64, op *operation) (int64, error) {
	v := readVersion + 1
	for attempt := 0; attempt < maxCommitAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		acts := t.actions(op, readVersion)
		data, err := EncodeActions(acts)
		if err != nil {
			return -1, err
		}
		err = putIfAbsent(ctx, t.loc, commitName(v), data)
		if err == nil {
			t.committed(v, acts)
			t.maybeCheckpoint(ctx, v)
			return v, nil
		}
		if !errors.Is(err, errVersionExists) {
			return -1, fmt.Errorf("lake: commit version %d of %s: %w", v, t.root(), err)
		}
		if readVersion < 0 {
			return -1, fmt.Errorf("%w: version 0 of %s already exists", ErrConcurrentModification, t.root())
		}
		won, err := readCommit(t.loc, v)
		if err != nil {
			return -1, err
		}
		if reason := conflict(op, won); reason != "" {
			return -1, fmt.Errorf("%w: %s of %s lost to version %d: %s", ErrConcurrentModification, op.name, t.root(), v, reason)
		}
		v++
	}
	return -1, fmt.Errorf("%w: %s of %s: gave up after %d lost races", ErrConcurrentModification, op.name, t.root(), maxCommitAttempts)
}

// actions lists the commit's actions, commitInfo first.
func (t *Table) actions(op *operation, readVersion int64) []Action {
	blind := op.blindAppend()
	ci := &CommitInfo{Timestamp: t.now().UnixMilli(), Operation: op.name, OperationParameters: op.params,
		IsBlindAppend: &blind, EngineInfo: "Millrace", IsolationLevel: "Serializable", OperationMetrics: op.metrics}
	if readVersion >= 0 {
		rv := readVersion
		ci.ReadVersion = &rv
	}
	acts := []Action{{CommitInfo: ci}}
	if op.protocol != nil {
		acts = append(acts, Action{Protocol: op.protocol})
	}
	if op.metadata != nil {
		acts = append(acts, Action{MetaData: op.metadata})
	}
	if op.txn != nil {
		acts = append(acts, Action{Txn: op.txn})
	}
	for i := range op.removes {
		acts = append(acts, Action{Remove: &op.removes[i]})
	}
	for i := range op.adds {
		acts = append(acts, Action{Add: &op.adds[i]})
	}
	return acts
}

// conflict returns why op cannot be committed after the winning commit
// won, or "" if it can (Delta's rules: blind appends commute; reads of
// removed files, data added under a whole-table read, protocol/metadata
// changes and the same streaming txn appId conflict).
func conflict(op *operation, won []Action) string {
	for _, a := range won {
		switch {
		case a.Protocol != nil:
			return "it changed the protocol"
		case a.MetaData != nil:
			return "it changed the table metadata"
		case a.Txn != nil && op.txn != nil && a.Txn.AppID == op.txn.AppID:
			return fmt.Sprintf("it committed txn version %d of the same application %q", a.Txn.Version, a.Txn.AppID)
		case a.Remove != nil:
			p, err := decodePath(a.Remove.Path)
			if err == nil && op.readPaths[p] {
				return fmt.Sprintf("it removed file %s that this transaction read", a.Remove.Path)
			}
		case a.Add != nil && a.Add.DataChange && op.readAll:
			return fmt.Sprintf("it added file %s to data this transaction read", a.Add.Path)
		}
	}
	return ""
}

// maybeCheckpoint writes a checkpoint after version v when v is a multiple
// of the checkpoint interval. Failures are ignored: checkpoints only speed
// up reads.
func (t *Table) maybeCheckpoint(ctx context.Context, v int64) {
	n := int64(t.opts.CheckpointInterval)
	if n <= 0 || v == 0 || v%n != 0 {
		return
	}
	s, err := t.latest()
	if err == nil && s.version != v {
		s, err = loadSnapshot(t.loc, v)
	}
	if err != nil {
		return
	}
	_ = WriteCheckpoint(ctx, s)
}

// Checkpoint writes a checkpoint of the latest version now.
func (t *Table) Checkpoint(ctx context.Context) error {
	s, err := t.Snapshot()
	if err != nil {
		return err
	}
	return WriteCheckpoint(ctx, s)
}
