package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

// Source is an in-memory source. Create it with New.
type Source struct {
	schema *arrow.Schema
	mem    memory.Allocator
	name   string

	mu        sync.Mutex
	recs      []arrow.RecordBatch // nil once committed or closed
	rows      []int64             // rows[i] = rows of recs[i]
	committed int                 // batches released by Commit
	capped    bool                // PrepareAvailableNow was called
	capN      int
	closed    bool
	// lastEnd is the end the last LatestOffset returned (Backlog).
	lastEnd int
}

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
	_ sources.Backlogger   = (*Source)(nil)
)

// Options configure a Source; the zero value gives the defaults.
type Options struct {
	// Allocator builds the records of AddRows (default
	// memory.DefaultAllocator).
	Allocator memory.Allocator
	// Name is reported in progress events (default "MemorySource").
	Name string
}

// New returns an empty source whose records have the given schema.
func New(schema *arrow.Schema, opts Options) (*Source, error) {
	if schema == nil {
		return nil, fmt.Errorf("memory source: New needs a schema")
	}
	s := &Source{schema: schema, mem: opts.Allocator, name: opts.Name}
	if s.mem == nil {
		s.mem = memory.DefaultAllocator
	}
	if s.name == "" {
		s.name = "MemorySource"
	}
	return s, nil
}

type offset struct {
	Batches int `json:"batches"`
}

func encodeOffset(n int) sources.Offset {
	return sources.Offset(fmt.Sprintf(`{"batches":%d}`, n))
}

func decodeOffset(o sources.Offset) (int, error) {
	var d offset
	if err := json.Unmarshal([]byte(o), &d); err != nil {
		return 0, fmt.Errorf("memory source: bad offset %q: %w", string(o), err)
	}
	if d.Batches < 0 {
		return 0, fmt.Errorf("memory source: bad offset %q: negative batch count", string(o))
	}
	return d.Batches, nil
}

// AddBatch appends rec as the next batch. The source retains rec; the
// caller keeps its own reference. It returns the offset that includes rec.
func (s *Source) AddBatch(rec arrow.RecordBatch) (sources.Offset, error) {
	if !rec.Schema().Equal(s.schema) {
		return "", fmt.Errorf("memory source: record schema %s does not match the source schema %s", rec.Schema(), s.schema)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", fmt.Errorf("memory source: AddBatch after Close")
	}
	rec.Retain()
	s.recs = append(s.recs, rec)
	s.rows = append(s.rows, rec.NumRows())
	return encodeOffset(len(s.recs)), nil
}

// AddRows builds one batch from rows of Go values (one value per schema
// field, nil for null) and appends it. See BuildRecord for the accepted Go
// types.
func (s *Source) AddRows(rows ...[]any) (sources.Offset, error) {
	rec, err := BuildRecord(s.mem, s.schema, rows)
	if err != nil {
		return "", err
	}
	defer rec.Release()
	return s.AddBatch(rec)
}

// Name describes the source in progress events.
func (s *Source) Name() string { return s.name }

// Schema returns the schema of every record.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// InitialOffset returns {"batches":0}.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	return encodeOffset(0), nil
}

// LatestOffset returns the offset after every batch added so far, bounded
// as the package documentation describes.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	from, err := decodeOffset(start)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	end := len(s.recs)
	if s.capped {
		end = min(end, s.capN)
	}
	if from >= end {
		s.lastEnd = from
		return start, nil
	}
	if limit.MaxRows > 0 {
		var n int64
		to := from
		for to < end && (to == from || n+s.rows[to] <= limit.MaxRows) {
			n += s.rows[to]
			to++
		}
		end = to
	}
	s.lastEnd = end
	return encodeOffset(end), nil
}

// Backlog returns the rows added after the end the last LatestOffset
// returned (up to the AvailableNow end): what its read limit left.
func (s *Source) Backlog() (int64, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	end := len(s.rows)
	if s.capped {
		end = min(end, s.capN)
	}
	var n int64
	for i := s.lastEnd; i < end; i++ {
		n += s.rows[i]
	}
	return n, "rows"
}

// PrepareAvailableNow fixes the end of the stream at the batches added so far.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.capped = true
	s.capN = len(s.recs)
	return nil
}

// PlanPartitions returns one partition holding the batches of (start, end].
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	from, err := decodeOffset(start)
	if err != nil {
		return nil, err
	}
	to, err := decodeOffset(end)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if to < from || to > len(s.recs) {
		return nil, fmt.Errorf("memory source: cannot plan (%s, %s]: %d batches added", start, end, len(s.recs))
	}
	if from < s.committed {
		return nil, fmt.Errorf("memory source: cannot plan (%s, %s]: batches up to %d were committed and released", start, end, s.committed)
	}
	if from == to {
		return nil, nil
	}
	return []sources.InputPartition{&partition{src: s, from: from, to: to}}, nil
}

// Commit releases the batches up to end.
func (s *Source) Commit(end sources.Offset) error {
	to, err := decodeOffset(end)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	to = min(to, len(s.recs))
	for i := s.committed; i < to; i++ {
		s.recs[i].Release()
		s.recs[i] = nil
	}
	s.committed = max(s.committed, to)
	return nil
}

// Close releases every record the source still holds.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.recs {
		if r != nil {
			r.Release()
			s.recs[i] = nil
		}
	}
	s.committed = len(s.recs)
	s.closed = true
	return nil
}

// partition is the batches [from, to) of its source. It takes its
// references when read, so it can be read any number of times until Commit
// passes it.
type partition struct {
	src      *Source
	from, to int
}

// Read emits the records in the order they were added.
func (p *partition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	s := p.src
	s.mu.Lock()
	if p.from < s.committed {
		s.mu.Unlock()
		return fmt.Errorf("memory source: batches %d..%d were committed or closed and can no longer be read", p.from+1, p.to)
	}
	recs := make([]arrow.RecordBatch, p.to-p.from)
	copy(recs, s.recs[p.from:p.to])
	for _, r := range recs {
		r.Retain() // handed to emit, or released below
	}
	s.mu.Unlock()
	for i, r := range recs {
		if err := ctx.Err(); err != nil {
			columnar.ReleaseAll(recs[i:])
			return err
		}
		if err := emit(r); err != nil {
			columnar.ReleaseAll(recs[i+1:])
			return err
		}
	}
	return nil
}
