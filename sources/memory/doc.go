// Package memory implements a source whose records are added by hand, like
// Spark's MemoryStream: for tests and notebooks.
//
// # Terms
//
//   - batch: one record added by AddBatch or AddRows. Batches are the unit
//     of offsets.
//
// # Invariants
//
//   - An offset is the JSON document {"batches": N}: the first N added
//     batches. Batches are never reordered, so (start, end] always names the
//     same records.
//   - LatestOffset returns every batch added so far; with ReadLimit.MaxRows
//     it takes whole batches while their rows fit the limit, but always at
//     least one batch so that a query makes progress (a single batch larger
//     than MaxRows is read whole).
//   - AddBatch and AddRows are safe to call from any goroutine while a query
//     runs.
//   - The source holds one reference to each added record until Commit passes
//     it (Commit promises the batch is never read again) or Close.
//   - PlanPartitions returns one partition that emits the range's records in
//     the order they were added.
//
// Read next: package sources/file, the directory source.
package memory
