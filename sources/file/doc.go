// Package file implements a source that reads a directory of files (JSON
// lines, CSV or Parquet) into records of a user-given Arrow schema, picking
// up new files as they appear, like Spark's file stream source.
//
// # Terms
//
//   - file: a regular file (an object, on S3) directly in Options.Path whose name matches
//     Options.Pattern. Names starting with "." or "_" are ignored (temporary
//     and marker files such as _SUCCESS), as Spark does. Names ending in
//     ".gz" are decompressed (JSON and CSV).
//   - new file: a file the start offset does not record as read (and, for
//     the bounded record, not older than its threshold).
//
// # Offsets and new-file detection
//
// Options.Path is a local directory or an S3 prefix (s3://bucket/prefix or
// s3a://, through package storage; the program links the S3 backend by
// importing storage/s3store). On S3 the files are the objects directly
// below the prefix (names without a further "/", as a local directory's
// subdirectories are not read), listed with storage.Store.List and read
// whole with one GET; Parquet objects are copied to a local temporary file
// for the Parquet reader.
//
// Each LatestOffset lists the directory, sorts the files by modification
// time then name, and takes the new files in that order (at most
// MaxFilesPerTrigger, or ReadLimit.MaxFiles if smaller). An offset has one
// of two layouts:
//
//   - the list, {"files": [...]}: the names of the files processed so far,
//     in processing order. A new file is one not in the list.
//     PlanPartitions(start, end) checks that start is a prefix of end and
//     returns one partition per file of the difference. Local directories
//     without Options.MaxFileAge use it: simple and exact, but it grows with
//     the number of files (a directory of tens of thousands of files makes
//     every offset-log entry that large).
//   - the bounded record, {"v":2,"batch":n,"files":[...],"seen":{name:ms},
//     "purgedBefore":ms} (seen.go), Spark's SeenFilesMap kept in the
//     offset: "files" are the files of batch n alone; "seen" maps the names
//     read to their modification times. A new file is one not in seen and
//     modified at or after purgedBefore. After a batch's files are added,
//     purgedBefore moves to the newest modification time in the record
//     minus MaxFileAge (it never moves back) and older names leave the
//     record. PlanPartitions(start, end) requires end to be the batch after
//     start and returns end's files. S3 prefixes always use it (MaxFileAge
//     defaults to DefaultMaxFileAge, 7 days, as Spark's maxFileAge); local
//     directories when MaxFileAge is set. A list offset continues as
//     the bounded record when the option appears, without reading a file
//     twice; a bounded offset stays bounded.
//
// The rule's consequence, as Spark documents for maxFileAge: the record
// holds the files of one MaxFileAge window, however many files the
// directory has seen; the first batch reads every file present; but a file
// that becomes visible with a modification time more than MaxFileAge older
// than the newest file already seen is never read. On S3 the modification
// time is the object's LastModified, the time its upload began (whole
// seconds on some servers), so MaxFileAge must exceed the longest upload
// and the longest delay between writers' clocks and listing. Deleting a
// read file and writing one of the same name within the window does not
// make it new.
//
// Spark keeps its file log beside the checkpoint instead of putting the
// record in the offset; Millrace's offset is the record, so offsets/N is as
// large as the window's names. A file is read once, by name: writers must
// create files atomically (write a hidden name, then rename; on S3 every
// PUT is atomic) and must not change a file once it is visible.
//
// # A file sink's output
//
// A directory with a file sink's log (_millrace_log/, package sinks/file;
// on S3 any object below that prefix, the sink writes a marker at once) is
// read as Spark reads a directory with _spark_metadata: only the data
// files named by committed log entries (sinklog.go). A data file of an
// attempt that has not committed is skipped and read once its batch's
// entry exists; one of an attempt that never commits (it crashed, and the
// replay wrote other objects) is never read. Entries are read only for the
// batches of candidate files (part-<batchId>-…) and cached, since they
// never change. So a query chained behind a file sink, on local disk or
// S3, reads each committed row once.
//
// # Parsing
//
// JSON lines: one object per line, decoded by a hand-written tokenizer
// straight into column builders by field name. A missing field or JSON null
// is a null; unknown fields are ignored; a value of the wrong JSON type is a
// malformed record. A string column accepts any value and keeps its JSON
// text; a JSON string is parsed as text for other columns (so "42" fills an
// int64 column, "abc" is malformed). If a field occurs twice the last value
// wins. Blank lines are skipped.
//
// CSV: encoding/csv with Options.Delimiter. With Header, each file's first
// row names the columns (schema fields absent from the header are null);
// without it, columns are the schema fields in order. An empty field is null.
// A row with the wrong number of fields is malformed.
//
// Timestamps (JSON strings and CSV fields): RFC 3339 ("2024-05-01T12:00:00Z",
// with optional fraction and offset), "2024-05-01 12:00:00[.ffffff]" (UTC
// unless an offset follows) or a date alone; JSON integers and all-digit CSV
// fields are epoch milliseconds. Date32 columns accept "2024-05-01".
//
// Parquet: read with arrow-go's pqarrow through internal/pqread (as lake
// reads its data files), projecting the file's columns to the schema by
// name; a schema field the file lacks is null, timestamps of another unit
// are converted and names, nullability and time zones relabelled
// (kernels.Conform), any other type difference is an error.
//
// # Malformed records
//
// By default Read fails with a *RecordError (which wraps
// sources.ErrBadRecord) naming the file, the 1-based line, the field and the
// problem. A JSON string or CSV field for a string column that is not valid
// UTF-8 makes its record malformed, unless Options.ReplaceInvalidUTF8 asks
// for U+FFFD in place of each bad byte. With Options.DeadLetters set, the
// record goes to
// DeadLetters.Add with its raw text, the source counts it (BadRecords,
// Metrics) and reading continues.
//
// Every partition emits records of at most BatchRows rows.
//
// Read next: package sinks, where records end up.
package file
