package lake

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Options configure a Table handle; the zero value gives the defaults.
type Options struct {
	// PartitionBy names the partition columns of a table Create makes.
	PartitionBy []string
	// TargetFileSize is the size at which a data file is closed and a new
	// one started (default 128 MiB).
	TargetFileSize int64
	// CheckpointInterval writes a log checkpoint every N commits (default
	// 10; negative disables).
	CheckpointInterval int
	// Configuration is metaData.configuration of a table Create makes.
	Configuration map[string]string
	// Allocator is used for records built while writing and reading.
	Allocator memory.Allocator
}

// Table is a handle on a Delta table at a local path or in object storage
// (s3://bucket/prefix). Its methods are safe
// for use by one goroutine at a time; several handles and processes may
// write one table concurrently (optimistic concurrency).
type Table struct {
	loc  *location
	opts Options
	now  func() time.Time

	mu   sync.Mutex
	kept *Snapshot // the latest snapshot loaded (snapshot_cache.go)
}

func newTable(path string, opts Options) (*Table, error) {
	loc, err := openLocation(path)
	if err != nil {
		return nil, err
	}
	t := &Table{loc: loc, now: time.Now, opts: opts}
	if t.opts.Allocator == nil {
		t.opts.Allocator = memory.DefaultAllocator
	}
	if t.opts.TargetFileSize <= 0 {
		t.opts.TargetFileSize = 128 << 20
	}
	if t.opts.CheckpointInterval == 0 {
		t.opts.CheckpointInterval = 10
	}
	return t, nil
}

// Create makes a new table at path with the given Arrow schema (commit 0:
// protocol and metaData). It fails with ErrTableExists if path already
// holds one.
func Create(ctx context.Context, path string, schema *arrow.Schema, opts Options) (*Table, error) {
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	schema = normalizeSchema(schema)
	ss, err := SchemaString(schema)
	if err != nil {
		return nil, err
	}
	for _, c := range t.opts.PartitionBy {
		idx := schema.FieldIndices(c)
		if len(idx) != 1 {
			return nil, fmt.Errorf("lake: partition column %q is not in the schema %v", c, schema)
		}
		switch schema.Field(idx[0]).Type.(type) {
		case *arrow.StructType, *arrow.ListType, *arrow.MapType, *arrow.BinaryType:
			return nil, fmt.Errorf("lake: partition column %q has type %s, which cannot be a partition value", c, schema.Field(idx[0]).Type)
		}
	}
	if err := checkCreateProperties(t.opts.Configuration); err != nil {
		return nil, fmt.Errorf("lake: create %s: %w", t.root(), err)
	}
	if t.loc.local {
		// An empty log directory marks the table being created, as before.
		if err := os.MkdirAll(t.loc.file(logDir), 0o755); err != nil {
			return nil, fmt.Errorf("lake: create %s: %w", t.root(), err)
		}
	}
	now := t.now().UnixMilli()
	conf := StringMap{}
	for k, v := range t.opts.Configuration {
		conf[k] = v
	}
	parts := append([]string{}, t.opts.PartitionBy...)
	md := &Metadata{ID: newUUID(), Format: Format{Provider: "parquet", Options: StringMap{}},
		SchemaString: ss, PartitionColumns: parts, Configuration: conf, CreatedTime: &now}
	op := &operation{name: "CREATE TABLE", params: map[string]any{"partitionBy": jsonList(parts)},
		protocol: requiredProtocol(schema), metadata: md}
	if _, err := t.commit(ctx, -1, op); err != nil {
		if errors.Is(err, ErrConcurrentModification) {
			return nil, fmt.Errorf("%w: %s", ErrTableExists, t.root())
		}
		return nil, err
	}
	return t, nil
}

// Open returns a handle on the existing table at path.
func Open(path string, opts Options) (*Table, error) {
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	if _, err := t.latest(); err != nil {
		return nil, err
	}
	return t, nil
}

// OpenLog returns a handle on the table at path, checking only that it has
// a log: unlike Open it does not load the latest version, so a reader of an
// older version (time travel) is not stopped by a later version this
// package cannot read. Each read or write loads and checks what it uses.
func OpenLog(path string, opts Options) (*Table, error) {
	t, err := newTable(path, opts)
	if err != nil {
		return nil, err
	}
	lf, err := listLog(t.loc)
	if err != nil {
		return nil, err
	}
	if lf.latest() < 0 {
		return nil, fmt.Errorf("%w: %s has no commits", ErrNotATable, t.root())
	}
	return t, nil
}

// OpenOrCreate opens the table at path, creating it with schema if there is
// none yet.
func OpenOrCreate(ctx context.Context, path string, schema *arrow.Schema, opts Options) (*Table, error) {
	t, err := Open(path, opts)
	if errors.Is(err, ErrNotATable) {
		t, err = Create(ctx, path, schema, opts)
		if errors.Is(err, ErrTableExists) {
			return Open(path, opts)
		}
	}
	return t, err
}

// Path returns the table's location: the absolute path of a local table,
// the URL of one in object storage.
func (t *Table) Path() string { return t.loc.root }

func (t *Table) root() string { return t.loc.root }

// Snapshot returns the latest snapshot.
func (t *Table) Snapshot() (*Snapshot, error) { return t.latest() }

// SnapshotAt returns the snapshot at a version (time travel).
func (t *Table) SnapshotAt(version int64) (*Snapshot, error) { return loadSnapshot(t.loc, version) }

// SnapshotAtTime returns the snapshot of the newest commit whose timestamp
// is at or before ts.
func (t *Table) SnapshotAtTime(ts time.Time) (*Snapshot, error) {
	hist, err := t.History()
	if err != nil {
		return nil, err
	}
	best := int64(-1)
	for _, h := range hist {
		if h.Timestamp <= ts.UnixMilli() && h.Version > best {
			best = h.Version
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("%w: no commit of %s at or before %s", ErrVersionNotFound, t.root(), ts.UTC().Format(time.RFC3339Nano))
	}
	return loadSnapshot(t.loc, best)
}

// Files returns the data files of the latest snapshot.
func (t *Table) Files() ([]AddFile, error) {
	s, err := t.Snapshot()
	if err != nil {
		return nil, err
	}
	return s.Files(), nil
}

// HistoryEntry is the commitInfo of one version.
type HistoryEntry struct {
	Version int64
	// Timestamp of the commit in milliseconds since the epoch.
	Timestamp int64
	// Info is nil when the commit has no commitInfo action.
	Info *CommitInfo
}

// History returns the commitInfo of every version still in the log, newest
// first.
func (t *Table) History() ([]HistoryEntry, error) {
	lf, err := listLog(t.loc)
	if err != nil {
		return nil, err
	}
	var out []HistoryEntry
	for _, v := range lf.commits {
		acts, err := readCommit(t.loc, v)
		if err != nil {
			return nil, err
		}
		h := HistoryEntry{Version: v, Timestamp: commitTimestamp(t.loc, v, acts)}
		for _, a := range acts {
			if a.CommitInfo != nil {
				h.Info = a.CommitInfo
			}
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version > out[j].Version })
	return out, nil
}

func jsonList(s []string) string {
	b := []byte{'['}
	for i, x := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, fmt.Sprintf("%q", x)...)
	}
	return string(append(b, ']'))
}

// Exists reports whether path (a local directory or s3://bucket/prefix)
// holds a table's log. A location that cannot be read is an error, not
// "no table": refused credentials must not look like an empty location.
func Exists(path string) (bool, error) {
	loc, err := openLocation(path)
	if err != nil {
		return false, err
	}
	_, err = listLog(loc)
	if errors.Is(err, ErrNotATable) {
		return false, nil
	}
	return err == nil, err
}
