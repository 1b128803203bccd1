// Package textdecode turns text records — JSON objects and CSV fields — into
// typed Arrow columns without a per-row allocation: a hand-written JSON
// tokenizer stages each field of a row straight into per-column slots, and a
// committed row is appended to the column builders. A malformed row leaves
// the builders untouched and returns an error naming the field.
//
// It is shared by the file source (JSON lines, CSV) and by FromJSON in the
// engine (JSON documents in a binary column, e.g. Kafka values).
//
// String columns hold UTF-8 only (Arrow and Parquet require it): a string
// value with invalid UTF-8 is an error, or, with Rows.SetReplaceInvalidUTF8,
// has each bad byte replaced by U+FFFD. Only values stored in string
// columns are checked, with utf8.Valid (8 ASCII bytes a step); \u escapes
// always decode to UTF-8 (a lone surrogate to U+FFFD).
//
// Supported column types: bool, int32, int64, float32, float64, string,
// date32, timestamp (any unit; RFC 3339 text, "YYYY-MM-DD HH:MM:SS[.f]" or
// integer epoch milliseconds).
package textdecode
