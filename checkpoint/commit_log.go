package checkpoint

import (
	"encoding/json"
	"fmt"
)

// CommitEntry is one commits/<batchId> file, written once batch BatchID's
// output and state are durable.
type CommitEntry struct {
	BatchID int64
	// NextBatchWatermarkMs is the watermark the next batch runs with.
	NextBatchWatermarkMs int64
	// Watermarks is what each watermark operator of the query had seen
	// (Millrace's addition; empty in checkpoints written before it).
	Watermarks []OperatorWatermark
}

// OperatorWatermark is what one watermark operator (a WithWatermark of
// the query, in plan order) had seen when a batch committed. Spark keeps
// only the query's watermark and forgets these at a restart, so an input
// that had rows before a restart but has none after it holds the watermark
// back; with them a restarted query goes on exactly as if it had never
// stopped.
type OperatorWatermark struct {
	// MaxEventTimeUs is the largest event time seen; nil before any row.
	MaxEventTimeUs *int64 `json:"maxEventTimeUs,omitempty"`
	// LastRowsMs is the processing time of the last batch in which the
	// operator saw rows (or of the query's first start), for idle inputs.
	LastRowsMs int64 `json:"lastRowsMs"`
}

// commitMetadata is line 2 of a commit file, Spark's CommitMetadata.
type commitMetadata struct {
	NextBatchWatermarkMs int64               `json:"nextBatchWatermarkMs"`
	Watermarks           []OperatorWatermark `json:"millraceWatermarks,omitempty"`
}

// WriteCommit durably writes commits/<c.BatchID>. The batch's offsets must
// exist and every earlier batch be committed; an existing commit is never
// overwritten (ErrExists).
func (d *Dir) WriteCommit(c CommitEntry) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.commitPath(c.BatchID)
	switch {
	case d.comMax >= 0 && c.BatchID <= d.comMax && c.BatchID >= d.comMin:
		return fmt.Errorf("checkpoint: batch %d already committed (%s): %w", c.BatchID, p, ErrExists)
	case d.offMax < 0 || c.BatchID > d.offMax || c.BatchID < d.offMin:
		return fmt.Errorf("checkpoint: write %s: batch %d has no offsets entry: %w", p, c.BatchID, ErrOutOfOrder)
	case d.comMax >= 0 && c.BatchID != d.comMax+1:
		return fmt.Errorf("checkpoint: write %s: the next batch to commit is %d: %w", p, d.comMax+1, ErrOutOfOrder)
	case d.comMax < 0 && c.BatchID != d.offMin:
		return fmt.Errorf("checkpoint: write %s: the next batch to commit is %d: %w", p, d.offMin, ErrOutOfOrder)
	}
	meta, err := json.Marshal(commitMetadata{c.NextBatchWatermarkMs, c.Watermarks})
	if err != nil {
		return fmt.Errorf("checkpoint: write %s: %w", p, err)
	}
	data := append([]byte(fmt.Sprintf("v%d\n", logVersion)), meta...)
	if err := d.writeNew(commitName(c.BatchID), data); err != nil {
		return err
	}
	if d.comMin < 0 {
		d.comMin = c.BatchID
	}
	d.comMax = c.BatchID
	return nil
}

// LatestCommit returns the latest committed batch; false if none.
func (d *Dir) LatestCommit() (CommitEntry, bool, error) {
	d.mu.Lock()
	id := d.comMax
	d.mu.Unlock()
	if id < 0 {
		return CommitEntry{}, false, nil
	}
	c, err := d.readCommit(id)
	return c, err == nil, err
}

// Commit returns the commit entry of batch id.
func (d *Dir) Commit(id int64) (CommitEntry, error) {
	return d.readCommit(id)
}

func (d *Dir) readCommit(id int64) (CommitEntry, error) {
	const kind = "commit file"
	p := d.commitPath(id)
	lines, err := d.readLogFile(kind, commitName(id))
	if err != nil {
		return CommitEntry{}, err
	}
	if len(lines) != 2 {
		return CommitEntry{}, corrupt(kind, p, 0, nil, "%d lines, want 2", len(lines))
	}
	var m commitMetadata
	if err := json.Unmarshal([]byte(lines[1]), &m); err != nil {
		return CommitEntry{}, corrupt(kind, p, 2, err, "")
	}
	return CommitEntry{BatchID: id, NextBatchWatermarkMs: m.NextBatchWatermarkMs, Watermarks: m.Watermarks}, nil
}

// Batches returns the batch ids present in the logs: the oldest and latest
// offsets and commits, -1 where a log is empty.
func (d *Dir) Batches() (offMin, offMax, comMin, comMax int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.offMin, d.offMax, d.comMin, d.comMax
}
