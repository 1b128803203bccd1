package exec

import "time"

// adaptiveLimit sizes triggers for the AdaptiveReadLimit mode: it keeps an
// exponentially weighted estimate of the processing rate (rows per second
// of addBatch time) and allows the next trigger as many rows as that rate
// processes in one trigger interval. Batch boundaries it chooses are
// recorded in the offsets log like any other, so replays stay exact.
type adaptiveLimit struct {
	rate float64 // rows per second, 0 before the first measurement
	max  int64   // the current limit
}

const (
	adaptiveStartRows = 10_000 // first trigger, before any measurement
	adaptiveMinRows   = 1_000
	// adaptiveTarget is the share of the interval a batch should take,
	// leaving room for the commit and for variance.
	adaptiveTarget = 0.8
)

// limit returns the row limit of the next trigger, within ceiling (0: none).
func (a *adaptiveLimit) limit(ceiling int64) int64 {
	n := a.max
	if n == 0 {
		n = adaptiveStartRows
	}
	if ceiling > 0 && n > ceiling {
		n = ceiling
	}
	return n
}

// observe folds a batch of rows processed in d into the estimate and sets
// the next limit for a trigger interval of interval (1s when 0).
func (a *adaptiveLimit) observe(rows int64, d, interval time.Duration) {
	if rows <= 0 || d <= 0 {
		return
	}
	if interval <= 0 {
		interval = time.Second
	}
	r := float64(rows) / d.Seconds()
	if a.rate == 0 {
		a.rate = r
	} else {
		a.rate = 0.7*a.rate + 0.3*r
	}
	next := int64(a.rate * interval.Seconds() * adaptiveTarget)
	// grow at most 4x per trigger: a small first batch measures badly
	if a.max > 0 && next > 4*a.max {
		next = 4 * a.max
	}
	a.max = max(next, adaptiveMinRows)
}
