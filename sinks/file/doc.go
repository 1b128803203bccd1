// Package file implements a file sink for Append mode, like Spark's file
// sink: each batch's rows go to one or more files in a directory, and a
// batch becomes visible only when its entry is written to the sink's log.
//
// # Layout
//
//	<dir>/part-<batchId>-<n>.jsonl     data files (JSON lines; .csv with FormatCSV)
//	<dir>/_millrace_log/<batchId>      one entry per committed batch (the commit point)
//	<dir>/_millrace_log/owner.json     the directory's id and the query that writes it (Bind)
//	<dir>/.part-…​.tmp-<random>          data being written (never read)
//
// A log entry is the text "v1" on the first line, then one JSON object per
// data file of the batch: {"path":"part-7-0.jsonl","rows":1234,"size":56789}.
// A batch that produced no rows has an entry with no files, so that a
// replay of it is still skipped.
//
// # Commit protocol
//
// Write encodes rows into temporary files (names starting with a dot); a
// file is closed and a new one started every MaxRowsPerFile rows. Commit
// fsyncs each file, renames it to its final name, fsyncs the directory,
// and then writes the log entry atomically (internal/fsutil.Write:
// temporary file, fsync, rename, fsync of the log directory). A crash at any point before the rename of
// the log entry leaves the batch uncommitted: its files may exist, under
// temporary or final names, but no reader looks at them, and the replay of
// the batch rewrites them.
//
// # On S3
//
// The directory may be an S3 prefix, s3://bucket/prefix (s3a:// too),
// reached through package storage (the program links the S3 backend by
// importing storage/s3store). The layout is the same, with these
// differences (remote.go):
//
//   - There is no rename to publish a file, so a data file is built in
//     memory and uploaded whole with one PUT when it reaches MaxRowsPerFile
//     rows or the batch commits: no reader ever sees a partial object. Its
//     name carries a random token of the attempt,
//     part-<batchId>-<n>-<token>.jsonl, so that no attempt overwrites an
//     object another attempt wrote. No temporary names exist.
//   - The log entry is created with storage.Store.WriteNew (PUT with
//     If-None-Match: *): it is never replaced, and of two attempts racing
//     for a batch exactly one commits. An attempt that finds its own entry
//     there (the answer to its PUT was lost and the retry found the object)
//     has committed; one that finds a different entry removes its data
//     objects and fails, naming the batch.
//   - Begin of an uncommitted batch deletes the objects of earlier attempts
//     of the batch (listing part-<batchId>-); until then they are orphans
//     that no reader looks at.
//   - New writes _millrace_log/format ("v1") into an empty log: S3 has no
//     directories, and this object marks the prefix as a sink's output
//     from the start, so that a file source reading it (package
//     sources/file) takes only committed files even before the first
//     commit.
//   - Committed names files by their s3:// URLs; ReadCommitted and
//     ReadCommittedLines read them through the store; Bind records the
//     s3:// location.
//
// On local disk the log entry is replaced atomically (internal/fsutil.Write),
// as before; Begin's check makes a second write of an entry impossible in
// one query.
//
// # Invariants
//
//   - Exactly-once by batch id: Begin for a batch id that has a log entry
//     returns a writer whose Skip is true and whose Write and Commit do
//     nothing. The engine re-runs an uncommitted batch with the same id and
//     the same rows, so readers see every batch once.
//   - Readers (ReadCommitted, CommittedFiles) consider only files named by
//     committed log entries; orphan files of a crash or an Abort are ignored.
//   - One query writes to a directory (as in Spark): the log is keyed by
//     batch id, so another query's batch N would be skipped as already
//     written. Bind (sinks.Binder) records the owner and refuses another
//     query on a directory holding committed batches, and a restart whose
//     directory was deleted under committed batches (bind.go).
//   - Append mode only: Update and Complete rewrite earlier rows, which
//     append-only files cannot express. CheckMode says so, so Start
//     rejects those modes before the query runs.
//
// # Encoding
//
// RowEncoder exposes the two formats to other writers of rows (millrace
// delta read); it also prints types the sink refuses (lists, maps) as
// arrow's JSON.
//
// JSON lines: one object per row, fields in schema order. Integers and
// floats are JSON numbers (NaN and ±Inf are the strings "NaN", "Infinity",
// "-Infinity", as Spark writes them), strings are JSON strings, bools are
// true/false, binary is base64, timestamps (any unit) are RFC 3339 strings
// in UTC with microseconds ("2026-01-01T00:01:00.000000Z"), date32 is
// "2006-01-02", structs are nested objects, nulls are null. CSV: a header
// line in every file, struct fields flattened to "parent.child" columns,
// the same scalar texts, quoted per RFC 4180 when needed, null as an
// empty field.
//
// Values are encoded a batch at a time: the column types are resolved once
// per record into typed slices, and the per-row loop switches on a small
// kind tag, with no interface call or allocation per value.
//
// Read next: package sinks/memory, the in-memory table with the same
// exactly-once contract.
package file
