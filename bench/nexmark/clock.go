package nexmark

import (
	"sync/atomic"
	"time"
)

// Processing time, made deterministic. A processing-time query (q12) reads
// the batch timestamp, which the engine takes from the query's clock once
// per trigger. Run replaces the wall clock by a counter: the k-th call
// (trigger k, k = 0, 1, …) returns TriggerTime(k). With the AvailableNow
// trigger and no checkpoint, trigger k is batch k and reads the positions
// TriggerRange(k), so the oracle knows every row's processing time.

// TriggerTime is the simulated processing time of trigger k:
// BaseTime + k·TriggerInterval.
func (g *Generator) TriggerTime(k int64) time.Time {
	return g.cfg.BaseTime.Add(time.Duration(k) * g.cfg.TriggerInterval)
}

// TriggerRange returns the positions [lo, hi) batch k of an AvailableNow
// run over events positions reads: MaxEventsPerTrigger at a time (all of
// them in batch 0 without a limit). ok is false past the last batch.
func (g *Generator) TriggerRange(k, events int64) (lo, hi int64, ok bool) {
	m := g.cfg.MaxEventsPerTrigger
	if m <= 0 {
		return 0, events, k == 0 && events > 0
	}
	lo = k * m
	if lo >= events {
		return 0, 0, false
	}
	return lo, min(lo+m, events), true
}

// clock returns a clock whose k-th call returns TriggerTime(k).
func (g *Generator) clock() func() time.Time {
	var calls atomic.Int64
	return func() time.Time { return g.TriggerTime(calls.Add(1) - 1) }
}
