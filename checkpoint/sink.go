package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
)

// sinkFile records the identity of the sink the query writes to. It is not
// part of Spark's layout; Spark ignores it.
const sinkFile = "sink"

// SinkRecord is the identity of the storage a query's sink writes to, as
// the sink reports it at start (sinks.Identity): where, and which
// incarnation. A restart whose sink has the same Location but another ID
// finds that the output was deleted or replaced.
type SinkRecord struct {
	Location string `json:"location"`
	ID       string `json:"id"`
}

// Sink reads the recorded sink identity; false if none is recorded (a
// stateless sink, a new checkpoint, or one older than the record).
func (d *Dir) Sink() (SinkRecord, bool, error) {
	p := d.file(sinkFile)
	data, err := d.readFile(sinkFile)
	if errors.Is(err, fs.ErrNotExist) {
		return SinkRecord{}, false, nil
	}
	if err != nil {
		return SinkRecord{}, false, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	var r SinkRecord
	if err := json.Unmarshal(data, &r); err != nil || r.Location == "" {
		return SinkRecord{}, false, fmt.Errorf("checkpoint: sink file %s is corrupt (%v): restore it from a backup, "+
			"or delete it, which skips the check that the sink's output is the one this checkpoint wrote once: %w", p, err, ErrCorrupt)
	}
	return r, true, nil
}

// WriteSink records the sink identity, replacing the earlier one (the sink
// may change between runs).
func (d *Dir) WriteSink(r SinkRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("checkpoint: write %s: %w", d.file(sinkFile), err)
	}
	return d.writeReplace(sinkFile, append(data, '\n'))
}
