package lake

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
)

// Snapshot is the state of a table at one version.
type Snapshot struct {
	loc      *location
	version  int64
	protocol *Protocol
	metadata *Metadata
	schema   *arrow.Schema
	files    map[fileKey]*AddFile    // logical files
	removes  map[fileKey]*RemoveFile // tombstones
	txns     map[string]*Txn
	// timestamp of the commit of version (from commitInfo or file mtime)
	timestamp int64
}

// fileKey identifies a logical file: a data file (decoded path) and the
// unique id of its deletion vector ("" when it has none). A commit that
// deletes rows of a file removes (path, old DV) and adds (path, new DV).
type fileKey struct {
	path string
	dv   string
}

func addKey(a *AddFile) (fileKey, error) {
	p, err := decodePath(a.Path)
	return fileKey{p, a.DeletionVector.UniqueID()}, err
}

func removeKey(r *RemoveFile) (fileKey, error) {
	p, err := decodePath(r.Path)
	return fileKey{p, r.DeletionVector.UniqueID()}, err
}

// Version returns the snapshot's table version.
func (s *Snapshot) Version() int64 { return s.version }

// Protocol returns the table's protocol action.
func (s *Snapshot) Protocol() Protocol { return *s.protocol }

// Metadata returns the table's metaData action.
func (s *Snapshot) Metadata() Metadata { return *s.metadata }

// Schema returns the table schema as Arrow (partition columns included).
func (s *Snapshot) Schema() *arrow.Schema { return s.schema }

// PartitionColumns returns the table's partition columns.
func (s *Snapshot) PartitionColumns() []string { return s.metadata.PartitionColumns }

// Files returns the table's data files sorted by path.
func (s *Snapshot) Files() []AddFile {
	out := make([]AddFile, 0, len(s.files))
	for _, f := range s.files {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// NumRecords returns the number of rows of the table by the files' stats
// (numRecords less the rows deletion vectors delete), and false if a file
// has no stats.
func (s *Snapshot) NumRecords() (int64, bool) {
	var n int64
	for _, f := range s.files {
		r, ok := f.NumRecords()
		if !ok {
			return 0, false
		}
		n += r
	}
	return n, true
}

// NumRecords returns the number of rows of the logical file by its stats:
// numRecords (the rows of the data file) less the rows its deletion vector
// deletes; false without stats.
func (f *AddFile) NumRecords() (int64, bool) {
	st, err := parseStats(f.Stats)
	if err != nil || st == nil || st.NumRecords == nil {
		return 0, false
	}
	return *st.NumRecords - f.DeletionVector.cardinality(), true
}

// TxnVersion returns the last version the application appID committed
// with a txn action, and false if it never did.
func (s *Snapshot) TxnVersion(appID string) (int64, bool) {
	t, ok := s.txns[appID]
	if !ok {
		return -1, false
	}
	return t.Version, true
}

// Timestamp returns the commit timestamp of the snapshot's version in
// milliseconds since the epoch.
func (s *Snapshot) Timestamp() int64 { return s.timestamp }

// LoadSnapshot reconstructs the table at path (a local directory or
// s3://bucket/prefix) at version (-1: latest).
func LoadSnapshot(path string, version int64) (*Snapshot, error) {
	loc, err := openLocation(path)
	if err != nil {
		return nil, err
	}
	return loadSnapshot(loc, version)
}

func loadSnapshot(loc *location, version int64) (*Snapshot, error) {
	root := loc.root
	hint := readLastCheckpoint(loc)
	lf, err := listForSnapshot(loc, hint, version)
	if err != nil {
		return nil, err
	}
	latest := lf.latest()
	if latest < 0 {
		return nil, fmt.Errorf("%w: %s has no commits", ErrNotATable, root)
	}
	if version < 0 {
		version = latest
	}
	if version > latest {
		return nil, fmt.Errorf("%w: version %d of %s (latest is %d)", ErrVersionNotFound, version, root, latest)
	}
	for _, v := range lf.v2 {
		if v <= version {
			return nil, fmt.Errorf("%w: v2 checkpoint at version %d of %s", ErrUnsupported, v, root)
		}
	}
	s := &Snapshot{loc: loc, version: version, files: map[fileKey]*AddFile{},
		removes: map[fileKey]*RemoveFile{}, txns: map[string]*Txn{}}
	start := int64(0)
	if cp := newestCheckpoint(lf, hint, version); cp != nil {
		acts, err := readCheckpoint(loc, *cp)
		if err != nil {
			return nil, err
		}
		if err := s.apply(acts); err != nil {
			return nil, fmt.Errorf("lake: version %d of %s: checkpoint %d: %w", version, root, cp.version, err)
		}
		start = cp.version + 1
	} else if len(lf.commits) == 0 || lf.commits[0] != 0 {
		return nil, fmt.Errorf("%w: version %d of %s: the log starts after version 0 and has no checkpoint at or below it",
			ErrVersionNotFound, version, root)
	}
	for v := start; v <= version; v++ {
		acts, err := readCommit(loc, v)
		if err != nil {
			return nil, err
		}
		if err := s.apply(acts); err != nil {
			if v == version {
				return nil, fmt.Errorf("lake: version %d of %s: %w", v, root, err)
			}
			return nil, fmt.Errorf("lake: version %d of %s: commit %d: %w", version, root, v, err)
		}
		if v == version {
			s.timestamp = commitTimestamp(loc, v, acts)
		}
	}
	if s.metadata == nil || s.protocol == nil {
		return nil, fmt.Errorf("lake: %s at version %d has no metaData or protocol", root, version)
	}
	if err := checkRead(s.protocol, s.metadata); err != nil {
		return nil, fmt.Errorf("lake: version %d of %s: %w", version, root, err)
	}
	s.schema, err = ParseSchemaString(s.metadata.SchemaString)
	if err != nil {
		return nil, fmt.Errorf("lake: version %d of %s: %w", version, root, err)
	}
	return s, nil
}

func (s *Snapshot) apply(acts []Action) error {
	for _, a := range acts {
		switch {
		case a.Protocol != nil:
			s.protocol = a.Protocol
			if err := checkRead(a.Protocol, nil); err != nil {
				return err
			}
		case a.MetaData != nil:
			s.metadata = a.MetaData
		case a.Add != nil:
			k, err := addKey(a.Add)
			if err != nil {
				return err
			}
			s.files[k] = a.Add
			delete(s.removes, k)
		case a.Remove != nil:
			k, err := removeKey(a.Remove)
			if err != nil {
				return err
			}
			delete(s.files, k)
			s.removes[k] = a.Remove
		case a.Txn != nil:
			s.txns[a.Txn.AppID] = a.Txn
		}
	}
	return nil
}

func commitTimestamp(loc *location, v int64, acts []Action) int64 {
	for _, a := range acts {
		if a.CommitInfo != nil && a.CommitInfo.Timestamp > 0 {
			return a.CommitInfo.Timestamp
		}
	}
	if st, err := loc.store.Stat(context.Background(), logName(commitName(v))); err == nil {
		return st.ModTime.UnixMilli()
	}
	return 0
}

type lastCheckpoint struct {
	Version int64 `json:"version"`
	Size    int64 `json:"size"`
	Parts   *int  `json:"parts,omitempty"`
}

// readLastCheckpoint returns the _last_checkpoint hint, nil when there is
// none or it cannot be read or parsed: the hint only saves listing and
// replay, the log alone is the truth.
func readLastCheckpoint(loc *location) *lastCheckpoint {
	b, err := loc.store.Read(context.Background(), logName("_last_checkpoint"))
	if err != nil {
		return nil
	}
	var lc lastCheckpoint
	if json.Unmarshal(b, &lc) != nil || lc.Version < 0 {
		return nil
	}
	return &lc
}

// listForSnapshot lists the log entries a snapshot at version (-1: the
// latest) needs. In object storage, when _last_checkpoint names a
// checkpoint at or below version, the listing starts at it (the keys of
// older versions are not needed: Spark's Delta log reader lists the same
// way); otherwise, and on local disk, the whole log is listed.
func listForSnapshot(loc *location, hint *lastCheckpoint, version int64) (*logFiles, error) {
	if !loc.local && hint != nil && hint.Version > 0 && (version < 0 || hint.Version <= version) {
		lf, err := listLogFrom(loc, hint.Version)
		if err != nil {
			return nil, err
		}
		if hint.at(lf) != nil {
			return lf, nil
		}
		// The checkpoint the hint names is not there (or incomplete):
		// list everything and find another.
	}
	return listLog(loc)
}

// at returns the complete checkpoint of lf the hint names, nil if lf has
// none.
func (lc *lastCheckpoint) at(lf *logFiles) *checkpoint {
	for _, cp := range lf.checkpoints[lc.Version] {
		if lc.Parts == nil && len(cp.parts) == 1 || lc.Parts != nil && *lc.Parts == len(cp.parts) {
			c := cp
			return &c
		}
	}
	return nil
}

// newestCheckpoint returns the newest complete checkpoint at or below
// version, preferring the one _last_checkpoint (hint, may be nil) names.
func newestCheckpoint(lf *logFiles, hint *lastCheckpoint, version int64) *checkpoint {
	// Commits after the checkpoint must all be listed for replay.
	if hint != nil && hint.Version <= version && commitsFrom(lf, hint.Version+1, version) {
		if cp := hint.at(lf); cp != nil {
			return cp
		}
	}
	best := int64(-1)
	for v := range lf.checkpoints {
		if v <= version && v > best && commitsFrom(lf, v+1, version) {
			best = v
		}
	}
	if best < 0 {
		return nil
	}
	c := lf.checkpoints[best][0]
	return &c
}

// commitsFrom reports whether commits lo..hi are all present.
func commitsFrom(lf *logFiles, lo, hi int64) bool {
	i := sort.Search(len(lf.commits), func(i int) bool { return lf.commits[i] >= lo })
	for v := lo; v <= hi; v++ {
		if i >= len(lf.commits) || lf.commits[i] != v {
			return false
		}
		i++
	}
	return true
}
