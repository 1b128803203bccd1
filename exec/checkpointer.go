package exec

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/state"
	"github.com/millrace/millrace/storage"
)

// checkpointer connects the driver to the checkpoint directory: the offsets
// log before a batch, the state commit and the commit log after it, and
// recovery at start (DESIGN.md, "Recovery").
type checkpointer struct {
	q     *Query
	dir   *checkpoint.Dir
	store *state.Store // nil for a stateless query
	// pending is the batch recovery found planned but not committed.
	pending *checkpoint.OffsetEntry
	// log runs the durable writes of running batches in order.
	log *logWriter
	// committedEnds are the source offsets of the last batch whose commit
	// is queued; sources hear of them once it is durable (commitSources).
	committedEnds []sources.Offset
}

// Operator ids in the state store: stage i of the query is operator i. The
// watermark of the next batch is stored beside the operators' rows so that
// it commits atomically with them: after a crash between the state commit
// and the commit log, recovery reads it instead of re-running the batch.
const metaStateOp = state.MaxOperator

var (
	nextWatermarkKey = []byte("nextBatchWatermarkMs")
	// operatorWatermarksKey holds the watermark operators' records
	// (checkpoint.OperatorWatermark, JSON), as commits/N does.
	operatorWatermarksKey = []byte("operatorWatermarks")
)

const confStatePartitions = "millrace.statePartitions"

// purgeEvery is how often (in batches) the driver purges the logs.
const purgeEvery = 10

// openCheckpointer opens (or creates) the checkpoint directory, taking its
// lock, checks that the query may run on it, adopts its query id, and opens
// the state store. On error the lock is released.
func openCheckpointer(q *Query) (_ *checkpointer, err error) {
	dir, err := checkpoint.Open(q.cfg.CheckpointDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = dir.Close()
		}
	}()
	fp := fingerprint(q.c)
	fpJSON, _ := json.Marshal(fp)
	have, ok, err := dir.Metadata()
	if err != nil {
		return nil, err
	}
	if ok && len(have.Fingerprint) > 0 {
		var old planFingerprint
		if err := json.Unmarshal(have.Fingerprint, &old); err == nil {
			if diff := old.diff(fp); diff != "" {
				return nil, fmt.Errorf("checkpoint %s was written by a query with a different stateful plan: %s; "+
					"state written by the old plan cannot be used by the new one: restore the old query or use a new checkpoint directory: %w",
					q.cfg.CheckpointDir, diff, checkpoint.ErrIncompatible)
			}
		}
	}
	meta, err := dir.Ensure(checkpoint.Metadata{
		NumStatePartitions: q.cfg.StatePartitions,
		NumSources:         len(q.c.scans),
		Fingerprint:        fpJSON,
	})
	if err != nil {
		return nil, err
	}
	q.id = meta.ID
	c := &checkpointer{q: q, dir: dir, log: newLogWriter()}
	if len(q.c.stages) > 0 {
		_, _, _, comMax := dir.Batches()
		// The engine counts its rows itself (changelog meta rows); the store's
		// exact counting would read every blob it overwrites.
		opts := state.Options{QueryID: meta.ID, MustExist: comMax >= 0, NoRowCount: true}
		if loc := dir.StateLocation(); loc != "" {
			// A checkpoint on object storage: the local store is a working
			// copy, restored from the durable copy there when missing or
			// behind, which every commit updates first.
			if opts.Remote, err = storage.Open(context.Background(), loc); err != nil {
				return nil, fmt.Errorf("checkpoint %s: state: %w", q.cfg.CheckpointDir, err)
			}
			opts.SnapshotEvery = q.cfg.MinDeltasForSnapshot
			opts.AfterUpload = func(v int64) error { return q.fault(StepStateUploaded, v) }
		}
		st, err := state.Open(dir.StateDir(), opts)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", q.cfg.CheckpointDir, err)
		}
		c.store = st
		for _, st := range q.c.stages {
			st.op.enableDurability()
			st.policy = newChangelogState(st.op.numPartitions())
		}
	}
	return c, nil
}

// close drains the queued writes (returning the first error), tells the
// sources what is committed, closes the state store and releases the
// checkpoint's lock (last: until then the query still owns it).
func (c *checkpointer) close() error {
	err := c.log.close()
	if err == nil {
		err = c.commitSources()
	}
	if c.store != nil {
		_ = c.store.Close()
	}
	_ = c.dir.Close()
	return err
}

// sync waits for the queued writes; then the last queued commit is durable
// and the sources may forget what it covers.
func (c *checkpointer) sync() error {
	if err := c.log.sync(); err != nil {
		// The writes run behind the batches: the failed one names its batch.
		return fmt.Errorf("a checkpoint write queued earlier failed: %w", err)
	}
	return c.commitSources()
}

func (c *checkpointer) commitSources() error {
	ends := c.committedEnds
	c.committedEnds = nil
	for i, s := range c.q.c.scans {
		if ends == nil {
			break
		}
		if err := s.Source.Commit(ends[i]); err != nil {
			return fmt.Errorf("source %d (%s): commit: %w", i, s.Source.Name(), err)
		}
	}
	return nil
}

// recover restores the driver's position from the logs: the next batch id,
// the source offsets to start from, the watermark, and the state. A batch
// planned but not committed is run again with exactly its recorded offsets,
// timestamp and watermark.
func (c *checkpointer) recover(ctx context.Context) error {
	q := c.q
	last, ok, err := c.dir.LatestOffsets()
	if err != nil || !ok {
		return err
	}
	commit, committed, err := c.dir.LatestCommit()
	if err != nil {
		return err
	}
	if err := c.checkConf(last); err != nil {
		return err
	}
	if committed && commit.BatchID == last.BatchID {
		c.restorePosition(last, commit)
		q.lastBatchWM = last.BatchWatermarkMs * 1000
		return c.restoreState(ctx, last.BatchID)
	}
	// Batch last.BatchID was planned but not committed.
	starts := make([]sources.Offset, len(q.c.scans))
	copy(starts, q.starts)
	if last.BatchID > 0 {
		prev, err := c.dir.Offsets(last.BatchID - 1)
		if err != nil {
			return err
		}
		if starts, err = c.offsets(prev); err != nil {
			return err
		}
	}
	ends, err := c.offsets(last)
	if err != nil {
		return err
	}
	q.batchID = last.BatchID
	q.starts = starts
	var seenBefore []checkpoint.OperatorWatermark // what batches < last saw
	if committed && commit.BatchID == last.BatchID-1 {
		seenBefore = commit.Watermarks
	}
	q.wm.restoreOperators(seenBefore, last.BatchWatermarkMs*1000)
	if last.BatchID > 0 {
		q.lastBatchWM = -1 // unknown; a no-data batch is decided by data only
	}
	if c.store != nil && c.store.Version() == last.BatchID {
		// The state (and so the sink) already holds the batch: only the
		// commit log is missing.
		next, err := c.storedWatermarks(last.BatchID)
		if err != nil {
			return err
		}
		if err := c.restoreState(ctx, last.BatchID); err != nil {
			return err
		}
		if err := c.dir.WriteCommit(next); err != nil {
			return err
		}
		c.restorePosition(last, next)
		return nil
	}
	if err := c.restoreState(ctx, last.BatchID-1); err != nil {
		return err
	}
	c.pending = &last
	prevWM := int64(0)
	if last.BatchID > 0 {
		prev, err := c.dir.Offsets(last.BatchID - 1)
		if err != nil {
			return err
		}
		prevWM = prev.BatchWatermarkMs * 1000
	}
	b := &batchRun{
		id:              last.BatchID,
		starts:          starts,
		ends:            ends,
		prevWatermarkUs: prevWM,
		watermarkUs:     last.BatchWatermarkMs * 1000,
		timestampMs:     last.BatchTimestampMs,
		durations:       map[string]int64{},
		triggerAt:       q.clock(),
		wallStart:       time.Now(),
		cpu:             newCPUMeter(),
	}
	return q.execute(ctx, b)
}

// restorePosition sets the driver to run the batch after entry e, whose
// commit is done.
func (c *checkpointer) restorePosition(e checkpoint.OffsetEntry, done checkpoint.CommitEntry) {
	q := c.q
	q.batchID = e.BatchID + 1
	if ends, err := c.offsets(e); err == nil {
		q.starts = ends
	}
	q.wm.restoreOperators(done.Watermarks, done.NextBatchWatermarkMs*1000)
	q.lastBatchWM = e.BatchWatermarkMs * 1000
}

func (c *checkpointer) offsets(e checkpoint.OffsetEntry) ([]sources.Offset, error) {
	if len(e.Offsets) != len(c.q.c.scans) {
		return nil, fmt.Errorf("checkpoint %s: offsets/%d records %d sources but the query reads %d: use a new checkpoint directory for a changed query",
			c.q.cfg.CheckpointDir, e.BatchID, len(e.Offsets), len(c.q.c.scans))
	}
	out := make([]sources.Offset, len(e.Offsets))
	for i, o := range e.Offsets {
		if o == "" {
			out[i] = c.q.starts[i] // the source had no offset: its initial one
			continue
		}
		out[i] = sources.Offset(o)
	}
	return out, nil
}

func (c *checkpointer) checkConf(e checkpoint.OffsetEntry) error {
	if v, ok := e.Conf[confStatePartitions]; ok {
		n, err := strconv.Atoi(v)
		if err == nil && n != c.q.cfg.StatePartitions {
			return fmt.Errorf("checkpoint %s records %d state partitions, the query asks for %d: the number is fixed per checkpoint: %w",
				c.q.cfg.CheckpointDir, n, c.q.cfg.StatePartitions, checkpoint.ErrIncompatible)
		}
	}
	return nil
}

// restoreState reloads the aggregation's state as of batch version.
func (c *checkpointer) restoreState(_ context.Context, version int64) error {
	if c.store == nil {
		return nil
	}
	if v := c.store.Version(); v != version {
		return fmt.Errorf("checkpoint %s: the state store is at batch %d but the logs need batch %d: the state directory %s does not belong to this checkpoint's history; restore it or use a new checkpoint directory: %w",
			c.q.cfg.CheckpointDir, v, version, c.store.Dir(), checkpoint.ErrCorrupt)
	}
	if version < 0 {
		return nil
	}
	for _, st := range c.q.c.stages {
		if err := restoreChangelog(c.store, st.id, st.op, st.op.numPartitions(), st.policy); err != nil {
			return err
		}
	}
	return nil
}

// storedWatermarks returns the commit entry of batch id rebuilt from the
// state store, which committed the batch's watermark records with its
// state.
func (c *checkpointer) storedWatermarks(id int64) (checkpoint.CommitEntry, error) {
	e := checkpoint.CommitEntry{BatchID: id}
	v, ok, err := c.store.Get(metaStateOp, 0, nextWatermarkKey)
	if err != nil {
		return e, err
	}
	if !ok || len(v) != 8 {
		return e, fmt.Errorf("checkpoint %s: the state store has no watermark record for batch %d: %w", c.q.cfg.CheckpointDir, c.store.Version(), checkpoint.ErrCorrupt)
	}
	e.NextBatchWatermarkMs = int64(binary.BigEndian.Uint64(v))
	v, ok, err = c.store.Get(metaStateOp, 0, operatorWatermarksKey)
	if err != nil {
		return e, err
	}
	if ok { // absent in stores written before the records existed
		if err := json.Unmarshal(v, &e.Watermarks); err != nil {
			return e, fmt.Errorf("checkpoint %s: the state store's watermark records for batch %d: %v: %w", c.q.cfg.CheckpointDir, id, err, checkpoint.ErrCorrupt)
		}
	}
	return e, nil
}

// writeOffsets records batch b in the offsets log before it reads data. A
// batch being re-run by recovery is already recorded.
func (c *checkpointer) writeOffsets(b *batchRun) error {
	if c.pending != nil && c.pending.BatchID == b.id {
		return nil
	}
	offs := make([]string, len(b.ends))
	for i, o := range b.ends {
		offs[i] = string(o)
	}
	e := checkpoint.OffsetEntry{
		BatchID:          b.id,
		BatchWatermarkMs: b.watermarkUs / 1000,
		BatchTimestampMs: b.timestampMs,
		Conf:             map[string]string{confStatePartitions: strconv.Itoa(c.q.cfg.StatePartitions)},
		Offsets:          offs,
	}
	c.log.submit(func() error {
		if err := c.dir.WriteOffsets(e); err != nil {
			return fmt.Errorf("batch %d: offsets log: %w", e.BatchID, err)
		}
		return c.q.fault(StepOffsetsWritten, e.BatchID)
	})
	return nil
}

// commitState commits batch b's state changes as state version b.id,
// together with the watermark of the next batch.
func (c *checkpointer) commitState(b *batchRun, nextWMUs int64) error {
	if c.store == nil {
		return nil
	}
	txn := c.store.Begin(b.id)
	var spent [][]byte // change bodies the files reference until the commit returns
	for _, st := range c.q.c.stages {
		if err := persistChangelog(txn, c.store.LocalFiles(), st.id, b.id, st.op, st.op.numPartitions(), st.policy, c.q.cfg.MinDeltasForSnapshot, c.q.cfg.Parallelism); err != nil {
			txn.Abort()
			return err
		}
		spent = append(spent, st.policy.takeSpent()...)
	}
	txn.Put(metaStateOp, 0, nextWatermarkKey, binary.BigEndian.AppendUint64(nil, uint64(nextWMUs/1000)))
	ops, err := json.Marshal(c.q.wm.operators())
	if err != nil {
		txn.Abort()
		return err
	}
	txn.Put(metaStateOp, 0, operatorWatermarksKey, ops)
	id := b.id
	c.log.submit(func() error {
		if err := txn.Commit(); err != nil {
			return fmt.Errorf("batch %d: state commit: %w", id, err)
		}
		recycleBodies(spent) // written: the next batches may reuse them
		return c.q.fault(StepStateCommitted, id)
	})
	return nil
}

// commit writes the commit log entry of batch b.
func (c *checkpointer) commit(b *batchRun, nextWMUs int64) error {
	c.pending = nil
	c.committedEnds = b.ends
	e := checkpoint.CommitEntry{BatchID: b.id, NextBatchWatermarkMs: nextWMUs / 1000, Watermarks: c.q.wm.operators()}
	c.log.submit(func() error {
		if err := c.dir.WriteCommit(e); err != nil {
			return fmt.Errorf("batch %d: commit log: %w", e.BatchID, err)
		}
		if err := c.q.fault(StepCommitWritten, e.BatchID); err != nil {
			return err
		}
		// Every purgeEvery batches, so that the deletions and their two
		// directory fsyncs are paid once for that many batches: the logs
		// keep between DefaultRetain and DefaultRetain+purgeEvery-1
		// committed batches (Spark's minBatchesToRetain is a minimum too).
		if e.BatchID%purgeEvery == 0 {
			if err := c.dir.Purge(checkpoint.DefaultRetain); err != nil {
				return err
			}
		}
		if c.store == nil {
			return nil
		}
		// The state's durable copy keeps what a restore at any batch the
		// logs still retain needs.
		return c.store.PurgeRemote(e.BatchID - checkpoint.DefaultRetain + 1)
	})
	return nil
}
