package exec

import (
	"fmt"
	"time"
)

// TriggerKind says when micro-batches run.
type TriggerKind int

const (
	// TriggerProcessingTime runs a batch every Interval (0: as fast as
	// possible), skipping intervals that have no new data.
	TriggerProcessingTime TriggerKind = iota
	// TriggerOnce runs one batch with everything available, then stops.
	TriggerOnce
	// TriggerAvailableNow processes everything available at start, in as
	// many batches as the read limits allow, then stops.
	TriggerAvailableNow
)

// Trigger is a query's trigger policy.
type Trigger struct {
	Kind     TriggerKind
	Interval time.Duration
}

func (t Trigger) String() string {
	switch t.Kind {
	case TriggerOnce:
		return "Once"
	case TriggerAvailableNow:
		return "AvailableNow"
	}
	return fmt.Sprintf("ProcessingTime(%s)", t.Interval)
}
