package lake

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/millrace/millrace/storage"
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

func logName(name string) string { return logDir + "/" + name }

// listLog lists the log of the table at loc: a directory read on local
// disk, a listing of the _delta_log/ prefix in object storage.
func listLog(loc *location) (*logFiles, error) { return listLogFrom(loc, 0) }

// listLogFrom lists the log entries of versions from on (commits and
// checkpoints). In object storage the listing starts at the first key of
// version from (storage.ListAfter), so that a reader that knows where to
// start (the latest checkpoint, a stream's offset) pages through the
// newest keys only, not the whole history of a long-running stream's log.
// A local table reads its directory whole, which costs little.
func listLogFrom(loc *location, from int64) (*logFiles, error) {
	var names []string
	if loc.local {
		ents, err := os.ReadDir(loc.file(logDir))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %s has no %s", ErrNotATable, loc.root, logDir)
			}
			return nil, fmt.Errorf("lake: list log of %s: %w", loc.root, err)
		}
		for _, e := range ents {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	} else {
		var objs []storage.ObjectInfo
		var err error
		if from > 0 {
			// Keys of version from sort after its bare number, those of
			// earlier versions before it.
			objs, err = storage.ListAfter(context.Background(), loc.store, logDir+"/", logName(fmt.Sprintf("%020d", from)))
		} else {
			objs, err = loc.store.List(context.Background(), logDir+"/")
		}
		if err != nil {
			return nil, fmt.Errorf("lake: list log of %s: %w", loc.root, err)
		}
		for _, o := range objs {
			if n := strings.TrimPrefix(o.Name, logDir+"/"); !strings.Contains(n, "/") {
				names = append(names, n)
			}
		}
		if len(names) == 0 && from == 0 {
			return nil, fmt.Errorf("%w: %s has no %s", ErrNotATable, loc.root, logDir)
		}
	}
	lf := &logFiles{checkpoints: map[int64][]checkpoint{}}
	multi := map[string][]string{} // "version.parts" -> part names
	for _, name := range names {
		if len(name) < 21 || name[20] != '.' {
			continue
		}
		v, err := strconv.ParseInt(name[:20], 10, 64)
		if err != nil || v < from {
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

// readCommit reads and parses commit v of the table at loc.
func readCommit(loc *location, v int64) ([]Action, error) {
	name := logName(commitName(v))
	b, err := loc.store.Read(context.Background(), name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: commit %d of %s", ErrVersionNotFound, v, loc.root)
		}
		return nil, fmt.Errorf("lake: read commit %d: %w", v, err)
	}
	return ParseActions(loc.where(name), b)
}

// errVersionExists reports a lost put-if-absent race.
var errVersionExists = errors.New("lake: commit version already exists")

// putIfAbsent writes data as the new log entry name, failing with
// errVersionExists if it exists (storage.Store.WriteNew): on local disk
// link(2) of a complete, synced temporary file, which fails on an existing
// name; on S3 a PUT with If-None-Match: *, which the server refuses with
// 412 when the key exists. A reader never sees a partial commit and no
// commit is ever overwritten, also between processes and machines.
func putIfAbsent(ctx context.Context, loc *location, name string, data []byte) error {
	err := loc.store.WriteNew(ctx, logName(name), data)
	switch {
	case errors.Is(err, storage.ErrExists):
		return errVersionExists
	case err != nil:
		return fmt.Errorf("lake: put %s: %w", name, err)
	}
	return nil
}

func newUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
