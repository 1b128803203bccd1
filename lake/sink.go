package lake

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks"
)

// SinkOptions configure a streaming Delta sink; the zero value gives the
// defaults.
type SinkOptions struct {
	// KeyColumns are the merge keys of Update mode (required for it).
	KeyColumns []string
	// Table are the options of the table handle: the partition columns if
	// the sink creates the table, file size, checkpoint interval,
	// allocator.
	Table Options
}

// Sink is an exactly-once streaming sink into a Delta table
// (sinks.Sink). Each batch with rows is one commit carrying txn{appId:
// query id, version: batch id}; a batch whose id is at or below the
// table's recorded txn version for the query is skipped, and a batch
// without rows commits nothing (sink_empty.go). Append mode appends, Complete mode
// replaces the table in one commit, Update mode merge-upserts on
// KeyColumns. The table is created from the first batch's schema if absent.
type Sink struct {
	path string
	opts SinkOptions

	mu      sync.Mutex
	table   *Table
	commits int64
	skipped int64
	// emptyBatches counts batches without rows, which commit nothing.
	emptyBatches int64
	lastVer      int64
}

var (
	_ sinks.Sink        = (*Sink)(nil)
	_ sinks.ModeChecker = (*Sink)(nil)
	_ sinks.Metricer    = (*Sink)(nil)
)

// NewSink returns a sink writing to the Delta table at path.
func NewSink(path string, opts SinkOptions) (*Sink, error) {
	if path == "" {
		return nil, fmt.Errorf("lake: NewSink needs the table's path")
	}
	seen := map[string]bool{}
	for _, k := range opts.KeyColumns {
		if seen[k] {
			return nil, fmt.Errorf("lake: sink %s: key column %q is listed twice", path, k)
		}
		seen[k] = true
	}
	return &Sink{path: path, opts: opts, lastVer: -1}, nil
}

// Name describes the sink.
func (s *Sink) Name() string { return "DeltaSink[" + s.path + "]" }

// CheckMode accepts Append and Complete always, Update when key columns are
// configured (Update merges rows into the table by key).
func (s *Sink) CheckMode(m sinks.OutputMode) error {
	if m == sinks.Update && len(s.opts.KeyColumns) == 0 {
		return fmt.Errorf("lake: Delta sink %s: Update output mode upserts each changed row by key: set lake.SinkOptions.KeyColumns to the columns that identify a result row (the grouping keys, window included), or use Append or Complete", s.path)
	}
	return nil
}

// Metrics reports commit counts and the last committed table version.
func (s *Sink) Metrics() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]string{"commits": strconv.FormatInt(s.commits, 10),
		"skippedBatches": strconv.FormatInt(s.skipped, 10), "emptyBatches": strconv.FormatInt(s.emptyBatches, 10),
		"tableVersion": strconv.FormatInt(s.lastVer, 10)}
}

// Close releases nothing; a Sink holds no open files between batches.
func (s *Sink) Close() error { return nil }

func (s *Sink) tableFor(ctx context.Context, schema *arrow.Schema) (*Table, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.table != nil {
		return s.table, nil
	}
	t, err := OpenOrCreate(ctx, s.path, schema, s.tableOptions())
	if err != nil {
		return nil, err
	}
	s.table = t
	return t, nil
}

// Begin starts batch info.BatchID.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	if err := s.CheckMode(info.Mode); err != nil {
		return nil, err
	}
	if info.QueryID == "" {
		return nil, fmt.Errorf("lake: sink %s: batch %d has no query id for its txn action", s.path, info.BatchID)
	}
	t, err := s.tableFor(ctx, info.Schema)
	if err != nil {
		return nil, fmt.Errorf("lake: sink batch %d: %w", info.BatchID, err)
	}
	done, err := batchDone(t, info)
	if err != nil {
		return nil, fmt.Errorf("lake: sink batch %d: %w", info.BatchID, err)
	}
	if done {
		s.mu.Lock()
		s.skipped++
		s.mu.Unlock()
	}
	return &sinkBatch{sink: s, table: t, info: info, skip: done}, nil
}

// batchDone reports whether the table already holds the batch.
func batchDone(t *Table, info sinks.BatchInfo) (bool, error) {
	snap, err := t.Snapshot()
	if err != nil {
		return false, err
	}
	v, ok := snap.TxnVersion(info.QueryID)
	return ok && v >= info.BatchID, nil
}

type sinkBatch struct {
	sink  *Sink
	table *Table
	info  sinks.BatchInfo
	skip  bool
	recs  []arrow.RecordBatch
}

func (b *sinkBatch) Skip() bool { return b.skip }

// Write buffers rec until Commit.
func (b *sinkBatch) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if b.skip {
		return nil
	}
	rec.Retain()
	b.recs = append(b.recs, rec)
	return nil
}

// Commit writes the data files and commits them with the batch's txn. A
// batch without rows commits nothing (see sink_empty.go).
func (b *sinkBatch) Commit(ctx context.Context) error {
	defer b.Abort()
	if b.skip {
		return nil
	}
	if empty, err := b.skipEmpty(); err != nil || empty {
		return err
	}
	now := b.table.now().UnixMilli()
	txn := &Txn{AppID: b.info.QueryID, Version: b.info.BatchID, LastUpdated: &now}
	var v int64
	var err error
	switch b.info.Mode {
	case sinks.Complete:
		v, err = b.table.overwrite(ctx, b.recs, txn)
	case sinks.Update:
		v, err = b.table.merge(ctx, b.recs, b.sink.opts.KeyColumns, txn)
	default:
		v, err = b.table.append(ctx, b.recs, txn)
	}
	if err != nil {
		if errors.Is(err, ErrConcurrentModification) {
			// Another instance of the query may have committed this batch.
			if done, derr := batchDone(b.table, b.info); derr == nil && done {
				return nil
			}
		}
		return fmt.Errorf("lake: sink %s batch %d: %w", b.sink.path, b.info.BatchID, err)
	}
	b.sink.mu.Lock()
	b.sink.commits++
	b.sink.lastVer = v
	b.sink.mu.Unlock()
	return nil
}

// skipEmpty reports whether the batch writes no rows and so makes no
// commit: Append and Update modes without rows, Complete mode without rows
// on a table that holds none. It notes the skipped batch for Bind.
func (b *sinkBatch) skipEmpty() (bool, error) {
	for _, r := range b.recs {
		if r.NumRows() > 0 {
			return false, nil
		}
	}
	snap, err := b.table.Snapshot()
	if err != nil {
		return false, fmt.Errorf("lake: sink %s batch %d: %w", b.sink.path, b.info.BatchID, err)
	}
	if b.info.Mode == sinks.Complete && len(snap.files) > 0 {
		return false, nil // the batch empties the table
	}
	v, ok := snap.TxnVersion(b.info.QueryID)
	if !ok {
		v = -1
	}
	if err := noteSkipped(context.Background(), b.table.loc, b.info.QueryID, v, b.info.BatchID); err != nil {
		return false, err
	}
	b.sink.mu.Lock()
	b.sink.emptyBatches++
	b.sink.mu.Unlock()
	return true, nil
}

// Abort drops the buffered records. Nothing was written to the table.
func (b *sinkBatch) Abort() {
	columnar.ReleaseAll(b.recs)
	b.recs = nil
}
