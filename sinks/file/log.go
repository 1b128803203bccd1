package file

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
)

// logVersion is the first line of every log entry.
const logVersion = "v1"

// ErrCorruptLog is wrapped by errors about a log entry that cannot be read.
var ErrCorruptLog = errors.New("file sink: corrupt log entry")

// writeLogEntry records batch id and its files atomically: the commit point.
func writeLogEntry(logDir string, id int64, files []dataFile) error {
	var b bytes.Buffer
	b.WriteString(logVersion)
	b.WriteByte('\n')
	for _, f := range files {
		line, err := json.Marshal(f)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return fsutil.Write(filepath.Join(logDir, strconv.FormatInt(id, 10)), b.Bytes())
}

// CommittedBatch is one committed batch: its id and the data files it
// wrote, as absolute paths, in write order.
type CommittedBatch struct {
	BatchID int64
	Files   []string
	Rows    int64
}

// Committed lists the committed batches of the sink directory dir in batch
// order. Files not named by a log entry (temporary files, files of a batch
// that crashed before its commit) are not listed.
func Committed(dir string) ([]CommittedBatch, error) {
	logDir := filepath.Join(dir, LogDir)
	ents, err := os.ReadDir(logDir)
	if err != nil {
		return nil, fmt.Errorf("file sink %s: read log: %w", dir, err)
	}
	var ids []int64
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			continue
		}
		id, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil || id < 0 {
			continue // not a log entry
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]CommittedBatch, 0, len(ids))
	for _, id := range ids {
		cb, err := readLogEntry(dir, logDir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, cb)
	}
	return out, nil
}

func readLogEntry(dir, logDir string, id int64) (CommittedBatch, error) {
	path := filepath.Join(logDir, strconv.FormatInt(id, 10))
	data, err := os.ReadFile(path)
	if err != nil {
		return CommittedBatch{}, fmt.Errorf("file sink: read log entry %s: %w", path, err)
	}
	cb := CommittedBatch{BatchID: id}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != logVersion {
		return cb, fmt.Errorf("%w %s: first line %q, want %q", ErrCorruptLog, path, lines[0], logVersion)
	}
	for n, line := range lines[1:] {
		var f dataFile
		if err := json.Unmarshal([]byte(line), &f); err != nil || !dataFileName(f.Path) || f.Rows < 0 {
			return cb, fmt.Errorf("%w %s line %d: %q", ErrCorruptLog, path, n+2, line)
		}
		cb.Files = append(cb.Files, filepath.Join(dir, f.Path))
		cb.Rows += f.Rows
	}
	return cb, nil
}

// dataFileName reports whether a log entry's path can name a data file:
// a plain name directly inside the sink directory, so not "..", ".", the
// log directory or a hidden (temporary) file.
func dataFileName(p string) bool {
	return p != "" && !strings.ContainsAny(p, `/\`) && !strings.HasPrefix(p, ".") && p != LogDir
}

// ReadCommitted returns the rows of every committed batch of the sink
// directory dir, in batch and file order: what a downstream reader sees.
// JSON values decode as Go values: numbers as int64 when integral and in
// range, else float64; strings (timestamps included) as string; objects as
// map[string]any. CSV fields decode as strings, an empty field as nil.
func ReadCommitted(dir string) ([]map[string]any, error) {
	batches, err := Committed(dir)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	for _, b := range batches {
		for _, path := range b.Files {
			if rows, err = readDataFile(rows, path); err != nil {
				return nil, fmt.Errorf("file sink: batch %d: %w", b.BatchID, err)
			}
		}
	}
	return rows, nil
}

// ReadCommittedLines returns the data lines (without CSV headers) of every
// committed batch of dir, in batch and file order. Equal rows have equal
// lines, so tests compare outputs as multisets of lines.
func ReadCommittedLines(dir string) ([]string, error) {
	batches, err := Committed(dir)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, b := range batches {
		for _, path := range b.Files {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("file sink: batch %d: %w", b.BatchID, err)
			}
			ls := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if strings.HasSuffix(path, ".csv") {
				ls = ls[1:]
			}
			if len(data) > 0 {
				lines = append(lines, ls...)
			}
		}
	}
	return lines, nil
}

func readDataFile(rows []map[string]any, path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return rows, err
	}
	defer f.Close()
	if strings.HasSuffix(path, ".csv") {
		return readCSV(rows, f, path)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	line := 0
	for sc.Scan() {
		line++
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return rows, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		rows = append(rows, fixNumbers(m).(map[string]any))
	}
	if err := sc.Err(); err != nil {
		return rows, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

// fixNumbers turns json.Number values into int64 or float64.
func fixNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = fixNumbers(x)
		}
		return v
	case []any:
		for i, x := range v {
			v[i] = fixNumbers(x)
		}
		return v
	}
	return v
}
