package lake

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/millrace/millrace/internal/fsutil"
)

const logDir = "_delta_log"

// logFiles lists what the log directory holds: JSON commit versions and
// checkpoints by version.
type logFiles struct {
	commits     []int64                // sorted
	checkpoints map[int64][]checkpoint // complete classic checkpoints by version
	v2          []int64                // versions of UUID-named (v2) checkpoints
}

type checkpoint struct {
	version int64
	parts   []string // file names in part order
}

func commitName(v int64) string { return fmt.Sprintf("%020d.json", v) }

func logPath(root string, name string) string { return filepath.Join(root, logDir, name) }

// listLog reads the log directory of the table at root.
func listLog(root string) (*logFiles, error) {
	ents, err := os.ReadDir(filepath.Join(root, logDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s has no %s", ErrNotATable, root, logDir)
		}
		return nil, fmt.Errorf("lake: list log of %s: %w", root, err)
	}
	lf := &logFiles{checkpoints: map[int64][]checkpoint{}}
	multi := map[string][]string{} // "version.parts" -> part names
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || len(name) < 21 || name[20] != '.' {
			continue
		}
		v, err := strconv.ParseInt(name[:20], 10, 64)
		if err != nil {
			continue
		}
		rest := name[21:]
		switch {
		case rest == "json":
			lf.commits = append(lf.commits, v)
		case rest == "checkpoint.parquet":
			lf.checkpoints[v] = append(lf.checkpoints[v], checkpoint{version: v, parts: []string{name}})
		case strings.HasPrefix(rest, "checkpoint.") && strings.HasSuffix(rest, ".parquet"):
			mid := strings.TrimSuffix(strings.TrimPrefix(rest, "checkpoint."), ".parquet")
			ps := strings.Split(mid, ".")
			if len(ps) == 2 && len(ps[0]) == 10 && len(ps[1]) == 10 {
				key := name[:20] + "." + ps[1]
				multi[key] = append(multi[key], name)
			} else if len(ps) == 1 {
				lf.v2 = append(lf.v2, v) // <version>.checkpoint.<uuid>.parquet
			}
		case strings.HasPrefix(rest, "checkpoint.") && strings.HasSuffix(rest, ".json"):
			lf.v2 = append(lf.v2, v)
		}
	}
	for key, names := range multi {
		v, _ := strconv.ParseInt(key[:20], 10, 64)
		n, _ := strconv.Atoi(key[21:])
		if len(names) != n {
			continue // incomplete multi-part checkpoint: ignore
		}
		sort.Strings(names)
		lf.checkpoints[v] = append(lf.checkpoints[v], checkpoint{version: v, parts: names})
	}
	sort.Slice(lf.commits, func(i, j int) bool { return lf.commits[i] < lf.commits[j] })
	return lf, nil
}

func (lf *logFiles) latest() int64 {
	v := int64(-1)
	if n := len(lf.commits); n > 0 {
		v = lf.commits[n-1]
	}
	for cv := range lf.checkpoints {
		v = max(v, cv)
	}
	return v
}

// readCommit reads and parses commit v of the table at root.
func readCommit(root string, v int64) ([]Action, error) {
	name := logPath(root, commitName(v))
	b, err := os.ReadFile(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: commit %d of %s", ErrVersionNotFound, v, root)
		}
		return nil, fmt.Errorf("lake: read commit %d: %w", v, err)
	}
	return ParseActions(name, b)
}

// errVersionExists reports a lost put-if-absent race.
var errVersionExists = errors.New("lake: commit version already exists")

// putIfAbsent writes data as a new file name, failing with errVersionExists
// if it exists: internal/fsutil.WriteNew links a complete, synced
// temporary file to the final name (link fails on an existing name), so a
// reader never sees a partial commit and no commit is ever overwritten.
func putIfAbsent(dir, name string, data []byte) error {
	err := fsutil.WriteNew(filepath.Join(dir, name), data)
	switch {
	case errors.Is(err, fsutil.ErrExists):
		return errVersionExists
	case err != nil:
		return fmt.Errorf("lake: put %s: %w", name, err)
	}
	return nil
}

// writeFileAtomic replaces name in dir with data (fsutil.Write: temp +
// fsync + rename), for files that may be overwritten (_last_checkpoint).
func writeFileAtomic(dir, name string, data []byte) error {
	if err := fsutil.Write(filepath.Join(dir, name), data); err != nil {
		return fmt.Errorf("lake: replace %s: %w", name, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
