// Package checkpoint owns a query's checkpoint directory: its metadata, the
// offsets log (the write-ahead log of each micro-batch), the commit log, and
// atomic file writes. The layout is Spark Structured Streaming's, so a Spark
// user recognises it:
//
//	metadata            {"id": "<query uuid>", "numStatePartitions": 16, "planFingerprint": {…}}
//	offsets/<batchId>   v1
//	                    {"batchWatermarkMs":…,"batchTimestampMs":…,"conf":{…}}
//	                    one line per source: its end offset as JSON ("-" if none)
//	commits/<batchId>   v1
//	                    {"nextBatchWatermarkMs":…}
//	sources/<i>/        per-source metadata (file source's seen-files log, …)
//	state/              the state store (package state)
//
// # Protocol
//
// Batch N writes offsets/N durably BEFORE it reads any data, and commits/N
// after the sink has batch N and the state store committed version N. On
// restart, if the latest offsets/N has no commits/N, batch N re-runs with
// exactly the recorded offsets, timestamp and watermark; otherwise the next
// batch is N+1. The Dir enforces the order: offsets N only after commit N-1,
// a commit only for a batch with offsets, no entry written twice.
//
// # Invariants
//
//   - Every file is written by WriteFileAtomic: temp file in the same
//     directory, fsync, rename, fsync of the directory. A reader sees the old
//     file or the whole new one. Temp files start with ".tmp-"; Open removes
//     the leftovers of a crash.
//   - The batch ids of each log are contiguous; every commit has offsets; at
//     most one batch (the latest) has offsets without a commit. Anything else,
//     or a file that does not parse, is ErrCorrupt with an error naming the
//     file and the remedy. The engine never silently restarts from scratch.
//   - Purge keeps the latest committed batches (DefaultRetain = 100, Spark's
//     minBatchesToRetain), deleting oldest first so that a crash mid-purge
//     still leaves valid logs.
//   - The metadata is written once; Ensure refuses a restart whose state
//     partition count or plan fingerprint differs (ErrIncompatible).
//
// Read next: package state, the store under state/.
package checkpoint
