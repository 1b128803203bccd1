package state

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"
	"github.com/klauspost/compress/zstd"
	"github.com/millrace/millrace/storage"
)

// The durable copy on object storage (Options.Remote): see "Durable copy
// on object storage" in doc.go for the protocol and the crash argument.

// ErrAhead is returned by Open when the local working copy has committed a
// version its durable copy on object storage does not hold.
var ErrAhead = errors.New("local state store ahead of its durable copy")

// ErrRemoteGap is returned by Open when the durable copy lacks a delta (and
// a snapshot to skip it) needed to restore the latest version.
var ErrRemoteGap = errors.New("state durable copy incomplete")

// DefaultSnapshotEvery is how many versions a store with a durable copy
// commits between two uploaded snapshots (Spark's minDeltasForSnapshot).
const DefaultSnapshotEvery = 10

// Names of the durable copy's objects, as Spark's state store names its
// files: <version>.delta and <version>.snapshot.
const (
	deltaSuffix    = ".delta"
	snapshotSuffix = ".snapshot"
)

// objectPath names an object of the durable copy in messages.
func objectPath(st storage.Store, name string) string {
	return strings.TrimSuffix(st.Location(), "/") + "/" + name
}

func deltaName(v int64) string    { return strconv.FormatInt(v, 10) + deltaSuffix }
func snapshotName(v int64) string { return strconv.FormatInt(v, 10) + snapshotSuffix }

// fileMagic starts every object of the durable copy; a kind byte ('d'
// delta, 's' snapshot) and the version (8 bytes big endian) follow, then
// the zstd-compressed payload. A delta's payload is the Pebble batch the
// commit applied (Pebble's WAL record format, which Pebble replays across
// versions); a snapshot's is every key of the store as uvarint-length-
// prefixed key and value pairs.
var fileMagic = []byte("MRSTATE1")

const fileHeaderLen = 8 + 1 + 8

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
)

// codecs returns the shared zstd encoder and decoder; EncodeAll and
// DecodeAll are safe for concurrent use.
func codecs() (*zstd.Encoder, *zstd.Decoder) {
	zstdOnce.Do(func() {
		zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
		zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	})
	return zstdEnc, zstdDec
}

func encodeFile(kind byte, v int64, payload []byte) []byte {
	enc, _ := codecs()
	out := make([]byte, 0, fileHeaderLen+len(payload)/2+64)
	out = append(out, fileMagic...)
	out = append(out, kind)
	out = binary.BigEndian.AppendUint64(out, uint64(v))
	return enc.EncodeAll(payload, out)
}

func decodeFile(kind byte, v int64, data []byte) ([]byte, error) {
	if len(data) < fileHeaderLen || !bytes.Equal(data[:len(fileMagic)], fileMagic) {
		return nil, errors.New("not a Millrace state file (bad header)")
	}
	if data[len(fileMagic)] != kind {
		return nil, fmt.Errorf("file kind %q, want %q", data[len(fileMagic)], kind)
	}
	if got := int64(binary.BigEndian.Uint64(data[len(fileMagic)+1:])); got != v {
		return nil, fmt.Errorf("file records version %d, its name says %d", got, v)
	}
	_, dec := codecs()
	out, err := dec.DecodeAll(data[fileHeaderLen:], nil)
	if err != nil {
		return nil, fmt.Errorf("decompress: %w", err)
	}
	return out, nil
}

// remoteIndex is what the durable copy holds: the versions of its deltas
// and snapshots, each sorted.
type remoteIndex struct {
	deltas, snaps []int64
}

func listRemote(ctx context.Context, st storage.Store) (remoteIndex, error) {
	objs, err := st.List(ctx, "")
	if err != nil {
		return remoteIndex{}, fmt.Errorf("state: list the durable copy %s: %w", st.Location(), err)
	}
	var idx remoteIndex
	for _, o := range objs {
		if n, ok := strings.CutSuffix(o.Name, deltaSuffix); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 && strconv.FormatInt(v, 10) == n {
				idx.deltas = append(idx.deltas, v)
			}
		} else if n, ok := strings.CutSuffix(o.Name, snapshotSuffix); ok {
			if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 && strconv.FormatInt(v, 10) == n {
				idx.snaps = append(idx.snaps, v)
			}
		}
	}
	sortInts(idx.deltas)
	sortInts(idx.snaps)
	return idx, nil
}

func sortInts(s []int64) { sort.Slice(s, func(i, j int) bool { return s[i] < s[j] }) }

// version is the latest version the durable copy holds, -1 if none.
func (x remoteIndex) version() int64 {
	v := int64(-1)
	if n := len(x.deltas); n > 0 {
		v = x.deltas[n-1]
	}
	if n := len(x.snaps); n > 0 {
		v = max(v, x.snaps[n-1])
	}
	return v
}

// hasDeltas reports whether every delta of versions lo..hi is present.
func (x remoteIndex) hasDeltas(lo, hi int64) bool {
	if lo > hi {
		return true
	}
	i := sort.Search(len(x.deltas), func(i int) bool { return x.deltas[i] >= lo })
	n := hi - lo + 1
	return int64(len(x.deltas)-i) >= n && x.deltas[i] == lo && x.deltas[i+int(n)-1] == hi
}

// snapAtMost is the latest snapshot version <= v, -1 if none.
func (x remoteIndex) snapAtMost(v int64) int64 {
	i := sort.Search(len(x.snaps), func(i int) bool { return x.snaps[i] > v })
	if i == 0 {
		return -1
	}
	return x.snaps[i-1]
}

func (x remoteIndex) String() string {
	d := "none"
	if n := len(x.deltas); n > 0 {
		d = fmt.Sprintf("%d..%d (%d files)", x.deltas[0], x.deltas[n-1], n)
	}
	return fmt.Sprintf("deltas %s, snapshots %v", d, x.snaps)
}

// remoteCopy is an open store's durable copy.
type remoteCopy struct {
	st    storage.Store
	every int64

	mu  sync.Mutex // guards idx (Commit and PurgeRemote may race)
	idx remoteIndex
}

// openWithRemote opens the local working copy in dir and brings it to the
// durable copy's version: a missing or lagging local copy is restored from
// the latest snapshot and the deltas after it (or, when few, by replaying
// the deltas it lacks); one ahead of the durable copy is ErrAhead.
func openWithRemote(dir string, opts Options) (*Store, error) {
	ctx := context.Background()
	loc := opts.Remote.Location()
	idx, err := listRemote(ctx, opts.Remote)
	if err != nil {
		return nil, err
	}
	lo := opts
	lo.MustExist = false // the durable copy decides what must exist
	s, err := openLocal(dir, lo)
	if errors.Is(err, ErrWrongQuery) {
		// The work directory is only a cache of the checkpoint at this
		// location: one of another query is left from a checkpoint that
		// was deleted and started again. The durable copy decides.
		logTo(dir, "the local working copy belongs to another query (a deleted checkpoint at %s): replacing it", loc)
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("state: %s: remove the stale local copy of another query: %w", dir, err)
		}
		s, err = openLocal(dir, lo)
	}
	if err != nil {
		return nil, err
	}
	local, remote := s.version, idx.version()
	switch {
	case local > remote:
		s.Close()
		return nil, fmt.Errorf("state: the local state store %s is at batch %d but the checkpoint's durable copy %s "+
			"is at batch %d (%s): the local directory is not from this checkpoint's history, or the durable copy was "+
			"deleted. Delete the local directory %s to restore the state from %s; if the durable copy was deleted, "+
			"restore it from a backup or delete the whole checkpoint to start the query from scratch: %w",
			dir, local, loc, remote, idx, dir, loc, ErrAhead)
	case local < remote:
		if s, err = s.restore(ctx, lo, idx); err != nil {
			return nil, err
		}
	}
	if s.version < 0 && opts.MustExist {
		s.Close()
		return nil, fmt.Errorf("state: neither the local state store %s nor the checkpoint's durable copy %s holds "+
			"any state, but the checkpoint records committed batches: restore %s from a backup, or delete the whole "+
			"checkpoint to start the query from scratch: %w", dir, loc, loc, ErrMissing)
	}
	every := int64(opts.SnapshotEvery)
	if every <= 0 {
		every = DefaultSnapshotEvery
	}
	s.remote = &remoteCopy{st: opts.Remote, every: every, idx: idx}
	return s, nil
}

// restore brings s (at a version below the durable copy's) to the durable
// copy's latest version, returning the reopened store.
func (s *Store) restore(ctx context.Context, opts Options, idx remoteIndex) (*Store, error) {
	dir, loc := s.dir, opts.Remote.Location()
	local, target := s.version, idx.version()
	snap := idx.snapAtMost(target)
	replay := idx.hasDeltas(local+1, target)
	fromSnap := snap > local && idx.hasDeltas(snap+1, target)
	if !replay && !fromSnap {
		s.Close()
		return nil, fmt.Errorf("state: cannot restore the state store %s to batch %d from the checkpoint's durable "+
			"copy %s: it holds %s, so a delta after batch %d is missing and no snapshot skips it: the remote state "+
			"files were deleted or damaged; restore them from a backup, or delete the whole checkpoint to start the "+
			"query from scratch: %w", dir, target, loc, idx, max(local, snap), ErrRemoteGap)
	}
	// Replaying a few deltas beats reading a whole snapshot. A restore
	// starts from an empty directory when it reads a snapshot or when the
	// local store has no version (new, or a snapshot restore a crash cut
	// short: its rows are there without their version record), so that
	// nothing of a half-done restore or an older history remains.
	useSnap := fromSnap && (!replay || target-local > DefaultSnapshotEvery)
	if useSnap || local < 0 {
		s.Close()
		if err := os.RemoveAll(dir); err != nil {
			return nil, fmt.Errorf("state: restore %s from %s: remove the old local copy: %w", dir, loc, err)
		}
		var err error
		if s, err = openLocal(dir, opts); err != nil {
			return nil, err
		}
	}
	if useSnap {
		if err := s.applySnapshot(ctx, opts.Remote, snap); err != nil {
			s.Close()
			return nil, err
		}
		local = snap
	}
	for v := local + 1; v <= target; v++ {
		if err := s.applyDelta(ctx, opts.Remote, v); err != nil {
			s.Close()
			return nil, err
		}
	}
	// Reopen: load reads the restored version, query id and counts.
	s.Close()
	return openLocal(dir, opts)
}

// applyDelta replays the delta of version v onto the store, which is at v-1.
func (s *Store) applyDelta(ctx context.Context, st storage.Store, v int64) error {
	name := deltaName(v)
	data, err := st.Read(ctx, name)
	if err != nil {
		return fmt.Errorf("state: restore %s: %w", s.dir, err)
	}
	repr, err := decodeFile('d', v, data)
	if err != nil {
		return fmt.Errorf("state: restore %s: %s is damaged: %v: restore it from a backup: %w",
			s.dir, objectPath(st, name), err, ErrRemoteGap)
	}
	b := s.db.NewBatch()
	defer b.Close()
	if err := setRepr(b, repr); err != nil {
		return fmt.Errorf("state: restore %s: %s is damaged: %v: %w", s.dir, objectPath(st, name), err, ErrRemoteGap)
	}
	return s.health.guard(fmt.Sprintf("restore version %d", v), func() error { return s.db.Apply(b, pebble.Sync) })
}

// setRepr loads a batch's bytes into b. Pebble's SetRepr decodes the
// records and indexes out of range on malformed ones (a framed, checksummed
// delta that holds no batch: FuzzRemoteFiles); that panic becomes an error.
func setRepr(b *pebble.Batch, repr []byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a Pebble batch (%v)", r)
		}
	}()
	return b.SetRepr(repr)
}

// applySnapshot writes every key of snapshot v into the (empty) store, the
// version record last, so that a crash midway leaves a store at version -1
// that the next open restores again from scratch.
func (s *Store) applySnapshot(ctx context.Context, st storage.Store, v int64) error {
	name := snapshotName(v)
	data, err := st.Read(ctx, name)
	if err != nil {
		return fmt.Errorf("state: restore %s: %w", s.dir, err)
	}
	payload, err := decodeFile('s', v, data)
	damaged := func(err error) error {
		return fmt.Errorf("state: restore %s: %s is damaged: %v: delete it to restore from older files, or "+
			"restore it from a backup: %w", s.dir, objectPath(st, name), err, ErrRemoteGap)
	}
	if err != nil {
		return damaged(err)
	}
	var version []byte
	b := s.db.NewBatch()
	for len(payload) > 0 {
		k, rest, ok := readUvarintBytes(payload)
		if !ok {
			b.Close()
			return damaged(errors.New("truncated key"))
		}
		val, rest, ok := readUvarintBytes(rest)
		if !ok {
			b.Close()
			return damaged(errors.New("truncated value"))
		}
		payload = rest
		if bytes.Equal(k, keyVersion) {
			version = val
			continue
		}
		_ = b.Set(k, val, nil)
		if b.Len() >= 32<<20 {
			if err := s.health.guard("restore snapshot", func() error { return s.db.Apply(b, pebble.NoSync) }); err != nil {
				b.Close()
				return err
			}
			b.Close()
			b = s.db.NewBatch()
		}
	}
	defer b.Close()
	if len(version) != 8 || int64(binary.BigEndian.Uint64(version)) != v {
		return damaged(fmt.Errorf("its version record is %x, want %d", version, v))
	}
	_ = b.Set(keyVersion, version, nil)
	return s.health.guard("restore snapshot", func() error { return s.db.Apply(b, pebble.Sync) })
}

func readUvarintBytes(b []byte) (v, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// uploadDelta creates version v's delta, the Pebble batch repr about to be
// applied. It runs before the local commit: the durable copy is never
// behind the local one. If the object exists with the same bytes (a retried
// PUT whose first attempt landed) the upload stands; with other bytes
// another writer committed v: ErrVersionCommitted.
func (r *remoteCopy) uploadDelta(ctx context.Context, v int64, repr []byte) error {
	data := encodeFile('d', v, repr)
	name := deltaName(v)
	err := r.st.WriteNew(ctx, name, data)
	if errors.Is(err, storage.ErrExists) {
		have, rerr := r.st.Read(ctx, name)
		switch {
		case rerr != nil:
			return fmt.Errorf("state: upload version %d: %s exists and cannot be read back to compare: %w",
				v, objectPath(r.st, name), rerr)
		case bytes.Equal(have, data):
			err = nil
		default:
			return fmt.Errorf("state: version %d is already in the checkpoint's durable copy %s, written by "+
				"another process: is another query running on this checkpoint?: %w", v, objectPath(r.st, name), ErrVersionCommitted)
		}
	}
	if err != nil {
		return fmt.Errorf("state: upload version %d: %w", v, err)
	}
	r.mu.Lock()
	r.idx.deltas = append(r.idx.deltas, v)
	r.mu.Unlock()
	return nil
}

// snapshotDue reports whether version v should upload a snapshot: every
// versions since the last one (Spark's minDeltasForSnapshot).
func (r *remoteCopy) snapshotDue(v int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := int64(-1)
	if n := len(r.idx.snaps); n > 0 {
		last = r.idx.snaps[n-1]
	}
	return v-last >= r.every
}

// uploadSnapshot uploads every key of the store as version v; the store is
// at v and no Txn can commit meanwhile (Commit calls it). A snapshot at v
// is a function of deltas 0..v, each written once, so one already there
// holds the same rows and stands.
func (s *Store) uploadSnapshot(ctx context.Context, v int64) error {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return err
	}
	var buf []byte
	for it.First(); it.Valid(); it.Next() {
		buf = binary.AppendUvarint(buf, uint64(len(it.Key())))
		buf = append(buf, it.Key()...)
		val := it.Value()
		buf = binary.AppendUvarint(buf, uint64(len(val)))
		buf = append(buf, val...)
	}
	if err := it.Close(); err != nil {
		return err
	}
	r := s.remote
	if err := r.st.WriteNew(ctx, snapshotName(v), encodeFile('s', v, buf)); err != nil && !errors.Is(err, storage.ErrExists) {
		return err
	}
	r.mu.Lock()
	r.idx.snaps = append(r.idx.snaps, v)
	r.mu.Unlock()
	return nil
}

// PurgeRemote deletes the durable copy's files that no restore to a version
// >= oldest needs: the deltas up to the latest snapshot <= oldest and the
// snapshots before it. The driver calls it with the checkpoint's retention
// (the oldest batch whose offsets and commit it keeps). Files go oldest
// first; a crash midway leaves only extra files, which restore skips.
func (s *Store) PurgeRemote(oldest int64) error {
	r := s.remote
	if r == nil {
		return nil
	}
	r.mu.Lock()
	keep := r.idx.snapAtMost(oldest)
	var names []string
	for _, v := range r.idx.deltas {
		if v <= keep {
			names = append(names, deltaName(v))
		}
	}
	for _, v := range r.idx.snaps {
		if v < keep {
			names = append(names, snapshotName(v))
		}
	}
	r.mu.Unlock()
	if len(names) == 0 {
		return nil
	}
	for _, n := range names {
		if err := r.st.Delete(context.Background(), n); err != nil {
			return fmt.Errorf("state: purge the durable copy %s: %w", r.st.Location(), err)
		}
	}
	// Versions added since are all above keep: filtering drops exactly the
	// purged ones.
	r.mu.Lock()
	r.idx.deltas = slices.DeleteFunc(r.idx.deltas, func(v int64) bool { return v <= keep })
	r.idx.snaps = slices.DeleteFunc(r.idx.snaps, func(v int64) bool { return v < keep })
	r.mu.Unlock()
	return nil
}

// RemoteSummary describes a durable copy on object storage for inspection.
type RemoteSummary struct {
	Location string `json:"location"`
	// Version is the latest version (batch id) the copy restores, -1 if none.
	Version   int64   `json:"version"`
	Deltas    []int64 `json:"deltas"`
	Snapshots []int64 `json:"snapshots"`
}

// DescribeRemote lists the durable copy at st without changing it.
func DescribeRemote(ctx context.Context, st storage.Store) (RemoteSummary, error) {
	idx, err := listRemote(ctx, st)
	if err != nil {
		return RemoteSummary{}, err
	}
	return RemoteSummary{Location: st.Location(), Version: idx.version(),
		Deltas: append([]int64{}, idx.deltas...), Snapshots: append([]int64{}, idx.snaps...)}, nil
}
