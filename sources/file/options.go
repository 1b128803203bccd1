package file

import (
	"fmt"
	"github.com/millrace/millrace/textdecode"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// BatchRows is the largest record a partition emits.
const BatchRows = 8192

// Format is the file format of a directory.
type Format string

// The supported formats.
const (
	JSON    Format = "json" // JSON lines: one object per line
	CSV     Format = "csv"
	Parquet Format = "parquet"
)

// Options configures a file source.
type Options struct {
	// Path is the directory to watch: a local directory, or an S3 prefix
	// s3://bucket/prefix (s3a:// too) when the program links the S3 backend
	// (storage/s3store).
	Path string
	// Format of every file.
	Format Format
	// Schema of the records to emit. JSON and CSV columns must have one of
	// the types listed by SupportedTypes.
	Schema *arrow.Schema
	// MaxFilesPerTrigger caps the new files of one batch (0: no cap).
	MaxFilesPerTrigger int
	// MaxFileAge bounds the record of seen files (Spark's maxFileAge): a
	// file modified more than MaxFileAge before the newest file seen is
	// ignored, and leaves the record. 0 means DefaultMaxFileAge (7 days)
	// on S3, and no bound on a local directory (every processed name stays
	// in the offset, as before the option existed). See doc.go.
	MaxFileAge time.Duration
	// Pattern is a filepath.Match glob on file names (default "*").
	Pattern string
	// Header says that each CSV file starts with a header row.
	Header bool
	// Delimiter separates CSV fields (default ',').
	Delimiter rune
	// DeadLetters, when set, receives malformed records instead of failing
	// the batch.
	DeadLetters sources.DeadLetters
	// ReplaceInvalidUTF8 stores each byte of a JSON string or CSV field that
	// is not part of valid UTF-8 as U+FFFD in string columns. By default
	// such a record is malformed: Arrow and Parquet string columns must
	// hold UTF-8, and readers such as pyarrow and delta-rs refuse a table
	// that does not.
	ReplaceInvalidUTF8 bool
}

// SupportedTypes lists the column types the JSON and CSV readers fill.
const SupportedTypes = "bool, int32, int64, float32, float64, string, date32, timestamp (any unit)"

func (o Options) validate() (Options, error) {
	if o.Path == "" {
		return o, fmt.Errorf("file source: Options.Path is empty")
	}
	if o.Schema == nil {
		return o, fmt.Errorf("file source: Options.Schema is nil; the file source needs the schema of its records")
	}
	if o.Pattern == "" {
		o.Pattern = "*"
	}
	if _, err := filepath.Match(o.Pattern, ""); err != nil {
		return o, fmt.Errorf("file source: bad Pattern %q: %w", o.Pattern, err)
	}
	if o.Delimiter == 0 {
		o.Delimiter = ','
	}
	if o.MaxFileAge < 0 {
		return o, fmt.Errorf("file source: MaxFileAge must not be negative, got %s", o.MaxFileAge)
	}
	if o.MaxFilesPerTrigger < 0 {
		return o, fmt.Errorf("file source: MaxFilesPerTrigger must not be negative, got %d", o.MaxFilesPerTrigger)
	}
	switch o.Format {
	case JSON, CSV:
		for _, f := range o.Schema.Fields() {
			if !textdecode.Supported(f.Type) {
				return o, fmt.Errorf("file source: field %s has type %s, which the %s reader cannot fill (supported: %s)",
					f.Name, columnar.TypeName(f.Type), o.Format, SupportedTypes)
			}
		}
	case Parquet:
	default:
		return o, fmt.Errorf("file source: unknown Format %q (want %q, %q or %q)", o.Format, JSON, CSV, Parquet)
	}
	return o, nil
}
