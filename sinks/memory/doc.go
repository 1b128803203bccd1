// Package memory implements a queryable in-memory result table, like
// Spark's memory sink: for tests, notebooks and the CLI's interactive use.
// It copies rows into Go values, so it suits small results; benchmarks use
// sinks/blackhole.
//
// # Modes
//
//   - Append adds the batch's rows to the table.
//   - Complete replaces the table with the batch's rows.
//   - Update with key columns (Options.Keys) upserts: a row replaces the row with
//     the same key values, keeping its position; new keys are appended.
//     Without keys, Update appends, as Spark's memory sink does. The key
//     index covers rows written by Update; a Complete batch clears it.
//
// # Invariants
//
//   - Idempotent by batch id: Begin for a batch id not greater than the last
//     committed one returns a writer whose Skip is true, and whose Write and
//     Commit do nothing. A batch's rows become visible atomically at Commit;
//     Abort discards them.
//   - Write copies every value out of the record (it keeps no reference), so
//     the caller keeps ownership of rec.
//   - Reads (Rows, NumRows, …) are safe while a query writes; they see the
//     table as of the last commit.
//
// # Go values
//
// Values are converted as follows; null is nil. bool → bool; intN/uintN →
// the Go type of the same width (int32 stays int32); float32/float64 →
// float32/float64; string → string; binary → []byte (copied); timestamp (any
// unit) and date32 → time.Time in UTC; any other type → its Arrow ValueStr
// text (such columns cannot be rebuilt by Records).
//
// Read next: package sinks/console, the sink that prints.
package memory
