// Package blackhole implements a sink that discards rows after reading
// every value, for benchmarks: it measures a pipeline without the cost of a
// real sink, yet the compiler cannot skip the work that produced the rows.
//
// # Invariants
//
//   - Every value of every column is read into a checksum: a sum over rows of
//     a mixed hash of each value, so the checksum does not depend on row
//     order or on how rows are split into records and batches, only on the
//     multiset of rows (and column order).
//   - Null slots are skipped (their buffer contents are unspecified).
//   - Rows and the checksum are added at Commit; an aborted batch adds
//     nothing. The sink never skips a batch: it is at-least-once.
//   - Nested types (struct, list, map…) add only their row count.
//
// Read next: package sinks/memory, a sink whose result can be queried.
package blackhole
