package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/millrace/millrace/storage"
)

// Report describes a checkpoint's files for `millrace checkpoint inspect`.
// It is JSON-serialisable. The state store under it is described by
// exec.Inspect, which imports both this package and package state, so that
// neither imports the other.
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
	// Sink is the identity of the sink's storage recorded at the last
	// start, nil if none.
	Sink *SinkRecord `json:"sink,omitempty"`
	// Warnings describe damage a restart would not notice: files of old
	// batches the engine never reads again that do not parse.
	Warnings []string `json:"warnings,omitempty"`
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
	// Error says why the batch's files could not be read (then the other
	// fields are unknown); only for an old batch the engine never reads.
	Error string `json:"error,omitempty"`
}

// Inspect reads the checkpoint at path without changing it: every offsets
// and commit file still retained, and the sink record. A path
// that holds no checkpoint (no metadata file) is ErrNotCheckpoint. A
// corrupt file that a restart would read is an error naming it, as for
// Open; a corrupt file of an older batch, which the engine never reads
// again, is reported in Warnings and in its batch's Error, as the engine
// runs fine with it.
func Inspect(path string) (Report, error) {
	remote := storage.IsS3(path)
	if !remote {
		st, err := os.Stat(path)
		if err != nil {
			return Report{}, fmt.Errorf("checkpoint: inspect: %w", err)
		}
		if !st.IsDir() {
			return Report{}, fmt.Errorf("checkpoint: %s is not a query checkpoint: it is a file, and a checkpoint "+
				"is a directory (check the path): %w", path, ErrNotCheckpoint)
		}
	}
	d, err := open(path, false)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		return Report{}, err
	}
	md := &Dir{path: path}
	if remote {
		md = d // on object storage the metadata is read through the opened store
	}
	m, ok, merr := md.Metadata()
	switch {
	case merr != nil:
		return Report{}, merr
	case !ok && remote:
		return Report{}, fmt.Errorf("checkpoint: %s is not a query checkpoint: it has no metadata object: %w", path, ErrNotCheckpoint)
	case !ok:
		return Report{}, notCheckpoint(path)
	case err != nil:
		return Report{}, err
	}
	r := Report{Path: path, Metadata: &m, Batches: []BatchReport{}}
	if sr, ok, err := d.Sink(); err != nil {
		r.Warnings = append(r.Warnings, err.Error())
	} else if ok {
		r.Sink = &sr
	}
	offMin, offMax, _, comMax := d.Batches()
	r.LatestOffsetsBatchID, r.LatestCommitBatchID = offMax, comMax
	r.NextBatchID = comMax + 1
	r.Rerun = offMax > comMax
	// The files recovery reads: the latest offsets and commit, and for a
	// re-run the offsets before it (its start offsets and watermark).
	reads := func(id int64) bool { return id == offMax || (r.Rerun && id == offMax-1) }
	for id := offMin; id >= 0 && id <= offMax; id++ {
		b := BatchReport{BatchID: id, Committed: id <= comMax}
		e, err := d.Offsets(id)
		if err != nil {
			if reads(id) {
				return Report{}, err
			}
			r.warn(&b, err)
			r.Batches = append(r.Batches, b)
			continue
		}
		b.BatchWatermarkMs, b.BatchTimestampMs, b.Conf = e.BatchWatermarkMs, e.BatchTimestampMs, e.Conf
		b.Offsets = make([]json.RawMessage, len(e.Offsets))
		for i, o := range e.Offsets {
			if o == "" {
				b.Offsets[i] = json.RawMessage("null")
			} else {
				b.Offsets[i] = json.RawMessage(o)
			}
		}
		if id <= comMax {
			c, err := d.Commit(id)
			switch {
			case err == nil:
				b.NextBatchWatermarkMs = &c.NextBatchWatermarkMs
				r.WatermarkMs = c.NextBatchWatermarkMs
			case id == comMax:
				return Report{}, err
			default:
				r.warn(&b, err)
			}
		}
		r.Batches = append(r.Batches, b)
	}
	if r.Rerun && len(r.Batches) > 0 {
		r.WatermarkMs = r.Batches[len(r.Batches)-1].BatchWatermarkMs
	}
	return r, nil
}

// LockHolder describes the process holding the checkpoint at path ("pid
// 123"), from the pid its lock file records, for errors that say who to
// stop.
func LockHolder(path string) string { return holder(filepath.Join(path, lockFile)) }

// StateLocation is the location of the state's durable copy of the
// checkpoint at path on object storage, "" for a local checkpoint.
func StateLocation(path string) string {
	if !storage.IsS3(path) {
		return ""
	}
	return strings.TrimSuffix(path, "/") + "/" + stateDir
}

// StateDir is the state store directory of the checkpoint at path.
func StateDir(path string) string { return filepath.Join(path, stateDir) }

// warn records a damaged file of an old batch the engine does not read.
func (r *Report) warn(b *BatchReport, err error) {
	b.Error = err.Error()
	r.Warnings = append(r.Warnings, fmt.Sprintf("batch %d: %v (a restart does not read this batch's files again; "+
		"it runs unaffected, and Purge removes them in time)", b.BatchID, err))
}

// notCheckpoint describes a directory without a metadata file, saying what
// it looks like instead.
func notCheckpoint(path string) error {
	what := "it has no metadata file"
	has := func(name string) bool { _, err := os.Stat(filepath.Join(path, name)); return err == nil }
	ids, _ := listBatchIDs(filepath.Join(path, offsetsDir))
	switch {
	case has("_delta_log"):
		what = "it is a Delta table (it has _delta_log/)"
	case has("_millrace_log"):
		what = "it is a file sink's output directory (it has _millrace_log/)"
	case has("_spark_metadata"):
		what = "it is a Spark file sink's output directory (it has _spark_metadata/)"
	case len(ids) > 0:
		what = "it has offsets/ but no metadata file: a checkpoint whose metadata was lost, or not a checkpoint"
	}
	return fmt.Errorf("checkpoint: %s is not a query checkpoint: %s; a checkpoint holds metadata, offsets/ and "+
		"commits/ (check the path): %w", path, what, ErrNotCheckpoint)
}
