package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/millrace/millrace/state"
)

// Report describes a checkpoint for `millrace checkpoint inspect`. It is
// JSON-serialisable.
type Report struct {
	Path     string    `json:"path"`
	Metadata *Metadata `json:"metadata,omitempty"`
	// LatestOffsetsBatchID and LatestCommitBatchID are -1 when a log is empty.
	LatestOffsetsBatchID int64 `json:"latestOffsetsBatchId"`
	LatestCommitBatchID  int64 `json:"latestCommitBatchId"`
	// NextBatchID is the batch a restart runs next; Rerun says whether it is
	// a planned but uncommitted batch re-run with its recorded offsets.
	NextBatchID int64 `json:"nextBatchId"`
	Rerun       bool  `json:"rerun"`
	// WatermarkMs is the watermark of the next batch.
	WatermarkMs int64         `json:"watermarkMs"`
	Batches     []BatchReport `json:"batches"`
	// State is the state store's content, nil for a stateless query.
	State *state.Summary `json:"state,omitempty"`
}

// BatchReport describes one batch still in the logs.
type BatchReport struct {
	BatchID              int64             `json:"batchId"`
	Committed            bool              `json:"committed"`
	BatchWatermarkMs     int64             `json:"batchWatermarkMs"`
	BatchTimestampMs     int64             `json:"batchTimestampMs"`
	NextBatchWatermarkMs *int64            `json:"nextBatchWatermarkMs,omitempty"`
	Conf                 map[string]string `json:"conf,omitempty"`
	// Offsets are the sources' end offsets; null for a source with none.
	Offsets []json.RawMessage `json:"offsets"`
}

// Inspect reads the checkpoint at path without changing it: every offsets
// and commit file still retained, and the state store (read-only). A corrupt
// file is an error naming it, as for Open.
func Inspect(path string) (Report, error) {
	if _, err := os.Stat(path); err != nil {
		return Report{}, fmt.Errorf("checkpoint: inspect: %w", err)
	}
	d, err := open(path, false)
	if err != nil {
		return Report{}, err
	}
	r := Report{Path: path, Batches: []BatchReport{}}
	if m, ok, err := d.Metadata(); err != nil {
		return Report{}, err
	} else if ok {
		r.Metadata = &m
	}
	offMin, offMax, _, comMax := d.Batches()
	r.LatestOffsetsBatchID, r.LatestCommitBatchID = offMax, comMax
	r.NextBatchID = comMax + 1
	r.Rerun = offMax > comMax
	for id := offMin; id >= 0 && id <= offMax; id++ {
		e, err := d.Offsets(id)
		if err != nil {
			return Report{}, err
		}
		b := BatchReport{BatchID: id, BatchWatermarkMs: e.BatchWatermarkMs, BatchTimestampMs: e.BatchTimestampMs,
			Conf: e.Conf, Offsets: make([]json.RawMessage, len(e.Offsets))}
		for i, o := range e.Offsets {
			if o == "" {
				b.Offsets[i] = json.RawMessage("null")
			} else {
				b.Offsets[i] = json.RawMessage(o)
			}
		}
		if id <= comMax {
			c, err := d.Commit(id)
			if err != nil {
				return Report{}, err
			}
			b.Committed = true
			b.NextBatchWatermarkMs = &c.NextBatchWatermarkMs
			r.WatermarkMs = c.NextBatchWatermarkMs
		}
		r.Batches = append(r.Batches, b)
	}
	if r.Rerun && len(r.Batches) > 0 {
		r.WatermarkMs = r.Batches[len(r.Batches)-1].BatchWatermarkMs
	}
	sum, err := state.Describe(d.StateDir())
	switch {
	case err == nil:
		r.State = &sum
	case !errors.Is(err, state.ErrMissing):
		return Report{}, err
	}
	return r, nil
}
