// Package file implements a source that reads a directory of files (JSON
// lines, CSV or Parquet) into records of a user-given Arrow schema, picking
// up new files as they appear, like Spark's file stream source.
//
// # Terms
//
//   - file: a regular file directly in Options.Path whose name matches
//     Options.Pattern. Names starting with "." or "_" are ignored (temporary
//     and marker files such as _SUCCESS), as Spark does. Names ending in
//     ".gz" are decompressed (JSON and CSV).
//   - new file: a file whose name is not yet in the start offset.
//
// # Offsets and new-file detection
//
// An offset is the JSON document {"files": [...]}: the names of the files
// processed so far, in processing order. Each LatestOffset lists the
// directory, sorts the files by modification time then name, and appends the
// files not in the start offset (at most MaxFilesPerTrigger, or
// ReadLimit.MaxFiles if smaller). PlanPartitions(start, end) checks that start
// is a prefix of end and returns one partition per file of the difference.
//
// Spark keeps a compacted file log beside the checkpoint instead of putting
// the list in the offset; Millrace keeps the list in the offset, which is
// simple and exact but grows with the number of files (a directory of tens of
// thousands of files makes every offset-log entry that large). A file is read
// once, by name: writers must create files atomically (write a hidden name,
// then rename) and must not change a file once it is visible.
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
