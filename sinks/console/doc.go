// Package console implements a sink that prints each batch, like Spark's
// console sink, for demos and debugging:
//
//	-------------------------------------------
//	Batch: 3
//	-------------------------------------------
//	+-----+-----+
//	|  key|count|
//	+-----+-----+
//	|    a|    2|
//	+-----+-----+
//	only showing top 20 rows
//
// # Invariants
//
//   - At most NumRows rows of a batch are printed (the first ones written);
//     the line "only showing top N rows" says when there were more.
//   - A batch is printed at Commit, in one write to the writer; an aborted
//     batch prints nothing.
//   - Not idempotent: the console cannot take back what it printed, so a
//     batch replayed after a crash is printed again (at-least-once, as in
//     Spark). Begin never skips.
//   - Cells are formatted like Spark's show(): null as "null", timestamps
//     in UTC as "2006-01-02 15:04:05[.ffffff]", strings longer than Truncate
//     cut to Truncate-3 characters plus "...", and right-aligned (left-aligned
//     when truncation is off).
//
// Read next: package sinks/blackhole, the sink for benchmarks.
package console
