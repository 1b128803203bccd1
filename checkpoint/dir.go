package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/millrace/millrace/storage"
)

// Names of the checkpoint layout, as in Spark.
const (
	metadataFile = "metadata"
	offsetsDir   = "offsets"
	commitsDir   = "commits"
	sourcesDir   = "sources"
	stateDir     = "state"
)

// DefaultRetain is how many committed batches Purge keeps by default
// (Spark's spark.sql.streaming.minBatchesToRetain).
const DefaultRetain = 100

// Dir is an open checkpoint directory. Its methods are safe for concurrent
// use. A Dir opened by Open holds the checkpoint's exclusive lock until
// Close: one running query at a time writes a checkpoint.
type Dir struct {
	path string
	lock *dirLock // nil for a Dir opened to inspect

	// remote holds the checkpoint's files when it is on object storage
	// (s3://), nil for a local directory; work is then the local directory
	// for the state store and the sources' metadata.
	remote storage.Store
	work   string

	mu sync.Mutex
	// Batch ids present in the logs, -1 when a log is empty. The offsets
	// ids are contiguous [offMin, offMax], the commits ids [comMin, comMax].
	offMin, offMax int64
	comMin, comMax int64
	numSources     int // from the metadata, 0 if unknown
}

// Metadata is the checkpoint's metadata file: Spark's {"id": …} plus
// Millrace's fixed query properties, written once at the first start.
type Metadata struct {
	// ID is the query id (a UUID), stable across restarts.
	ID string `json:"id"`
	// NumStatePartitions is the number of state partitions, fixed for the
	// life of the checkpoint.
	NumStatePartitions int `json:"numStatePartitions,omitempty"`
	// NumSources is the number of sources of the query; offsets files have
	// one line per source.
	NumSources int `json:"numSources,omitempty"`
	// Fingerprint describes the plan's stateful shape (operators, keys,
	// schemas); a restart with a different fingerprint is refused.
	Fingerprint json.RawMessage `json:"planFingerprint,omitempty"`
}

// Open opens the checkpoint at path for a query to run on, creating the
// layout if absent. It first takes the checkpoint's exclusive lock: if
// another running query holds it, Open fails with ErrInUse and writes
// nothing. Holding the lock, it removes temporary files a crash left and
// validates the metadata, the logs' batch ids and the latest offsets and
// commit files. Close releases the lock.
func Open(path string) (*Dir, error) {
	return open(path, true)
}

func open(path string, create bool) (_ *Dir, err error) {
	d := &Dir{path: path}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	if storage.IsS3(path) {
		return d, d.openRemote(create)
	}
	for _, sub := range []string{"", offsetsDir, commitsDir} {
		p := filepath.Join(path, sub)
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && (sub != "" || create) {
				continue // created below, or absent from an inspected checkpoint
			}
			return nil, fmt.Errorf("checkpoint: open %s: %w", path, err)
		}
		if !st.IsDir() {
			return nil, corrupt("checkpoint layout", p, 0, nil, "not a directory")
		}
	}
	if create {
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("checkpoint: create %s: %w%s", path, err, accessHint(err))
		}
		// The lock comes before anything else is written or removed: the
		// temporary files below may be those of the query holding it.
		if d.lock, err = lockDir(path); err != nil {
			return nil, err
		}
		for _, sub := range []string{offsetsDir, commitsDir, sourcesDir, stateDir} {
			if err := os.MkdirAll(filepath.Join(path, sub), 0o755); err != nil {
				return nil, fmt.Errorf("checkpoint: create %s: %w%s", path, err, accessHint(err))
			}
		}
		for _, sub := range []string{"", offsetsDir, commitsDir} {
			if err := removeTemps(filepath.Join(path, sub)); err != nil {
				return nil, err
			}
		}
	}
	return d, d.load()
}

// openRemote opens a checkpoint on object storage. It takes no lock (object
// storage has none): two queries on one checkpoint cannot both write an
// entry, since entries are created with conditional writes, so the second
// fails at its first write with ErrExists.
func (d *Dir) openRemote(create bool) error {
	st, err := storage.Open(context.Background(), d.path)
	if err != nil {
		return fmt.Errorf("checkpoint: open %s: %w", d.path, err)
	}
	d.remote = st
	if d.work, err = workDir(d.path); err != nil {
		return err
	}
	if create {
		if err := os.MkdirAll(filepath.Join(d.work, stateDir), 0o755); err != nil {
			return fmt.Errorf("checkpoint %s: create local work directory: %w", d.path, err)
		}
	}
	return d.load()
}

// load reads the metadata and the logs' batch ids, and validates the files
// recovery reads first.
func (d *Dir) load() error {
	m, ok, err := d.Metadata()
	if err != nil {
		return err
	}
	if ok {
		d.numSources = m.NumSources
	}
	if err := d.scanLogs(); err != nil {
		return err
	}
	if d.offMax >= 0 {
		if _, err := d.readOffsets(d.offMax); err != nil {
			return err
		}
	}
	if d.comMax >= 0 {
		if _, err := d.readCommit(d.comMax); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the checkpoint's lock. The Dir must not be written after.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.lock.unlock(); err != nil {
		return fmt.Errorf("checkpoint: unlock %s: %w", d.path, err)
	}
	d.lock = nil
	return nil
}

// Path returns the checkpoint directory.
func (d *Dir) Path() string { return d.path }

// StateDir returns the state store's directory (for a checkpoint on object
// storage, in the local work directory: see WorkDirEnv).
func (d *Dir) StateDir() string { return filepath.Join(d.local(), stateDir) }

// StateLocation returns the location of the state store's durable copy on
// object storage (<checkpoint>/state), or "" for a local checkpoint, whose
// state store is itself in the checkpoint directory.
func (d *Dir) StateLocation() string {
	if d.remote == nil {
		return ""
	}
	return d.file(stateDir)
}

// local is the local directory of the checkpoint: itself, or its work
// directory when it is on object storage.
func (d *Dir) local() string {
	if d.remote != nil {
		return d.work
	}
	return d.path
}

// SourceDir returns the metadata directory of source i (0-based, in query
// order), creating it if needed (for a checkpoint on object storage, in the
// local work directory).
func (d *Dir) SourceDir(i int) string {
	p := filepath.Join(d.local(), sourcesDir, strconv.Itoa(i))
	os.MkdirAll(p, 0o755) // an error here surfaces when the source writes
	return p
}

// Metadata reads the metadata file; false if there is none yet.
func (d *Dir) Metadata() (Metadata, bool, error) {
	p := d.file(metadataFile)
	data, err := d.readFile(metadataFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Metadata{}, false, nil
	}
	if err != nil {
		return Metadata{}, false, fmt.Errorf("checkpoint: read %s: %w", p, err)
	}
	var m Metadata
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return Metadata{}, false, corrupt("metadata file", p, 1, err, "")
	}
	if m.ID == "" {
		return Metadata{}, false, corrupt("metadata file", p, 1, nil, "no query id")
	}
	return m, true, nil
}

// WriteMetadata writes the metadata file; it fails with ErrExists if one is
// already written. The file is created with no-overwrite semantics (a link
// of a complete temporary file), so even two writers that got past the
// lock (a filesystem without flock) cannot both believe they wrote it.
func (d *Dir) WriteMetadata(m Metadata) error {
	p := d.file(metadataFile)
	if m.ID == "" {
		return fmt.Errorf("checkpoint: write %s: empty query id", p)
	}
	if _, ok, err := d.Metadata(); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("checkpoint: metadata %s already written: %w", p, ErrExists)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("checkpoint: write %s: %w", p, err)
	}
	if err := d.writeNew(metadataFile, append(data, '\n')); err != nil {
		if errors.Is(err, ErrExists) {
			return fmt.Errorf("checkpoint: metadata %s was written by another process meanwhile: %w", p, err)
		}
		return err
	}
	d.mu.Lock()
	d.numSources = m.NumSources
	d.mu.Unlock()
	return nil
}

// Ensure is the compatibility check of a (re)starting query. With no
// metadata yet it writes want (generating an id if empty) and returns it.
// Otherwise it returns the recorded metadata after checking that want agrees
// with it: a zero NumStatePartitions, NumSources or empty Fingerprint in want
// means "whatever was recorded"; any other difference is ErrIncompatible.
func (d *Dir) Ensure(want Metadata) (Metadata, error) {
	have, ok, err := d.Metadata()
	if err != nil {
		return Metadata{}, err
	}
	if !ok {
		if want.ID == "" {
			want.ID = NewQueryID()
		}
		return want, d.WriteMetadata(want)
	}
	p := d.file(metadataFile)
	switch {
	case want.ID != "" && want.ID != have.ID:
		return have, fmt.Errorf("checkpoint: %s belongs to query %s, not %s: use another checkpoint directory: %w",
			d.path, have.ID, want.ID, ErrIncompatible)
	case want.NumStatePartitions != 0 && want.NumStatePartitions != have.NumStatePartitions:
		return have, fmt.Errorf("checkpoint: %s records %d state partitions but the query asks for %d: "+
			"the partition count is fixed per checkpoint; drop the setting or use a new checkpoint directory: %w",
			p, have.NumStatePartitions, want.NumStatePartitions, ErrIncompatible)
	case want.NumSources != 0 && have.NumSources != 0 && want.NumSources != have.NumSources:
		return have, fmt.Errorf("checkpoint: %s records %d sources but the query has %d: "+
			"use a new checkpoint directory for a changed query: %w", p, have.NumSources, want.NumSources, ErrIncompatible)
	case len(want.Fingerprint) > 0 && len(have.Fingerprint) > 0 && !sameJSON(want.Fingerprint, have.Fingerprint):
		return have, fmt.Errorf("checkpoint: the query's stateful plan differs from the one recorded in %s "+
			"(recorded %s, now %s): state written by the old plan cannot be read by the new one; "+
			"use a new checkpoint directory: %w", p, compactJSON(have.Fingerprint), compactJSON(want.Fingerprint), ErrIncompatible)
	}
	return have, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return reflect.DeepEqual(x, y)
}

func compactJSON(a json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, a) != nil {
		return string(a)
	}
	return b.String()
}

// listBatchIDs returns the sorted batch ids of a log directory. Names that are
// not decimal batch ids (hidden files, Spark's .crc files) are ignored.
func listBatchIDs(dir string) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: list %s: %w", dir, err)
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return batchIDs(names), nil
}

// batchIDs returns the sorted batch ids among a log's file names.
func batchIDs(names []string) []int64 {
	var ids []int64
	for _, name := range names {
		if strings.HasPrefix(name, ".") || name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		id, err := strconv.ParseInt(name, 10, 64)
		if err != nil || strconv.FormatInt(id, 10) != name {
			continue
		}
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// scanLogs lists both logs and checks the invariants between their batch ids.
func (d *Dir) scanLogs() error {
	offDir, comDir := d.file(offsetsDir), d.file(commitsDir)
	offs, err := d.listIDs(offsetsDir)
	if err != nil {
		return err
	}
	coms, err := d.listIDs(commitsDir)
	if err != nil {
		return err
	}
	d.offMin, d.offMax, d.comMin, d.comMax = -1, -1, -1, -1
	if err := contiguous("offsets log", offDir, offs); err != nil {
		return err
	}
	if err := contiguous("commit log", comDir, coms); err != nil {
		return err
	}
	if len(offs) > 0 {
		d.offMin, d.offMax = offs[0], offs[len(offs)-1]
	}
	if len(coms) > 0 {
		d.comMin, d.comMax = coms[0], coms[len(coms)-1]
	}
	switch {
	case len(coms) > 0 && (len(offs) == 0 || d.comMin < d.offMin || d.comMax > d.offMax):
		missing := d.comMax
		if len(offs) > 0 && d.comMin < d.offMin {
			missing = d.comMin
		}
		return corrupt("commit log", comDir, 0, nil, "batch %d is committed but %s has no offsets for it",
			missing, d.file(offsetsDir))
	case len(coms) > 0 && d.offMax > d.comMax+1:
		return corrupt("offsets log", offDir, 0, nil,
			"offsets go up to batch %d but batch %d was never committed", d.offMax, d.comMax+1)
	case len(coms) == 0 && len(offs) > 1:
		return corrupt("offsets log", offDir, 0, nil,
			"offsets for batches %d..%d but no batch was ever committed", d.offMin, d.offMax)
	}
	return nil
}

func contiguous(kind, dir string, ids []int64) error {
	for i := 1; i < len(ids); i++ {
		if ids[i] != ids[i-1]+1 {
			return corrupt(kind, dir, 0, nil, "batch %d is missing between %d and %d", ids[i-1]+1, ids[i-1], ids[i])
		}
	}
	return nil
}
