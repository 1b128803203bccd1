package sources

import (
	"context"
	"errors"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Offset is a source's position, serialised as a JSON document.
type Offset string

// ReadLimit bounds how much a single trigger may read. Zero fields mean no
// bound. Sources interpret the limits that make sense for them and ignore the
// rest (a file source counts files, a Kafka source counts records).
type ReadLimit struct {
	// MaxRows caps the records of one trigger (Spark's maxOffsetsPerTrigger,
	// or rowsPerSecond-derived for the rate source).
	MaxRows int64
	// MaxFiles caps the files of one trigger (maxFilesPerTrigger).
	MaxFiles int
	// MinRows, with MaxTriggerDelay, holds a trigger back until this many
	// records are available or the delay since the last batch has passed.
	MinRows         int64
	MaxTriggerDelay time.Duration
}

// Source is a replayable stream of records. All methods are called from one
// goroutine, except InputPartition.Read, which the driver runs in parallel.
type Source interface {
	// Name is a short description used in progress events ("RateSource[rowsPerSecond=10]").
	Name() string
	// Schema returns the Arrow schema of every batch the source emits.
	Schema() *arrow.Schema
	// InitialOffset returns the offset before the first record to read.
	InitialOffset(ctx context.Context) (Offset, error)
	// LatestOffset returns the end of the next batch starting after start,
	// bounded by limit. Returning start means no new data.
	LatestOffset(ctx context.Context, start Offset, limit ReadLimit) (Offset, error)
	// PlanPartitions splits the range (start, end] into independently readable
	// partitions. It must be a pure function of (start, end).
	PlanPartitions(start, end Offset) ([]InputPartition, error)
	// Commit tells the source that everything up to end is durably processed
	// and will never be asked for again.
	Commit(end Offset) error
	// Close releases the source's resources.
	Close() error
}

// InputPartition is one independently readable piece of a batch.
type InputPartition interface {
	// Read emits the partition's records in order. emit takes over the
	// reference to each record. Read stops at the first error emit returns.
	Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error
}

// AvailableNow is implemented by sources that support the AvailableNow
// trigger: PrepareAvailableNow fixes the current end of the data, and later
// LatestOffset calls never go past it.
type AvailableNow interface {
	PrepareAvailableNow(ctx context.Context) error
}

// NotReplayable is implemented by sources that cannot re-read a range
// after a restart (the socket source): a checkpoint cannot make them exactly
// once. A query with a checkpoint logs the reason as a warning at Start,
// as Spark warns of its socket source.
type NotReplayable interface {
	NotReplayable() string
}

// Describer is implemented by sources that report extra metrics in the
// sources[] entries of progress events (Kafka lag, files pending…).
type Describer interface {
	Metrics() map[string]string
}

// ErrBadRecord marks errors caused by malformed input records. Such errors
// name the file/partition and line/offset of the record.
var ErrBadRecord = errors.New("malformed record")

// BadRecord describes one malformed record routed to a dead-letter sink.
type BadRecord struct {
	Source   string // file name or topic/partition
	Position int64  // 1-based line number or record offset
	Raw      []byte // the record as read
	Err      error  // why it could not be parsed
}

// DeadLetters receives malformed records when a source is configured to
// route them instead of failing. Implementations must be safe for concurrent
// use by the partitions of one batch.
type DeadLetters interface {
	Add(r BadRecord)
}

// DeadLetterSetter is implemented by sources that can route malformed
// records instead of failing. A query configured with a dead-letter sink
// calls SetDeadLetters before its first trigger.
type DeadLetterSetter interface {
	SetDeadLetters(d DeadLetters)
}

// Table is a bounded, static input — a dimension table for stream-static
// joins. ReadAll returns its whole content; a query reads it once at start,
// and again whenever Version changes if the table implements Versioned.
type Table interface {
	Name() string
	Schema() *arrow.Schema
	ReadAll(ctx context.Context, mem memory.Allocator) ([]arrow.RecordBatch, error)
}

// Versioned is implemented by tables that change (a Delta table): Version
// identifies the content ReadAll returns.
type Versioned interface {
	Version(ctx context.Context) (int64, error)
}

// ColumnPruner is implemented by sources that can skip producing columns a
// query never reads. Before the first trigger the query calls PruneColumns
// with the names of the columns it may read; the source may then fill the
// others with nulls (the schema stays the same, so column positions hold).
type ColumnPruner interface {
	PruneColumns(needed []string)
}

// Comparison is a column compared with a literal, Col Op Value: one
// conjunct of a query's filter. Op is "=", "<", "<=", ">" or ">="; Value is
// an int64 (the column is an int32 or int64 column) or a string (a string
// column). A null column value satisfies no comparison.
type Comparison struct {
	Col   string
	Op    string
	Value any
}

// FilterPusher is implemented by sources that can skip input no row of
// which satisfies a filter (a Parquet row group whose statistics rule it
// out). Before the first trigger the query calls PushFilters with the
// conjuncts of a filter that reads the source's rows directly (no
// watermark or projection between them); a row the source still produces
// goes through the whole filter as before, so skipping changes no result,
// only which rows are read (and counted as input).
type FilterPusher interface {
	PushFilters(conds []Comparison)
}

// RowFilter is the part of a query's filter that reads one column of a
// source's rows (the AND of its conjuncts that read only that column):
// Keep appends to out[:0] the indices of vals, values of column Col of the
// source's schema, for which it is TRUE, ascending. Keep is deterministic,
// has no effects and is safe for concurrent use; an error from it means
// "not known", and the source keeps the rows in question.
type RowFilter struct {
	Col  string
	Keep func(mem memory.Allocator, vals arrow.Array, out []int32) ([]int32, error)
}

// RowFilterPusher is implemented by sources that can drop rows while they
// decode them, evaluating a filter on a column's dictionary rather than on
// every row, and decoding the other columns only at the rows kept. Before
// the first trigger the query calls PushRowFilters under the same
// conditions as PushFilters. A source may drop any row a filter rejects
// (or none); the rows it produces still go through the whole filter. A
// batch it dropped rows from is emitted as a Thinned batch.
type RowFilterPusher interface {
	PushRowFilters(fs []RowFilter)
}

// Thinned is a batch from which a source dropped rows a pushed row filter
// rejects: Read counts the rows it was read from, the dropped ones too.
// Progress counts those as input (numInputRows), as Spark counts the rows
// its Parquet scan reads, before the filter.
type Thinned struct {
	arrow.RecordBatch
	Read int64
}

// Backlogger is implemented by sources that know how much input was
// available beyond the end offset their last LatestOffset returned: what a
// read limit left for later triggers. A backlog that keeps growing means
// the query reads less than arrives; the query warns of it and reports it
// in progress (sources[].backlog). The unit is the source's: "rows"
// (records, Kafka offsets), "files", or "ms" (Kinesis: how far behind
// its tip the reading is).
type Backlogger interface {
	Backlog() (n int64, unit string)
}
