package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/millrace/millrace/internal/fsutil"
	"github.com/millrace/millrace/storage"
)

// ErrWrongQuery is returned by Open when the store was created by another query.
var ErrWrongQuery = errors.New("state store belongs to another query")

// ErrMissing is returned by Open when Options.MustExist is set and no store
// exists in the directory, and by Inspect when the directory holds no store.
var ErrMissing = errors.New("state store missing")

// ErrVersionCommitted is returned by Txn.Commit when the transaction's
// version is already committed: a state version is never applied twice.
var ErrVersionCommitted = errors.New("state version already committed")

// ErrVersionGap is returned by Txn.Commit when the transaction's version is
// not the next one after the store's committed version.
var ErrVersionGap = errors.New("state version out of sequence")

// ErrInUse is returned by Open when another open store (a running query)
// holds the store's lock.
var ErrInUse = errors.New("state store in use")

// ErrClosed is returned by operations on a closed store.
var ErrClosed = errors.New("state store closed")

// Options configures Open.
type Options struct {
	// QueryID is the id of the query owning the store (the checkpoint
	// metadata id). It is recorded on first open; later opens must match.
	// It may be empty only with ReadOnly.
	QueryID string
	// MustExist makes Open fail with ErrMissing instead of creating an empty
	// store. The driver sets it when the checkpoint's commit log records
	// committed batches, so lost state is never silently replaced by nothing.
	MustExist bool
	// ReadOnly opens the store for reading (inspection tools). Begin fails.
	ReadOnly bool
	// CacheSize is Pebble's block cache size in bytes (default 32 MiB).
	CacheSize int64
	// MemTableSize is Pebble's memtable size in bytes (default 32 MiB).
	MemTableSize uint64
	// NoRowCount turns off exact row/byte accounting. With it on (the
	// default), every Put and Delete looks up the key's previous value to
	// keep NumRowsTotal exact, as Spark's RocksDB store does by default
	// (spark.sql.streaming.stateStore.rocksdb.trackTotalNumberOfRows);
	// turning it off makes commits faster and NumRowsTotal is then -1.
	NoRowCount bool
	// Remote, when set, is the store's durable copy on object storage (the
	// checkpoint's <location>/state): each Commit uploads its version's
	// delta there before committing locally, and every SnapshotEvery
	// versions a snapshot of the whole store; Open restores a missing or
	// lagging local copy from it (remote.go, "Durable copy on object
	// storage" in doc.go). Ignored with ReadOnly.
	Remote storage.Store
	// SnapshotEvery is how many versions come between two snapshots of
	// the durable copy (default DefaultSnapshotEvery, as Spark's
	// minDeltasForSnapshot).
	SnapshotEvery int
	// AfterUpload, if set, runs after a commit's delta is in the durable
	// copy and before the local commit; an error fails the commit there
	// (fault injection: the driver's StepStateUploaded).
	AfterUpload func(version int64) error

	fs vfs.FS // the filesystem (tests inject faults); nil: the OS's
}

// Store is a versioned, Pebble-backed key-value store addressed by
// (operator id, partition id, user key). Reads (Get, Scan) see the last
// committed version and are safe for concurrent use; one Txn at a time
// writes the next version.
type Store struct {
	dir    string
	opts   Options
	db     *pebble.DB
	health *health
	remote *remoteCopy // the durable copy on object storage, nil if none

	mu       sync.Mutex
	closed   bool
	version  int64
	txnOpen  bool
	counts   map[partID]*partCounts // exact when tracking, nil otherwise
	last     map[partID]*partChange // changes of the last commit
	commitMs int64                  // duration of the last commit
	// filesDirty: a commit wrote changelog files and did not finish; the
	// next one removes them first (files.go).
	filesDirty bool
	// oldFormat: the store's layout record is an older readable version;
	// the next commit writes formatVersion.
	oldFormat bool
}

// partCounts is the live size of one partition.
type partCounts struct {
	rows, bytes int64
}

// partChange is what the last commit did to one partition.
type partChange struct {
	updated, removed int64
}

// Open opens (or creates) the store in dir. With Options.Remote it first
// brings the local copy to the durable copy's version (see Options.Remote).
func Open(dir string, opts Options) (*Store, error) {
	if opts.Remote != nil && !opts.ReadOnly {
		return openWithRemote(dir, opts)
	}
	return openLocal(dir, opts)
}

// openLocal opens (or creates) the local Pebble copy in dir.
func openLocal(dir string, opts Options) (*Store, error) {
	if opts.QueryID == "" && !opts.ReadOnly {
		return nil, fmt.Errorf("state: open %s: empty query id", dir)
	}
	mustExist := opts.MustExist || opts.ReadOnly
	if mustExist {
		if _, err := os.Stat(dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, missingError(dir, opts.ReadOnly && !opts.MustExist)
			}
			return nil, fmt.Errorf("state: open %s: %w", dir, err)
		}
	}
	if v, ok := abandonedDirs.Load(dir); ok {
		return nil, fmt.Errorf("state: open %s: an earlier open of this store in this process met a full disk "+
			"and is still waiting for space: %w", dir, v.(*health).sticky())
	}
	h := newHealth(dir)
	po := &pebble.Options{
		ErrorIfNotExists: mustExist,
		ReadOnly:         opts.ReadOnly,
		MemTableSize:     32 << 20,
		Logger:           logger{h},
		EventListener:    h.listener(),
		FS:               opts.fs,
	}
	if opts.MemTableSize > 0 {
		po.MemTableSize = opts.MemTableSize
	}
	cacheSize := int64(32 << 20)
	if opts.CacheSize > 0 {
		cacheSize = opts.CacheSize
	}
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref() // the DB holds its own reference
	po.Cache = cache
	db, err := openPebble(dir, po, h)
	if err != nil {
		if errors.Is(err, pebble.ErrDBDoesNotExist) {
			return nil, missingError(dir, opts.ReadOnly && !opts.MustExist)
		}
		return nil, openError(dir, err)
	}
	s := &Store{dir: dir, opts: opts, db: db, health: h, version: -1, last: map[partID]*partChange{}}
	if err := s.load(); err != nil {
		h.close()
		db.Close()
		return nil, err
	}
	if !opts.ReadOnly {
		if err := s.removeUncommittedFiles(); err != nil {
			h.close()
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// abandoned counts the Pebble opens Open gave up on (a full disk) that are
// still retrying; tests wait for them. abandonedDirs maps their
// directories to their health: until they end, Pebble's lock is held in
// this process, and another Open of the directory says why.
var (
	abandoned     sync.WaitGroup
	abandonedDirs sync.Map
)

// openPebble opens the DB, but returns as soon as the store's health
// records a full disk: Pebble's Open waits for the flush of the replayed
// WAL, which it retries forever. The abandoned open keeps retrying (paced)
// and closes the DB if it ever succeeds; the process normally exits first.
func openPebble(dir string, po *pebble.Options, h *health) (*pebble.DB, error) {
	type result struct {
		db  *pebble.DB
		err error
	}
	var mu sync.Mutex
	gaveUp := false
	done := make(chan result, 1)
	abandoned.Add(1)
	go func() {
		defer abandoned.Done()
		var db *pebble.DB
		err, _ := h.call("open", func() (err error) {
			db, err = pebble.Open(dir, po)
			return err
		})
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			if db != nil {
				h.close()
				_ = db.Close()
			}
			abandonedDirs.Delete(dir)
			return
		}
		done <- result{db, err}
	}()
	select {
	case r := <-done:
		return r.db, r.err
	case <-h.failed:
		mu.Lock()
		defer mu.Unlock()
		select {
		case r := <-done: // it finished meanwhile: still a store on a full disk
			if r.db != nil {
				h.close()
				_ = r.db.Close()
			}
		default:
			gaveUp = true
			abandonedDirs.Store(dir, h)
		}
		return nil, h.sticky()
	}
}

// openError describes a failed open with the hint that fits its cause.
func openError(dir string, err error) error {
	switch {
	case errors.Is(err, ErrDiskFull):
		return err
	case fsutil.IsDiskFull(err):
		return diskFullError(dir, "open", err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("state: open %s: the checkpoint is on a read-only filesystem, and Pebble opens its LOCK "+
			"file for writing even to read: copy the checkpoint to a writable place to inspect it: %w", dir, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("state: open %s: permission denied, and Pebble opens its LOCK file for writing even "+
			"to read: run as a user who may write the checkpoint, or copy it: %w", dir, err)
	case errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK) ||
		strings.Contains(err.Error(), "lock held by current process"):
		return fmt.Errorf("state: open %s: the store is in use (is a running query using it?): %w: %w", dir, err, ErrInUse)
	}
	return fmt.Errorf("state: open %s: %w", dir, err)
}

func missingError(dir string, readOnly bool) error {
	if readOnly {
		return fmt.Errorf("state: no state store in %s: %w", dir, ErrMissing)
	}
	return fmt.Errorf("state: store %s does not exist but the checkpoint records committed batches: "+
		"restore the state directory from a backup, or delete the whole checkpoint directory to start "+
		"the query from scratch: %w", dir, ErrMissing)
}

// load reads the metadata records: query id, format, version, row counts.
func (s *Store) load() error {
	qid, ok, err := s.getRaw(keyQueryID)
	if err != nil {
		return err
	}
	switch {
	case !ok && (s.opts.MustExist || s.opts.ReadOnly):
		return missingError(s.dir, s.opts.ReadOnly && !s.opts.MustExist)
	case !ok:
		b := s.db.NewBatch()
		b.Set(keyQueryID, []byte(s.opts.QueryID), nil)
		b.Set(keyFormat, []byte(formatVersion), nil)
		b.Set(keyCountsValid, nil, nil)
		err := s.health.guard("record query id", func() error { return b.Commit(pebble.Sync) })
		b.Close()
		if err != nil {
			return err
		}
	case s.opts.QueryID != "" && string(qid) != s.opts.QueryID:
		return fmt.Errorf("state: store %s belongs to query %s, not %s: point the query at its own "+
			"checkpoint directory: %w", s.dir, qid, s.opts.QueryID, ErrWrongQuery)
	}
	if f, ok, err := s.getRaw(keyFormat); err != nil {
		return err
	} else if ok && !readableFormats[string(f)] {
		return fmt.Errorf("state: store %s has layout version %q; this Millrace reads versions 1 to %s only: upgrade Millrace",
			s.dir, f, formatVersion)
	} else if ok && string(f) != formatVersion {
		s.oldFormat = true // the next commit marks it
	}
	v, ok, err := s.getRaw(keyVersion)
	if err != nil {
		return err
	}
	if ok {
		if len(v) != 8 {
			return fmt.Errorf("state: store %s: version record is %d bytes, want 8: the store is corrupt", s.dir, len(v))
		}
		s.version = int64(binary.BigEndian.Uint64(v))
	}
	if s.opts.NoRowCount {
		return nil
	}
	_, valid, err := s.getRaw(keyCountsValid)
	if err != nil {
		return err
	}
	if valid {
		s.counts, err = s.readCounts()
	} else {
		s.counts, err = s.countByScan()
	}
	return err
}

// getRaw reads one key of the committed state, copying the value.
func (s *Store) getRaw(key []byte) ([]byte, bool, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("state: %s: get: %w", s.dir, err)
	}
	out := append([]byte{}, v...)
	closer.Close()
	return out, true, nil
}

// readCounts loads the persisted per-partition row counts.
func (s *Store) readCounts() (map[partID]*partCounts, error) {
	counts := map[partID]*partCounts{}
	lo := keyRowsPrefix
	hi := append(append([]byte{}, keyRowsPrefix...), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return nil, fmt.Errorf("state: %s: %w", s.dir, err)
	}
	defer it.Close()
	for it.First(); it.Valid(); it.Next() {
		k, v := it.Key(), it.Value()
		if len(k) != len(keyRowsPrefix)+prefixLen || len(v) != 16 {
			return nil, fmt.Errorf("state: store %s: bad row count record %x: the store is corrupt", s.dir, k)
		}
		id := partID(binary.BigEndian.Uint32(k[len(keyRowsPrefix):]))
		counts[id] = &partCounts{
			rows:  int64(binary.BigEndian.Uint64(v)),
			bytes: int64(binary.BigEndian.Uint64(v[8:])),
		}
	}
	return counts, it.Error()
}

// countByScan counts rows and bytes of every partition by reading all data.
func (s *Store) countByScan() (map[partID]*partCounts, error) {
	counts := map[partID]*partCounts{}
	it, err := s.db.NewIter(&pebble.IterOptions{UpperBound: metaPrefix})
	if err != nil {
		return nil, fmt.Errorf("state: %s: %w", s.dir, err)
	}
	defer it.Close()
	var cur *partCounts
	curID := partID(0)
	for it.First(); it.Valid(); it.Next() {
		k := it.Key()
		if len(k) < prefixLen {
			return nil, fmt.Errorf("state: store %s: key %x shorter than its prefix: the store is corrupt", s.dir, k)
		}
		id := partID(binary.BigEndian.Uint32(k))
		if cur == nil || id != curID {
			cur, curID = &partCounts{}, id
			counts[id] = cur
		}
		cur.rows++
		cur.bytes += int64(len(k) + len(it.Value()))
	}
	return counts, it.Error()
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// QueryID returns the query id recorded in the store.
func (s *Store) QueryID() string {
	if q, ok, err := s.getRaw(keyQueryID); err == nil && ok {
		return string(q)
	}
	return s.opts.QueryID
}

// Version returns the last committed version (batch id), or -1 if none.
func (s *Store) Version() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

// Get returns a copy of the committed value of key in (op, part).
func (s *Store) Get(op, part int, key []byte) ([]byte, bool, error) {
	if err := checkAddr(op, part); err != nil {
		return nil, false, err
	}
	if s.isClosed() {
		return nil, false, ErrClosed
	}
	k := append(appendPrefix(make([]byte, 0, prefixLen+len(key)), makePartID(op, part)), key...)
	return s.getRaw(k)
}

// Scan calls fn for every committed key of (op, part) in bytewise key order.
// key and val are valid only during the call. An error from fn stops the scan
// and is returned.
func (s *Store) Scan(op, part int, fn func(key, val []byte) error) error {
	return s.ScanRange(op, part, nil, nil, fn)
}

// ScanRange is Scan restricted to user keys in [lo, hi). A nil lo starts at
// the first key, a nil hi runs to the last.
func (s *Store) ScanRange(op, part int, lo, hi []byte, fn func(key, val []byte) error) error {
	if err := checkAddr(op, part); err != nil {
		return err
	}
	if s.isClosed() {
		return ErrClosed
	}
	klo, khi := partBounds(makePartID(op, part), lo, hi)
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: klo, UpperBound: khi})
	if err != nil {
		return fmt.Errorf("state: %s: scan op %d part %d: %w", s.dir, op, part, err)
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key()[prefixLen:], it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("state: %s: scan op %d part %d: %w", s.dir, op, part, err)
	}
	return nil
}

// Partitions returns the (operator, partition) pairs that hold rows, sorted.
// It is exact when row counting is on; otherwise it scans key prefixes.
func (s *Store) Partitions() ([][2]int, error) {
	var ids []partID
	s.mu.Lock()
	if s.counts != nil {
		for id, c := range s.counts {
			if c.rows > 0 {
				ids = append(ids, id)
			}
		}
	}
	s.mu.Unlock()
	if s.counts == nil {
		it, err := s.db.NewIter(&pebble.IterOptions{UpperBound: metaPrefix})
		if err != nil {
			return nil, err
		}
		for valid := it.First(); valid; {
			id := partID(binary.BigEndian.Uint32(it.Key()))
			ids = append(ids, id)
			valid = it.SeekGE(appendPrefix(nil, id+1))
		}
		if err := it.Close(); err != nil {
			return nil, err
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	out := make([][2]int, len(ids))
	for i, id := range ids {
		out[i] = [2]int{id.op(), id.part()}
	}
	return out, nil
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Close closes the store. An open Txn must be committed or aborted first.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.health.close()
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("state: close %s: %w", s.dir, err)
	}
	return nil
}

// now is the clock used to time commits (metrics only, never results).
var now = time.Now
