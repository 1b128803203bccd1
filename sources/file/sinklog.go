package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// sinkLogDir is the log directory of a file sink's output (sinks/file's
// LogDir, not imported: connectors import no other connector). Its
// entries are "v1" then one JSON object per data file, {"path": name, …}.
const sinkLogDir = "_millrace_log"

// maxCachedEntries bounds the cache of parsed sink-log entries.
const maxCachedEntries = 4096

// sinkLog is what a listing found of a file sink's log: the ids of its
// committed batches. A nil *sinkLog: the directory is no sink's output.
type sinkLog struct {
	ids map[int64]bool
}

// addName records a log object's name (relative to the log directory).
func (l *sinkLog) addName(name string) {
	if id, err := strconv.ParseInt(name, 10, 64); err == nil && id >= 0 {
		l.ids[id] = true
	}
}

// listSinkLog reads the local log directory's entry names.
func (s *Source) listSinkLog() (*sinkLog, error) {
	dir := filepath.Join(s.opts.Path, sinkLogDir)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("file source: list the file sink log %s: %w", dir, err)
	}
	l := &sinkLog{ids: map[int64]bool{}}
	for _, e := range ents {
		if e.Type().IsRegular() {
			l.addName(e.Name())
		}
	}
	return l, nil
}

// batchOf returns the batch id in a sink data file's name, part-<id>-….
func batchOf(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(num, 10, 64)
	return id, err == nil && id >= 0
}

// committedOnly keeps the files of fresh that a committed entry of the
// sink log names, as Spark's file source reads only the files of a file
// sink's _spark_metadata log: data files of an attempt that has not
// committed (yet), or never will, are not read. A file skipped now is new
// again at a later trigger, once its batch's entry exists.
func (s *Source) committedOnly(ctx context.Context, fresh []listed, log *sinkLog) ([]listed, error) {
	out := fresh[:0:0]
	for _, f := range fresh {
		id, ok := batchOf(f.name)
		if !ok || !log.ids[id] {
			continue
		}
		named, err := s.sinkEntry(ctx, id)
		if err != nil {
			return nil, err
		}
		if named[f.name] {
			out = append(out, f)
		}
	}
	return out, nil
}

// sinkEntry returns the data file names of committed batch id's log entry
// (entries never change once written, so they are cached).
func (s *Source) sinkEntry(ctx context.Context, id int64) (map[string]bool, error) {
	s.mu.Lock()
	named, ok := s.entries[id]
	s.mu.Unlock()
	if ok {
		return named, nil
	}
	name := sinkLogDir + "/" + strconv.FormatInt(id, 10)
	var data []byte
	var err error
	if s.store != nil {
		data, err = s.store.Read(ctx, name)
	} else {
		data, err = os.ReadFile(filepath.Join(s.opts.Path, filepath.FromSlash(name)))
	}
	if err != nil {
		return nil, fmt.Errorf("file source: read the file sink log entry of batch %d: %w", id, err)
	}
	where := s.where(name)
	if s.store == nil {
		where = filepath.Join(s.opts.Path, filepath.FromSlash(name))
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	named = map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		if n == 1 {
			if sc.Text() != "v1" {
				return nil, fmt.Errorf("file source: file sink log entry %s: first line %.40q, want \"v1\" (written by a newer Millrace?)", where, sc.Text())
			}
			continue
		}
		var f struct {
			Path string `json:"path"`
		}
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil || !plainName(f.Path) {
			return nil, fmt.Errorf("file source: file sink log entry %s line %d is corrupt: %.200q", where, n, sc.Text())
		}
		named[f.Path] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("file source: file sink log entry %s: %w", where, err)
	}
	s.mu.Lock()
	if s.entries == nil || len(s.entries) >= maxCachedEntries {
		s.entries = map[int64]map[string]bool{}
	}
	s.entries[id] = named
	s.mu.Unlock()
	return named, nil
}
