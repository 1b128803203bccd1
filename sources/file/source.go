package file

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/pqread"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/storage"
)

// Source is the file source. Create it with New.
type Source struct {
	opts  Options
	store storage.Store // the S3 prefix of Options.Path; nil for a local directory

	badRecords atomic.Int64
	// rowsFiltered counts the rows row filters dropped (PushRowFilters)
	rowsFiltered atomic.Int64

	mu      sync.Mutex
	pending int                       // new files seen by the last LatestOffset beyond its limit
	capped  map[string]struct{}       // PrepareAvailableNow: only these files are read
	entries map[int64]map[string]bool // parsed file sink log entries (sinklog.go)

	// unread names the columns the query never reads (PruneColumns): a
	// Parquet file's are not decoded but filled with nulls. Set before the
	// first trigger, read-only after.
	unread map[string]bool
	// conds are the filter's conjuncts a Parquet file's row groups are
	// skipped by (PushFilters)
	conds []pqread.Cond
	// rowFilters are the filter's single-column parts a Parquet file's
	// rows are dropped by as they are decoded (PushRowFilters)
	rowFilters []pqread.RowFilter
}

var (
	_ sources.Source          = (*Source)(nil)
	_ sources.AvailableNow    = (*Source)(nil)
	_ sources.Describer       = (*Source)(nil)
	_ sources.ColumnPruner    = (*Source)(nil)
	_ sources.FilterPusher    = (*Source)(nil)
	_ sources.RowFilterPusher = (*Source)(nil)
)

// PushFilters implements sources.FilterPusher: Parquet files skip the row
// groups whose column statistics show that no row satisfies conds (JSON and
// CSV lines are read whole).
func (s *Source) PushFilters(conds []sources.Comparison) {
	s.conds = nil
	for _, c := range conds {
		s.conds = append(s.conds, pqread.Cond{Col: c.Col, Op: c.Op, Value: c.Value})
	}
}

// PushRowFilters implements sources.RowFilterPusher: a Parquet file's
// rows that a filter rejects are dropped as the file is decoded, when the
// filter's column is read page by page (pqread.FilterRows). The values
// are conformed to the schema's type before Keep sees them.
func (s *Source) PushRowFilters(fs []sources.RowFilter) {
	s.rowFilters = nil
	for _, f := range fs {
		i := s.opts.Schema.FieldIndices(f.Col)
		if len(i) != 1 {
			continue
		}
		typ, keep := s.opts.Schema.Field(i[0]).Type, f.Keep
		s.rowFilters = append(s.rowFilters, pqread.RowFilter{Col: f.Col,
			Keep: func(mem memory.Allocator, vals arrow.Array, out []int32) ([]int32, error) {
				c, err := kernels.Conform(mem, vals, typ)
				if err != nil {
					return out, err
				}
				defer c.Release()
				return keep(mem, c, out)
			}})
	}
}

// PruneColumns implements sources.ColumnPruner: the columns of Parquet
// files that are not in needed are left undecoded and emitted as nulls
// (the schema stays the same). JSON and CSV lines are parsed whole.
func (s *Source) PruneColumns(needed []string) {
	keep := map[string]bool{}
	for _, n := range needed {
		keep[n] = true
	}
	s.unread = map[string]bool{}
	for _, f := range s.opts.Schema.Fields() {
		if !keep[f.Name] {
			s.unread[f.Name] = true
		}
	}
}

// New returns a file source for opts. It does not touch the directory (for
// s3:// it sets up the client, which reads the AWS configuration).
func New(opts Options) (*Source, error) {
	o, err := opts.validate()
	if err != nil {
		return nil, err
	}
	s := &Source{opts: o}
	if storage.IsS3(o.Path) {
		if s.store, err = storage.Open(context.Background(), o.Path); err != nil {
			return nil, fmt.Errorf("file source: %w", err)
		}
	}
	return s, nil
}

// Name describes the source in progress events.
func (s *Source) Name() string {
	return fmt.Sprintf("FileSource[%s, format=%s]", s.opts.Path, s.opts.Format)
}

// Schema returns the schema of every emitted record.
func (s *Source) Schema() *arrow.Schema { return s.opts.Schema }

// BadRecords returns how many malformed records were routed to DeadLetters
// since the source was created.
func (s *Source) BadRecords() int64 { return s.badRecords.Load() }

// Metrics reports badRecords, filesPending (new files the last
// LatestOffset left for later triggers) and rowsFiltered (the rows of
// Parquet files a pushed row filter dropped as they were decoded, so far:
// input rows all the same).
func (s *Source) Metrics() map[string]string {
	s.mu.Lock()
	pending := s.pending
	s.mu.Unlock()
	return map[string]string{
		"badRecords":   strconv.FormatInt(s.BadRecords(), 10),
		"filesPending": strconv.Itoa(pending),
		"rowsFiltered": strconv.FormatInt(s.rowsFiltered.Load(), 10),
	}
}

func encodeOffset(files []string) sources.Offset {
	return encodeState(state{Files: files})
}

// decodeOffset returns the files of an offset: for v1, every file
// processed so far; for v2, the files of the batch that ends there.
func decodeOffset(o sources.Offset) ([]string, error) {
	st, err := decodeState(o)
	return st.Files, err
}

// plainName reports whether name can be a file list returns: no path
// separator or NUL, not hidden (which also excludes "." and ".."), and
// not empty.
func plainName(name string) bool {
	return name != "" && !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator) &&
		!strings.ContainsRune(name, 0) && !strings.HasPrefix(name, ".")
}

// bounded reports whether new offsets keep the bounded record of seen
// files (v2): always on S3, where listing is the only way to find files
// and a directory's history has no end; on local disk when MaxFileAge is
// set. An offset already in the bounded layout stays in it.
func (s *Source) bounded() bool { return s.store != nil || s.opts.MaxFileAge > 0 }

// maxFileAge is the age window of the bounded record.
func (s *Source) maxFileAge() time.Duration {
	if s.opts.MaxFileAge > 0 {
		return s.opts.MaxFileAge
	}
	return DefaultMaxFileAge
}

// InitialOffset returns {"files":[]}, or the empty bounded record.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	if s.bounded() {
		return encodeState(state{V: 2}), nil
	}
	return encodeOffset(nil), nil
}

type listed struct {
	name string
	mod  time.Time
}

// list returns the eligible files of the directory sorted by modification
// time, then name.
//
// When the directory is a file sink's output (it has the sink's log
// directory), the log is returned too, and only the files its committed
// entries name are to be read (committedOnly).
func (s *Source) list(ctx context.Context) ([]listed, *sinkLog, error) {
	if s.store != nil {
		return s.listStore(ctx)
	}
	entries, err := os.ReadDir(s.opts.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("file source: list directory %s: %w", s.opts.Path, err)
	}
	var log *sinkLog
	out := make([]listed, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if name == sinkLogDir && e.IsDir() {
			if log, err = s.listSinkLog(); err != nil {
				return nil, nil, err
			}
			continue
		}
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || !e.Type().IsRegular() {
			continue
		}
		if ok, _ := filepath.Match(s.opts.Pattern, name); !ok { // the pattern was validated in New
			continue
		}
		info, err := e.Info()
		if err != nil {
			if os.IsNotExist(err) { // removed since ReadDir
				continue
			}
			return nil, nil, fmt.Errorf("file source: stat %s: %w", filepath.Join(s.opts.Path, name), err)
		}
		out = append(out, listed{name: name, mod: info.ModTime()})
	}
	sortListed(out)
	return out, log, nil
}

// sortListed orders files by modification time, then name: the order in
// which they are read.
func sortListed(out []listed) {
	slices.SortFunc(out, func(a, b listed) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
}

// LatestOffset lists the directory and returns start plus the new files,
// bounded by MaxFilesPerTrigger and limit.MaxFiles.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	st, err := decodeState(start)
	if err != nil {
		return "", err
	}
	files, log, err := s.list(ctx)
	if err != nil {
		return "", err
	}
	bounded := st.bounded() || s.bounded()
	if bounded && !st.bounded() {
		st = st.upgrade(files)
	}
	var seen map[string]struct{}
	if !bounded {
		seen = make(map[string]struct{}, len(st.Files))
		for _, f := range st.Files {
			seen[f] = struct{}{}
		}
	}
	s.mu.Lock()
	capped := s.capped
	s.mu.Unlock()
	var fresh []listed
	for _, f := range files {
		if bounded {
			if !st.isNew(f) {
				continue
			}
		} else if _, ok := seen[f.name]; ok {
			continue
		}
		if capped != nil {
			if _, ok := capped[f.name]; !ok {
				continue
			}
		}
		fresh = append(fresh, f)
	}
	if log != nil {
		if fresh, err = s.committedOnly(ctx, fresh, log); err != nil {
			return "", err
		}
	}
	max := s.opts.MaxFilesPerTrigger
	if limit.MaxFiles > 0 && (max == 0 || limit.MaxFiles < max) {
		max = limit.MaxFiles
	}
	pending := 0
	if max > 0 && len(fresh) > max {
		pending = len(fresh) - max
		fresh = fresh[:max]
	}
	s.mu.Lock()
	s.pending = pending
	s.mu.Unlock()
	if len(fresh) == 0 {
		return start, nil
	}
	if bounded {
		return encodeState(st.advance(fresh, s.maxFileAge())), nil
	}
	done := slices.Clip(st.Files)
	for _, f := range fresh {
		done = append(done, f.name)
	}
	return encodeOffset(done), nil
}

// PrepareAvailableNow fixes the set of files to read at those listed now.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	files, _, err := s.list(ctx)
	if err != nil {
		return err
	}
	capped := make(map[string]struct{}, len(files))
	for _, f := range files {
		capped[f.name] = struct{}{}
	}
	s.mu.Lock()
	s.capped = capped
	s.mu.Unlock()
	return nil
}

// PlanPartitions returns one partition per file of end beyond start.
func (s *Source) PlanPartitions(start, end sources.Offset) ([]sources.InputPartition, error) {
	from, err := decodeState(start)
	if err != nil {
		return nil, err
	}
	to, err := decodeState(end)
	if err != nil {
		return nil, err
	}
	var names []string
	switch {
	case !to.bounded():
		if from.bounded() || len(to.Files) < len(from.Files) || !slices.Equal(from.Files, to.Files[:len(from.Files)]) {
			return nil, fmt.Errorf("file source: offset %.200s is not a continuation of %.200s", end, start)
		}
		names = to.Files[len(from.Files):]
	case from.bounded() && to.Batch == from.Batch:
		// the same offset: no new files
	case to.Batch == from.Batch+1: // a v1 start is batch 0 of the bounded record
		names = to.Files
	default:
		return nil, fmt.Errorf("file source: offset %.200s is not the next batch after %.200s", end, start)
	}
	parts := make([]sources.InputPartition, 0, len(names))
	for _, name := range names {
		parts = append(parts, &Partition{File: name, src: s})
	}
	return parts, nil
}

// Commit does nothing: the list of processed files lives in the offsets.
func (s *Source) Commit(end sources.Offset) error { return nil }

// Close does nothing: partitions open and close their own files.
func (s *Source) Close() error { return nil }

// SetDeadLetters routes malformed records to d instead of failing the read
// (the query's dead-letter sink uses it). Call it before the first read.
func (s *Source) SetDeadLetters(d sources.DeadLetters) { s.opts.DeadLetters = d }
