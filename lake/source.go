package lake

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sources"
)

// SourceOptions configure a Delta streaming source.
type SourceOptions struct {
	// StartingVersion, if set (>= 0), streams the files the commits from
	// that version on add, instead of the latest snapshot followed by later
	// commits; 0 streams the table from its creation. Metadata changes in
	// those commits follow Spark's rules (source_schema.go).
	StartingVersion *int64
	// SkipChangeCommits skips commits that remove data (overwrite, merge,
	// delete, and deletes or updates with deletion vectors) instead of
	// failing with ErrNonAppendCommit, as Spark's skipChangeCommits does.
	SkipChangeCommits bool
}

// SourceOffset is the position of a Delta source, in the layout of
// Spark's DeltaSourceOffset: the last file processed is file Index of
// version ReservoirVersion (of the snapshot at that version when
// IsStartingVersion). Index -1 means none of that version yet, and
// math.MaxInt64 all of it.
type SourceOffset struct {
	SourceVersion     int    `json:"sourceVersion"`
	ReservoirID       string `json:"reservoirId"`
	ReservoirVersion  int64  `json:"reservoirVersion"`
	Index             int64  `json:"index"`
	IsStartingVersion bool   `json:"isStartingVersion"`
}

const endIndex = math.MaxInt64

// Source streams a Delta table: the files of a starting snapshot, then the
// files that later commits add, as micro-batches (sources.Source). Files
// are read with their deletion vectors applied, as Spark's Delta source
// reads them.
type Source struct {
	loc    *location
	opts   SourceOptions
	schema *arrow.Schema
	parts  []string
	id     string
	opened int64 // the version schema and parts are from
}

var _ sources.Source = (*Source)(nil)

// NewSource opens the table at path as a streaming source.
func NewSource(path string, opts SourceOptions) (*Source, error) {
	s, err := LoadSnapshot(path, -1)
	if err != nil {
		return nil, err
	}
	return &Source{loc: s.loc, opts: opts, schema: s.schema, parts: s.metadata.PartitionColumns, id: s.metadata.ID, opened: s.version}, nil
}

// Name describes the source.
func (s *Source) Name() string { return "DeltaSource[" + s.loc.root + "]" }

// Schema is the table schema at open.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// Close releases nothing.
func (s *Source) Close() error { return nil }

// Commit is a no-op: the table keeps every version the retention allows.
func (s *Source) Commit(end sources.Offset) error { return nil }

func (s *Source) encode(o SourceOffset) sources.Offset {
	o.SourceVersion, o.ReservoirID = 1, s.id
	b, _ := json.Marshal(o)
	return sources.Offset(b)
}

func decodeOffset(o sources.Offset) (SourceOffset, error) {
	var so SourceOffset
	if err := json.Unmarshal([]byte(o), &so); err != nil {
		return so, fmt.Errorf("lake: bad Delta source offset %q: %w", o, err)
	}
	// Index is -1 (before the version's first file), a file's place, or
	// endIndex (after its last); anything else, or a negative version,
	// comes from a corrupt checkpoint and would index outside the files.
	if so.ReservoirVersion < 0 || so.Index < -1 {
		return so, fmt.Errorf("lake: bad Delta source offset %q: negative version or index", o)
	}
	return so, nil
}

// InitialOffset is before the first file of the starting snapshot (or
// version).
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	if s.opts.StartingVersion != nil && *s.opts.StartingVersion >= 0 {
		return s.encode(SourceOffset{ReservoirVersion: *s.opts.StartingVersion, Index: -1}), nil
	}
	snap, err := loadSnapshot(s.loc, -1)
	if err != nil {
		return "", err
	}
	return s.encode(SourceOffset{ReservoirVersion: snap.version, Index: -1, IsStartingVersion: true}), nil
}

// LatestOffset returns the offset of the last file of the next batch,
// bounded by limit.MaxFiles and (by file stats) limit.MaxRows.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return "", err
	}
	end, _, err := s.walk(so, nil, limit)
	if err != nil {
		return "", err
	}
	if end == so {
		return start, nil
	}
	return s.encode(end), nil
}

type indexedFile struct {
	at   SourceOffset
	file AddFile
}

// walk lists the data files after start, up to stop (inclusive) or the
// limit, and returns the offset reached.
func (s *Source) walk(start SourceOffset, stop *SourceOffset, limit sources.ReadLimit) (SourceOffset, []indexedFile, error) {
	// Only the latest version is needed: list from start's on.
	lf, err := listLogFrom(s.loc, start.ReservoirVersion)
	if err != nil {
		return start, nil, err
	}
	latest := lf.latest()
	var out []indexedFile
	var rows int64
	pos := start
	full := func(f *AddFile) bool {
		if limit.MaxFiles > 0 && len(out) >= limit.MaxFiles {
			return true
		}
		if limit.MaxRows > 0 && len(out) > 0 {
			if n, ok := f.NumRecords(); ok && rows+n > limit.MaxRows {
				return true
			}
		}
		return false
	}
	take := func(at SourceOffset, f AddFile) bool {
		if stop != nil && !offsetLE(at, *stop) {
			return false
		}
		if full(&f) {
			return false
		}
		out = append(out, indexedFile{at, f})
		if n, ok := f.NumRecords(); ok {
			rows += n
		}
		pos = at
		return true
	}
	v := start.ReservoirVersion
	if start.IsStartingVersion && start.Index != endIndex {
		snap, err := loadSnapshot(s.loc, v)
		if err != nil {
			return start, nil, err
		}
		files := snap.Files()
		for i := start.Index + 1; i < int64(len(files)); i++ {
			if !take(SourceOffset{ReservoirVersion: v, Index: i, IsStartingVersion: true}, files[i]) {
				return pos, out, nil
			}
		}
		pos = SourceOffset{ReservoirVersion: v, Index: endIndex, IsStartingVersion: true}
		if stop != nil && !offsetLE(pos, *stop) {
			return pos, out, nil
		}
		v++
	} else if start.Index == endIndex {
		v++
	}
	for ; v <= latest; v++ {
		acts, err := readCommit(s.loc, v)
		if err != nil {
			return pos, out, err
		}
		var adds []AddFile
		change := false
		for _, a := range acts {
			switch {
			case a.MetaData != nil:
				// Version 0 (the table's creation), property changes and
				// compatible schema changes pass, as in Spark.
				if err := checkSourceSchema(s.loc.root, s.schema, s.parts, s.opened, v, a.MetaData); err != nil {
					return pos, out, err
				}
			case a.Protocol != nil:
				if err := checkRead(a.Protocol, nil); err != nil {
					return pos, out, err
				}
			case a.Remove != nil && a.Remove.DataChange:
				change = true
			case a.Add != nil && a.Add.DataChange:
				adds = append(adds, *a.Add)
			}
		}
		if change {
			if !s.opts.SkipChangeCommits {
				return pos, out, fmt.Errorf("%w: version %d of %s removes data (set SkipChangeCommits to ignore such commits)", ErrNonAppendCommit, v, s.loc.root)
			}
			adds = nil
		}
		from := int64(0)
		if v == start.ReservoirVersion && !start.IsStartingVersion {
			from = start.Index + 1
		}
		for i := from; i < int64(len(adds)); i++ {
			if !take(SourceOffset{ReservoirVersion: v, Index: i}, adds[i]) {
				return pos, out, nil
			}
		}
		end := SourceOffset{ReservoirVersion: v, Index: endIndex}
		if stop != nil && !offsetLE(end, *stop) {
			return pos, out, nil
		}
		pos = end
	}
	return pos, out, nil
}

// offsetLE orders offsets: a starting snapshot comes before the commits of
// later versions.
func offsetLE(a, b SourceOffset) bool {
	if a.ReservoirVersion != b.ReservoirVersion {
		return a.ReservoirVersion < b.ReservoirVersion
	}
	if a.IsStartingVersion != b.IsStartingVersion {
		return a.IsStartingVersion
	}
	return a.Index <= b.Index
}

// PlanPartitions returns one partition per data file in (start, end].
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	so, err := decodeOffset(start)
	if err != nil {
		return nil, err
	}
	eo, err := decodeOffset(end)
	if err != nil {
		return nil, err
	}
	_, files, err := s.walk(so, &eo, sources.ReadLimit{})
	if err != nil {
		return nil, err
	}
	sort.SliceStable(files, func(i, j int) bool { return offsetLE(files[i].at, files[j].at) && files[i].at != files[j].at })
	out := make([]sources.InputPartition, len(files))
	for i, f := range files {
		out[i] = &sourcePartition{src: s, file: f.file}
	}
	return out, nil
}

type sourcePartition struct {
	src  *Source
	file AddFile
}

// Read emits the rows of one data file.
func (p *sourcePartition) Read(ctx context.Context, mem memory.Allocator, emit func(arrow.RecordBatch) error) error {
	snap := &Snapshot{loc: p.src.loc, schema: p.src.schema, metadata: &Metadata{PartitionColumns: p.src.parts}}
	return snap.readFile(ctx, mem, &p.file, emit)
}
