package file

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
	"github.com/millrace/millrace/storage"
)

// logVersion is the first line of every log entry.
const logVersion = "v1"

// ErrCorruptLog is wrapped by errors about a log entry that cannot be read.
var ErrCorruptLog = errors.New("file sink: corrupt log entry")

// writeLogEntry records batch id and its files atomically: the commit point.
func writeLogEntry(logDir string, id int64, files []dataFile) error {
	b, err := encodeLogEntry(files)
	if err != nil {
		return err
	}
	return fsutil.Write(filepath.Join(logDir, strconv.FormatInt(id, 10)), b)
}

// encodeLogEntry is the text of a log entry naming files.
func encodeLogEntry(files []dataFile) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(logVersion)
	b.WriteByte('\n')
	for _, f := range files {
		line, err := json.Marshal(f)
		if err != nil {
			return nil, err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// CommittedBatch is one committed batch: its id and the data files it
// wrote, as absolute paths (s3:// URLs for a sink on S3), in write order.
type CommittedBatch struct {
	BatchID int64
	Files   []string
	Rows    int64
}

// Committed lists the committed batches of the sink directory dir in batch
// order. Files not named by a log entry (temporary files, files of a batch
// that crashed before its commit) are not listed.
func Committed(dir string) ([]CommittedBatch, error) {
	st, err := dirStore(dir)
	if err != nil {
		return nil, err
	}
	return committed(st, dir)
}

func committed(st storage.Store, dir string) ([]CommittedBatch, error) {
	logDir := filepath.Join(dir, LogDir)
	var ids []int64
	if st != nil {
		var err error
		if ids, err = logIDsRemote(st, dir); err != nil {
			return nil, err
		}
	} else {
		ents, err := os.ReadDir(logDir)
		if err != nil {
			return nil, fmt.Errorf("file sink %s: read log: %w", dir, err)
		}
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
	}
	out := make([]CommittedBatch, 0, len(ids))
	for _, id := range ids {
		cb, err := readLogEntryIn(st, dir, logDir, id)
		if err != nil {
			return nil, err
		}
		out = append(out, cb)
	}
	return out, nil
}

// readLogEntry reads batch id's entry of a local sink directory.
func readLogEntry(dir, logDir string, id int64) (CommittedBatch, error) {
	return readLogEntryIn(nil, dir, logDir, id)
}

// readLogEntryIn reads batch id's entry from st, or from the local logDir
// when st is nil.
func readLogEntryIn(st storage.Store, dir, logDir string, id int64) (CommittedBatch, error) {
	path := filepath.Join(logDir, strconv.FormatInt(id, 10))
	var data []byte
	var err error
	if st != nil {
		path = strings.TrimSuffix(dir, "/") + "/" + logName(id)
		data, err = st.Read(context.Background(), logName(id))
	} else {
		data, err = os.ReadFile(path)
	}
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
		if st != nil {
			cb.Files = append(cb.Files, strings.TrimSuffix(dir, "/")+"/"+f.Path)
		} else {
			cb.Files = append(cb.Files, filepath.Join(dir, f.Path))
		}
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
	st, err := dirStore(dir)
	if err != nil {
		return nil, err
	}
	batches, err := committed(st, dir)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	for _, b := range batches {
		for _, path := range b.Files {
			if rows, err = readDataFileIn(rows, st, dir, path); err != nil {
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
	st, err := dirStore(dir)
	if err != nil {
		return nil, err
	}
	batches, err := committed(st, dir)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, b := range batches {
		for _, path := range b.Files {
			data, err := readData(st, dir, path)
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

// readData returns the content of a committed data file (path as
// Committed names it).
func readData(st storage.Store, dir, path string) ([]byte, error) {
	if st == nil {
		return os.ReadFile(path)
	}
	return st.Read(context.Background(), strings.TrimPrefix(path, strings.TrimSuffix(dir, "/")+"/"))
}

// readDataFile appends the rows of a local data file.
func readDataFile(rows []map[string]any, path string) ([]map[string]any, error) {
	return readDataFileIn(rows, nil, "", path)
}

func readDataFileIn(rows []map[string]any, st storage.Store, dir, path string) ([]map[string]any, error) {
	data, err := readData(st, dir, path)
	if err != nil {
		return rows, err
	}
	f := bytes.NewReader(data)
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
