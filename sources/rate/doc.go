// Package rate implements a synthetic source like Spark's rate source: it
// emits rows (timestamp, value) at a configured rate, for tests, demos and
// benchmarks.
//
// # Terms
//
//   - value: the row's sequence number, 0, 1, 2, … across the whole stream.
//   - start time: the wall-clock instant fixed by the first InitialOffset
//     call and recorded in every offset, so that a restarted query replays
//     identical rows.
//
// # Invariants
//
//   - An offset is the JSON document {"value": N, "startMicros": T}: N rows
//     (values 0..N-1) have been produced so far.
//   - Row v's timestamp is startMicros + floor(v*1e6/RowsPerSecond), in
//     microseconds, UTC. It depends only on (v, startMicros, RowsPerSecond), so
//     the rows of a range (start, end] are a pure function of the two offsets.
//   - LatestOffset uses the clock only to decide how many rows are available
//     now: RowsPerSecond per second after an optional ramp-up that follows
//     Spark's whole-second formula (speed grows by RowsPerSecond/(R+1) each
//     second for R seconds). During ramp-up rows are produced later than their
//     timestamps say (the timestamps keep the steady-rate spacing), so a
//     watermark never sees future event times.
//   - PlanPartitions splits (start, end] into NumPartitions contiguous value
//     ranges; each partition emits records of at most BatchRows rows, filled
//     directly into Arrow buffers.
//
// Read next: package sources/memory, the source tests feed by hand.
package rate
