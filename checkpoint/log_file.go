package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
)

// logVersion is the version header ("v1") of offsets and commit files, the
// same as Spark's.
const logVersion = 1

// readLogFile reads a log file (name relative to the checkpoint) and splits it into lines after checking its
// version header. kind names the file in errors ("offsets file").
func (d *Dir) readLogFile(kind, name string) ([]string, error) {
	path := d.file(name)
	data, err := d.readFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: %s %s does not exist: %w", kind, path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s: %w", path, err)
	}
	if len(data) == 0 {
		return nil, corrupt(kind, path, 1, nil, "empty file")
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	lines := bytes.Split(data, []byte("\n"))
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(bytes.TrimSuffix(l, []byte("\r")))
	}
	h := out[0]
	if len(h) < 2 || h[0] != 'v' {
		return nil, corrupt(kind, path, 1, nil, "bad version header %q, want \"v%d\"", truncate(h), logVersion)
	}
	v, err := strconv.Atoi(h[1:])
	if err != nil || v < 1 {
		return nil, corrupt(kind, path, 1, nil, "bad version header %q, want \"v%d\"", truncate(h), logVersion)
	}
	if v > logVersion {
		return nil, fmt.Errorf("checkpoint: %s %s is in log format v%d but this Millrace reads v%d only: "+
			"run the query with the newer Millrace that wrote it: %w", kind, path, v, logVersion, ErrUnsupportedVersion)
	}
	return out, nil
}

// truncate shortens s for an error message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
