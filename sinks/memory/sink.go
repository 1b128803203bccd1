package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sinks"
)

// Sink is an in-memory result table. Create it with New.
type Sink struct {
	name string
	keys []string

	mu      sync.RWMutex
	schema  *arrow.Schema
	rows    [][]any
	index   map[string]int // key encoding → row, Update with keys only
	last    int64          // last committed batch id, -1 before the first
	batches int64          // committed batches
}

var _ sinks.Sink = (*Sink)(nil)

// Options configure a Sink; the zero value gives the defaults.
type Options struct {
	// Keys are the key columns Update mode upserts by (none: Update
	// appends the changed rows).
	Keys []string
	// Name is reported in progress events (default "MemorySink").
	Name string
}

// New returns an empty table.
func New(opts Options) (*Sink, error) {
	s := &Sink{name: opts.Name, keys: slices.Clone(opts.Keys), last: -1}
	if s.name == "" {
		s.name = "MemorySink"
	}
	seen := map[string]bool{}
	for _, k := range s.keys {
		if seen[k] {
			return nil, fmt.Errorf("memory sink: key column %q is listed twice", k)
		}
		seen[k] = true
	}
	return s, nil
}

// Name describes the sink in progress events.
func (s *Sink) Name() string {
	if len(s.keys) > 0 {
		return fmt.Sprintf("%s[keys=%s]", s.name, strings.Join(s.keys, ","))
	}
	return s.name
}

// Begin starts batch info.BatchID, or returns a skipping writer if that
// batch is already committed.
func (s *Sink) Begin(ctx context.Context, info sinks.BatchInfo) (sinks.BatchWriter, error) {
	s.mu.RLock()
	skip := info.BatchID <= s.last
	s.mu.RUnlock()
	w := &writer{sink: s, info: info, skip: skip}
	if !skip && info.Mode == sinks.Update && len(s.keys) > 0 {
		if info.Schema == nil {
			return nil, fmt.Errorf("memory sink: batch %d: Update with keys needs BatchInfo.Schema", info.BatchID)
		}
		for _, k := range s.keys {
			i, err := columnar.FieldIndex(info.Schema, k)
			if err != nil {
				return nil, fmt.Errorf("memory sink: batch %d: key %w", info.BatchID, err)
			}
			w.keyCols = append(w.keyCols, i)
		}
	}
	return w, nil
}

// Close drops the table.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows, s.index = nil, nil
	return nil
}

// Rows returns the table's rows. The rows are shared with the sink and must
// not be modified.
func (s *Sink) Rows() [][]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.rows)
}

// Sorted returns the table's rows sorted with CompareRows: an order that
// does not depend on how the query split its work, for tests.
func (s *Sink) Sorted() [][]any {
	rows := s.Rows()
	slices.SortStableFunc(rows, CompareRows)
	return rows
}

// NumRows returns the number of rows in the table.
func (s *Sink) NumRows() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.rows)
}

// LastBatchID returns the id of the last committed batch, or -1.
func (s *Sink) LastBatchID() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.last
}

// Batches returns the number of committed batches.
func (s *Sink) Batches() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.batches
}

// Schema returns the schema of the last committed batch, or nil.
func (s *Sink) Schema() *arrow.Schema {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.schema
}

// Records rebuilds the table as one record allocated from mem (the caller
// releases it). It returns nil and no error for a table that has no schema
// yet.
func (s *Sink) Records(mem memory.Allocator) ([]arrow.RecordBatch, error) {
	s.mu.RLock()
	schema, rows := s.schema, slices.Clone(s.rows)
	s.mu.RUnlock()
	if schema == nil {
		return nil, nil
	}
	rec, err := buildRecord(mem, schema, rows)
	if err != nil {
		return nil, err
	}
	return []arrow.RecordBatch{rec}, nil
}

type writer struct {
	sink    *Sink
	info    sinks.BatchInfo
	skip    bool
	keyCols []int
	rows    [][]any
	keys    []string
	keyBuf  [][]byte
}

func (w *writer) Skip() bool { return w.skip }

// Write copies rec's rows into the pending batch.
func (w *writer) Write(ctx context.Context, rec arrow.RecordBatch) error {
	if w.skip {
		return nil
	}
	if w.info.Schema == nil {
		w.info.Schema = rec.Schema()
	}
	n := int(rec.NumRows())
	cols := rec.Columns()
	for i := 0; i < n; i++ {
		row := make([]any, len(cols))
		for c, col := range cols {
			row[c] = Value(col, i)
		}
		w.rows = append(w.rows, row)
	}
	if w.keyCols != nil {
		keyArrs := make([]arrow.Array, len(w.keyCols))
		for i, c := range w.keyCols {
			if c >= len(cols) {
				return fmt.Errorf("memory sink: batch %d: record has %d columns, key column %d missing", w.info.BatchID, len(cols), c)
			}
			keyArrs[i] = cols[c]
		}
		for i := range w.keyBuf {
			w.keyBuf[i] = w.keyBuf[i][:0]
		}
		var err error
		if w.keyBuf, err = columnar.EncodeKeys(w.keyBuf, keyArrs, nil); err != nil {
			return fmt.Errorf("memory sink: batch %d: %w", w.info.BatchID, err)
		}
		for _, k := range w.keyBuf[:n] {
			w.keys = append(w.keys, string(k))
		}
	}
	return nil
}

// Commit applies the pending rows by the batch's output mode.
func (w *writer) Commit(ctx context.Context) error {
	if w.skip {
		return nil
	}
	s := w.sink
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.info.BatchID <= s.last {
		return nil // committed meanwhile by another writer of the same batch
	}
	switch {
	case w.info.Mode == sinks.Complete:
		s.rows, s.index = w.rows, nil
	case w.info.Mode == sinks.Update && w.keyCols != nil:
		if s.index == nil {
			s.index = make(map[string]int, len(w.rows))
		}
		for i, row := range w.rows {
			if at, ok := s.index[w.keys[i]]; ok {
				s.rows[at] = row
				continue
			}
			s.index[w.keys[i]] = len(s.rows)
			s.rows = append(s.rows, row)
		}
	default:
		s.rows = append(s.rows, w.rows...)
	}
	if w.info.Schema != nil {
		s.schema = w.info.Schema
	}
	s.last = w.info.BatchID
	s.batches++
	w.rows, w.keys = nil, nil
	return nil
}

func (w *writer) Abort() { w.rows, w.keys = nil, nil }
