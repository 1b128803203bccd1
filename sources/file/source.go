package file

import (
	"context"
	"encoding/json"
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
	"github.com/millrace/millrace/sources"
)

// Source is the file source. Create it with New.
type Source struct {
	opts Options

	badRecords atomic.Int64

	mu      sync.Mutex
	pending int                 // new files seen by the last LatestOffset beyond its limit
	capped  map[string]struct{} // PrepareAvailableNow: only these files are read
}

var (
	_ sources.Source       = (*Source)(nil)
	_ sources.AvailableNow = (*Source)(nil)
	_ sources.Describer    = (*Source)(nil)
)

// New returns a file source for opts. It does not touch the directory.
func New(opts Options) (*Source, error) {
	o, err := opts.validate()
	if err != nil {
		return nil, err
	}
	return &Source{opts: o}, nil
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

// Metrics reports badRecords and filesPending (new files the last
// LatestOffset left for later triggers).
func (s *Source) Metrics() map[string]string {
	s.mu.Lock()
	pending := s.pending
	s.mu.Unlock()
	return map[string]string{
		"badRecords":   strconv.FormatInt(s.BadRecords(), 10),
		"filesPending": strconv.Itoa(pending),
	}
}

type offset struct {
	Files []string `json:"files"`
}

func encodeOffset(files []string) sources.Offset {
	if files == nil {
		files = []string{}
	}
	b, _ := json.Marshal(offset{Files: files}) // a []string always marshals
	return sources.Offset(b)
}

func decodeOffset(o sources.Offset) ([]string, error) {
	var d offset
	if err := json.Unmarshal([]byte(o), &d); err != nil {
		return nil, fmt.Errorf("file source: bad offset %q: %w", string(o), err)
	}
	for _, name := range d.Files {
		if !plainName(name) {
			// A checkpoint never holds such a name (list returns none); a
			// corrupt or edited one must not make the source read a file
			// outside its directory.
			return nil, fmt.Errorf("file source: bad offset %.200q: %q is not a file name of the source directory", string(o), name)
		}
	}
	return d.Files, nil
}

// plainName reports whether name can be a file list returns: no path
// separator or NUL, not hidden (which also excludes "." and ".."), and
// not empty.
func plainName(name string) bool {
	return name != "" && !strings.ContainsRune(name, '/') && !strings.ContainsRune(name, filepath.Separator) &&
		!strings.ContainsRune(name, 0) && !strings.HasPrefix(name, ".")
}

// InitialOffset returns {"files":[]}.
func (s *Source) InitialOffset(ctx context.Context) (sources.Offset, error) {
	return encodeOffset(nil), nil
}

type listed struct {
	name string
	mod  time.Time
}

// list returns the eligible files of the directory sorted by modification
// time, then name.
func (s *Source) list() ([]listed, error) {
	entries, err := os.ReadDir(s.opts.Path)
	if err != nil {
		return nil, fmt.Errorf("file source: list directory %s: %w", s.opts.Path, err)
	}
	out := make([]listed, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
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
			return nil, fmt.Errorf("file source: stat %s: %w", filepath.Join(s.opts.Path, name), err)
		}
		out = append(out, listed{name: name, mod: info.ModTime()})
	}
	slices.SortFunc(out, func(a, b listed) int {
		if c := a.mod.Compare(b.mod); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	return out, nil
}

// LatestOffset lists the directory and returns start plus the new files,
// bounded by MaxFilesPerTrigger and limit.MaxFiles.
func (s *Source) LatestOffset(ctx context.Context, start sources.Offset, limit sources.ReadLimit) (sources.Offset, error) {
	done, err := decodeOffset(start)
	if err != nil {
		return "", err
	}
	files, err := s.list()
	if err != nil {
		return "", err
	}
	seen := make(map[string]struct{}, len(done))
	for _, f := range done {
		seen[f] = struct{}{}
	}
	s.mu.Lock()
	capped := s.capped
	s.mu.Unlock()
	var fresh []string
	for _, f := range files {
		if _, ok := seen[f.name]; ok {
			continue
		}
		if capped != nil {
			if _, ok := capped[f.name]; !ok {
				continue
			}
		}
		fresh = append(fresh, f.name)
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
	return encodeOffset(append(slices.Clip(done), fresh...)), nil
}

// PrepareAvailableNow fixes the set of files to read at those listed now.
func (s *Source) PrepareAvailableNow(ctx context.Context) error {
	files, err := s.list()
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
	from, err := decodeOffset(start)
	if err != nil {
		return nil, err
	}
	to, err := decodeOffset(end)
	if err != nil {
		return nil, err
	}
	if len(to) < len(from) || !slices.Equal(from, to[:len(from)]) {
		return nil, fmt.Errorf("file source: offset %.200s is not a continuation of %.200s", end, start)
	}
	parts := make([]sources.InputPartition, 0, len(to)-len(from))
	for _, name := range to[len(from):] {
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
