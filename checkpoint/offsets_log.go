package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// voidOffset is how Spark writes a source that has no offset yet.
const voidOffset = "-"

// OffsetEntry is one offsets/<batchId> file: the write-ahead record of what
// batch BatchID reads, written before it reads anything.
type OffsetEntry struct {
	BatchID          int64
	BatchWatermarkMs int64
	BatchTimestampMs int64
	// Conf holds the settings that must not change across a restart
	// (Spark's "conf"), e.g. the number of state partitions.
	Conf map[string]string
	// Offsets holds the end offset of each source as JSON text, in query
	// order. "" means the source has no offset yet (written as "-").
	Offsets []string
}

// offsetSeqMetadata is line 2 of an offsets file, Spark's OffsetSeqMetadata.
type offsetSeqMetadata struct {
	BatchWatermarkMs int64             `json:"batchWatermarkMs"`
	BatchTimestampMs int64             `json:"batchTimestampMs"`
	Conf             map[string]string `json:"conf"`
}

func offsetsName(id int64) string { return offsetsDir + "/" + strconv.FormatInt(id, 10) }

func commitName(id int64) string { return commitsDir + "/" + strconv.FormatInt(id, 10) }

func (d *Dir) offsetsPath(id int64) string { return d.file(offsetsName(id)) }

func (d *Dir) commitPath(id int64) string { return d.file(commitName(id)) }

// encodeOffsets renders e in Spark's offsets file format.
func encodeOffsets(e OffsetEntry) ([]byte, error) {
	conf := e.Conf
	if conf == nil {
		conf = map[string]string{}
	}
	meta, err := json.Marshal(offsetSeqMetadata{e.BatchWatermarkMs, e.BatchTimestampMs, conf})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "v%d\n", logVersion)
	b.Write(meta)
	for i, o := range e.Offsets {
		b.WriteByte('\n')
		if o == "" {
			b.WriteString(voidOffset)
			continue
		}
		if err := json.Compact(&b, []byte(o)); err != nil {
			return nil, fmt.Errorf("offset of source %d is not JSON: %w", i, err)
		}
	}
	return b.Bytes(), nil
}

// WriteOffsets durably writes offsets/<e.BatchID>. The batch must be the
// next one: 0 for a new checkpoint, else one past the latest offsets, whose
// batch must be committed. An existing entry is never overwritten (ErrExists).
func (d *Dir) WriteOffsets(e OffsetEntry) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	p := d.offsetsPath(e.BatchID)
	switch {
	case e.BatchID < 0:
		return fmt.Errorf("checkpoint: write %s: negative batch id: %w", p, ErrOutOfOrder)
	case d.offMax >= 0 && e.BatchID <= d.offMax && e.BatchID >= d.offMin:
		return fmt.Errorf("checkpoint: offsets for batch %d already written (%s): re-run it with the recorded offsets: %w",
			e.BatchID, p, ErrExists)
	case d.offMax < 0 && e.BatchID != 0:
		return fmt.Errorf("checkpoint: write %s: the first batch of a checkpoint is 0: %w", p, ErrOutOfOrder)
	case d.offMax >= 0 && e.BatchID != d.offMax+1:
		return fmt.Errorf("checkpoint: write %s: the next batch is %d: %w", p, d.offMax+1, ErrOutOfOrder)
	case d.offMax >= 0 && d.comMax != d.offMax:
		return fmt.Errorf("checkpoint: write %s: batch %d is not committed yet: %w", p, d.offMax, ErrOutOfOrder)
	case d.numSources > 0 && len(e.Offsets) != d.numSources:
		return fmt.Errorf("checkpoint: write %s: %d source offsets, the query has %d sources", p, len(e.Offsets), d.numSources)
	}
	data, err := encodeOffsets(e)
	if err != nil {
		return fmt.Errorf("checkpoint: write %s: %w", p, err)
	}
	if err := d.writeNew(offsetsName(e.BatchID), data); err != nil {
		return err
	}
	if d.offMin < 0 {
		d.offMin = e.BatchID
	}
	d.offMax = e.BatchID
	return nil
}

// LatestOffsets returns the entry of the latest batch planned; false if none.
func (d *Dir) LatestOffsets() (OffsetEntry, bool, error) {
	d.mu.Lock()
	id := d.offMax
	d.mu.Unlock()
	if id < 0 {
		return OffsetEntry{}, false, nil
	}
	e, err := d.readOffsets(id)
	return e, err == nil, err
}

// Offsets returns the entry of batch id.
func (d *Dir) Offsets(id int64) (OffsetEntry, error) {
	return d.readOffsets(id)
}

func (d *Dir) readOffsets(id int64) (OffsetEntry, error) {
	const kind = "offsets file"
	p := d.offsetsPath(id)
	lines, err := d.readLogFile(kind, offsetsName(id))
	if err != nil {
		return OffsetEntry{}, err
	}
	if len(lines) < 2 {
		return OffsetEntry{}, corrupt(kind, p, 2, nil, "missing batch metadata line")
	}
	var m offsetSeqMetadata
	if err := json.Unmarshal([]byte(lines[1]), &m); err != nil {
		return OffsetEntry{}, corrupt(kind, p, 2, err, "")
	}
	e := OffsetEntry{BatchID: id, BatchWatermarkMs: m.BatchWatermarkMs, BatchTimestampMs: m.BatchTimestampMs, Conf: m.Conf}
	if e.Conf == nil {
		e.Conf = map[string]string{}
	}
	src := lines[2:]
	d.mu.Lock()
	n := d.numSources
	d.mu.Unlock()
	if n > 0 && len(src) != n {
		return OffsetEntry{}, corrupt(kind, p, 0, nil, "%d source offset lines, the query's metadata records %d sources", len(src), n)
	}
	e.Offsets = make([]string, len(src))
	for i, l := range src {
		l = strings.TrimSpace(l)
		switch {
		case l == voidOffset:
		case l == "" || !json.Valid([]byte(l)):
			var v any
			err := json.Unmarshal([]byte(l), &v)
			return OffsetEntry{}, corrupt(kind, p, i+3, err, "source %d offset is not JSON", i)
		default:
			e.Offsets[i] = l
		}
	}
	return e, nil
}
