package sinks

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// OutputMode says which result rows a trigger writes.
type OutputMode int

const (
	// Append writes only rows that will never change again: for windowed
	// aggregations, a window once the watermark has passed its end.
	Append OutputMode = iota
	// Update writes the rows that changed in this trigger.
	Update
	// Complete writes the whole result table every trigger.
	Complete
)

func (m OutputMode) String() string {
	switch m {
	case Append:
		return "Append"
	case Update:
		return "Update"
	case Complete:
		return "Complete"
	}
	return fmt.Sprintf("OutputMode(%d)", int(m))
}

// BatchInfo describes the batch a sink is asked to write.
type BatchInfo struct {
	QueryID string // stable across restarts
	BatchID int64
	Mode    OutputMode
	Schema  *arrow.Schema
}

// Sink receives the result rows of each trigger.
type Sink interface {
	// Name is a short description used in progress events.
	Name() string
	// Begin starts writing batch info.BatchID. If that batch is already
	// durable in the sink it returns a writer whose Skip reports true.
	Begin(ctx context.Context, info BatchInfo) (BatchWriter, error)
	// Close releases the sink's resources.
	Close() error
}

// BatchWriter writes the rows of one batch.
type BatchWriter interface {
	// Skip reports that the batch is already durable in the sink.
	Skip() bool
	// Write adds rows. It must not keep rec after returning unless it calls
	// Retain.
	Write(ctx context.Context, rec arrow.RecordBatch) error
	// Commit makes the batch durable and visible.
	Commit(ctx context.Context) error
	// Abort discards what was written. It is called when the batch fails.
	Abort()
}

// ModeChecker is implemented by sinks that support only some output modes.
// CheckMode returns nil for a mode the sink supports, and otherwise an
// error that says what to change; a query with such a mode fails at Start.
type ModeChecker interface {
	CheckMode(m OutputMode) error
}

// Metricer is implemented by sinks that report metrics in the sink entry of
// progress events.
type Metricer interface {
	Metrics() map[string]string
}
