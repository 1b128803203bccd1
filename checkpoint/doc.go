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
//	                    {"nextBatchWatermarkMs":…,"millraceWatermarks":[…]}
//	sources/<i>/        per-source metadata (file source's seen-files log, …)
//	state/              the state store (package state)
//	lock                Millrace only: the running query's lock (its pid inside)
//	sink                Millrace only: {"location": …, "id": …} of the sink's storage
//
// Spark ignores the two Millrace-only files. millraceWatermarks, Millrace's
// addition to the commit metadata, is what each watermark operator had seen
// (OperatorWatermark), so a restart continues every input's watermark.
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
// # One query at a time
//
// Open takes an exclusive flock(2) on the lock file before it writes or
// removes anything, and holds it until Close (the query's end): a second
// query on the same checkpoint, in this process or another, fails with
// ErrInUse naming the holder's pid, having written nothing. The kernel
// drops the lock when the holder dies, however it dies, so a crash never
// leaves a stale lock. (Before the lock, two processes starting together
// on a new checkpoint could both write metadata while only one got the
// state store, leaving a checkpoint whose restarts were all refused; and a
// refused second process deleted the running one's temp files.) Inspect
// reads without the lock.
//
// # Invariants
//
//   - Every file is written through a temp file in the same directory,
//     fsync, then rename (WriteFileAtomic) or, for the files written once
//     (metadata, offsets/N, commits/N), link(2), which never replaces an
//     existing file (ErrExists); then fsync of the directory (both in
//     internal/fsutil, shared with the Delta log and the sinks). A reader sees
//     the old file or the whole new one. Temp files start with ".tmp-"; Open
//     removes the leftovers of a crash, holding the lock.
//   - A full disk (ENOSPC, EDQUOT) while writing a file is an error that
//     names the file, says the disk is full and what to do (ErrDiskFull,
//     internal/fsutil's sentinel, which package state's errors carry too).
//   - The batch ids of each log are contiguous; every commit has offsets; at
//     most one batch (the latest) has offsets without a commit. Anything else,
//     or a file that does not parse, is ErrCorrupt with an error naming the
//     file and the remedy. The engine never silently restarts from scratch.
//   - Purge keeps the latest committed batches (DefaultRetain = 100, Spark's
//     minBatchesToRetain), deleting oldest first so that a crash mid-purge
//     still leaves valid logs; a purge with nothing to delete touches
//     nothing (no directory fsync). The driver purges every 10 batches
//     (exec's purgeEvery), so 100 to 109 committed batches stay.
//   - The metadata is written once; Ensure refuses a restart whose state
//     partition count or plan fingerprint differs (ErrIncompatible).
//   - The sink file records the identity of the sink's storage at each
//     start (exec/sinkbind.go, sinks.Binder): a restart whose sink storage
//     was deleted or replaced is refused instead of losing output.
//
// # On object storage
//
// A location s3://bucket/prefix puts the checkpoint's own files (metadata,
// offsets/N, commits/N, sink) on S3 through package storage (files.go):
// entries are created with conditional writes (If-None-Match: *), so of two
// writers exactly one creates each entry and the other gets ErrExists;
// object storage has no lock, so that is what keeps a second query out.
// What must stay local (the state store's Pebble working copy, the
// sources' metadata) lives in a local work directory, WorkDirEnv/<bucket>/
// <prefix>. The state store's durable copy is on object storage at
// StateLocation (<location>/state: deltas and snapshots, see package
// state), so a stateful query restarted on an empty work directory
// restores its state from there; the sources' metadata is not uploaded
// yet: a file source there would not know the files it had seen.
// Inspect reads checkpoints on object storage too.
//
// # Inspect
//
// Inspect reports what a restart would do, from the logs; exec.Inspect adds
// the state store (millrace checkpoint inspect), so that this package does
// not import package state.
// A path without a metadata file is ErrNotCheckpoint (an empty directory,
// a Delta table, a mistyped path). A damaged file a restart reads (the
// latest offsets and commit, the offsets before a re-run batch) is an
// error, as for Open; a damaged file of an older batch, which the engine
// never reads again, is a warning.
//
// Read next: package state, the store under state/.
package checkpoint
