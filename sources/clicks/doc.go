// Package clicks is a deterministic generator of click events, the input of
// `millrace demo` and of examples and tests that want realistic event-time
// disorder without any external system.
//
// Event n (n = 0, 1, 2, …) has a click id n, a campaign id and a user id
// drawn from a hash of (seed, n), and an event time base + n·Interval, moved
// earlier by a random jitter of up to MaxJitter (out-of-order events) and,
// for a share LateFraction of events, by up to MaxLateness more (late events,
// many of which arrive after the watermark has passed them). The same seed
// gives the same events in every run and every replay of a batch.
//
// Offsets are {"events": N}: the number of events generated so far.
package clicks
