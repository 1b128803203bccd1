package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/millrace/millrace/state"
)

// Durable state is a changelog per state partition, the design of Spark's
// HDFS-backed state store: each batch writes one delta blob per partition
// it changed (the puts and deletes of its rows), and now and then a
// snapshot blob of all the partition's rows replaces the blobs before it.
// The hot state stays in the operators' vectorized hash tables; one write
// per partition instead of one per row is what lets commits keep up with
// them (a Pebble insert costs about a microsecond, a row of a blob a few
// nanoseconds).
//
// Where the blobs live depends on the store (state.Store.LocalFiles):
//
//   - A local store: in changelog files beside Pebble (state/files.go),
//     written once and synced before the Pebble batch that records the
//     batch id, instead of going through Pebble's WAL, memtable, flushes
//     and compactions. One file per operator and batch holds the blobs of
//     all its partitions (creating a file costs more than writing a small
//     blob): a "delta" file the deltas of the partitions the batch
//     changed, a "snapshot" file a snapshot of every partition. The
//     operator snapshots all its partitions at once, when the deltas since
//     the last snapshot weigh as much as it (snapshotPolicy), and the
//     committed snapshot drops the files before it. File content: a format
//     byte (changelogFormat), then per partition uvarint partition id,
//     uvarint blob length, blob. A batch's deltas under smallDeltaBytes
//     are Pebble rows (below) instead, in the batch's atomic commit; the
//     next snapshot deletes them.
//   - A store with a durable copy on object storage, and every local store
//     written before the files (the old layout, still read): as Pebble
//     rows under (operator, partition), committed in the same atomic batch
//     that records the batch id (which the durable copy uploads), each
//     partition snapshotting on its own:
//
//	'd' + batch id (8 bytes BE)   delta: the rows the batch put or deleted
//	's' + batch id                snapshot: every row as of the batch
//
// Either way the partition's row count and bytes are a Pebble row:
//
//	'm'                           the partition's row count and bytes
//
// A restore reads both places and takes per partition the latest snapshot
// and the deltas after it, so a local store of the old layout restarts;
// the first commit after that writes a snapshot file and deletes the rows.
//
// A row is (key, value) as the operator encodes it: the order-preserving
// group key, and the accumulator states (aggregation) or the expiry time
// (deduplication). A delta of an aggregation with integer keys puts its
// changed groups as one int-key block (changelog_intblock.go) instead of a
// row each: half the bytes or less, which are what a many-groups commit
// costs (encoding, the write into the page cache, the checksum). Deltas of
// a Millrace before the blocks hold rows only and are read as they are; a
// Millrace before them refuses a block ("row kind 3: written by a newer
// Millrace").

// changelogFormat is the first byte of a changelog file; a restore refuses
// other values (a file of a newer Millrace).
const changelogFormat = 1

// partChanges is what one state partition changed in the running batch:
// rows as key and value slices, or already encoded in a blob's row format
// (rows of them in body; the aggregation encodes its changes as it emits).
type partChanges struct {
	putKeys, putVals [][]byte
	delKeys          [][]byte
	rows             int
	body             []byte
	scratch          []byte // an int-key block's lengths column, reused (not part of the changes)
}

func (c *partChanges) empty() bool { return len(c.putKeys) == 0 && len(c.delKeys) == 0 && c.rows == 0 }

// take returns the changes collected and starts a new collection.
func (c *partChanges) take() partChanges {
	ch := *c
	ch.scratch = nil
	*c = partChanges{scratch: c.scratch}
	return ch
}

// snapshotPolicy decides when to write a snapshot. Snapshotting when the
// deltas since the last snapshot weigh as much as it keeps both costs near
// twice the deltas: commits write at most about twice their changes on
// average, and a restart reads at most about twice the state. At least
// MinDeltasForSnapshot deltas come between snapshots (Spark's
// minDeltasForSnapshot), and at most 100 times that, so that tiny deltas do
// not pile up for ever.
type snapshotPolicy struct {
	deltas     int
	deltaBytes int64
	snapBytes  int64
}

// changelogState is what a stage's durable state keeps between commits.
type changelogState struct {
	parts []snapshotPolicy // Pebble rows: each partition's policy
	files snapshotPolicy   // files: the operator's policy
	// pebbleRows: a local store holds blobs as Pebble rows (small deltas,
	// or the old layout's blobs); the next snapshot file deletes them.
	pebbleRows bool
	// snapNext: the next commit writes a snapshot file whatever the
	// policy says. A restore that found Pebble rows sets it, so a store of
	// the old layout moves to files at its first commit. Small deltas do
	// not: their rows wait for the policy's snapshot (before, they forced
	// one at the next commit, so a query with few groups wrote a snapshot
	// file every other batch).
	snapNext bool
	// spent holds the change bodies the last persist consumed: the state
	// commit returns them to bodyPool once their file is written.
	spent [][]byte
}

// bodyPool keeps the byte buffers of changed groups (partChanges.body)
// from one batch's state commit to the next batch's emit: with ~100K
// changed groups a batch they are megabytes, which Go's allocator would
// zero and fault in afresh every batch. A free list, not a sync.Pool: the
// GC, which runs every few batches under such a load, empties a Pool.
var bodyPool struct {
	sync.Mutex
	free [][]byte
}

// maxPooledBodies bounds bodyPool: a batch's partitions' bodies, twice.
const maxPooledBodies = 64

// newBody returns an empty buffer of at least size bytes' capacity.
func newBody(size int) []byte {
	bodyPool.Lock()
	defer bodyPool.Unlock()
	for i := len(bodyPool.free) - 1; i >= 0; i-- {
		if b := bodyPool.free[i]; cap(b) >= size {
			last := len(bodyPool.free) - 1
			bodyPool.free[i] = bodyPool.free[last]
			bodyPool.free[last] = nil
			bodyPool.free = bodyPool.free[:last]
			return b[:0]
		}
	}
	return make([]byte, 0, size)
}

// takeSpent returns the bodies the last persist consumed, for
// recycleBodies once the commit that writes them is done.
func (cs *changelogState) takeSpent() [][]byte {
	s := cs.spent
	cs.spent = nil
	return s
}

// recycleBodies returns change bodies that nothing references any more
// (their state commit has returned) to bodyPool.
func recycleBodies(bodies [][]byte) {
	bodyPool.Lock()
	defer bodyPool.Unlock()
	for _, b := range bodies {
		if cap(b) > 0 && len(bodyPool.free) < maxPooledBodies {
			bodyPool.free = append(bodyPool.free, b[:0])
		}
	}
}

func newChangelogState(n int) *changelogState {
	return &changelogState{parts: make([]snapshotPolicy, n)}
}

// DefaultMinDeltasForSnapshot is how many deltas a partition writes at
// least before a snapshot (Spark's minDeltasForSnapshot is 10 too).
const DefaultMinDeltasForSnapshot = 10

// minSnapshotBytes is the least snapshot size the policy counts with (tests
// lower it to snapshot often).
var minSnapshotBytes int64 = 1 << 20

func (s *snapshotPolicy) due(minDeltas int) bool {
	return s.deltas >= 100*minDeltas || (s.deltas >= minDeltas && s.deltaBytes >= max(s.snapBytes, minSnapshotBytes))
}

// snapshotter is implemented by stateful operators: the rows of one
// partition, and loading them back. Calls for distinct partitions may run
// concurrently.
type snapshotter interface {
	takeChanges(p int) partChanges
	snapshot(p int) (keys, vals [][]byte, err error)
	load(p int, keys, vals [][]byte) error
	partitionRows(p int) (rows, bytes int64)
}

func blobKey(kind byte, batch int64) []byte {
	return binary.BigEndian.AppendUint64([]byte{kind}, uint64(batch))
}

var partitionMetaKey = []byte{'m'}

// Kinds of changelog files.
const (
	deltaFile    = "delta"
	snapshotFile = "snapshot"
)

// persistChangelog writes batch's state changes of every partition into
// txn, the partitions in parallel (workers at most): as one changelog file
// if files, else as Pebble rows.
func persistChangelog(txn *state.Txn, files bool, op int, batch int64, st snapshotter, n int, cs *changelogState, minDeltas, workers int) error {
	if !files {
		return persistRows(txn, op, batch, st, n, cs.parts, minDeltas, workers)
	}
	changes := make([]partChanges, n)
	anyChange := false
	for p := range changes {
		changes[p] = st.takeChanges(p)
		anyChange = anyChange || !changes[p].empty()
		if changes[p].body != nil {
			cs.spent = append(cs.spent, changes[p].body)
		}
	}
	snap := cs.snapNext || (cs.files.due(minDeltas) && (anyChange || cs.files.deltas > 0))
	sections := make([][][]byte, n)
	err := parallel(context.Background(), n, workers, func(_ context.Context, p int) error {
		pt := txn.Part(op, p)
		if pt == nil {
			return nil // the Txn failed: Commit says why
		}
		switch {
		case snap:
			keys, vals, err := st.snapshot(p)
			if err != nil {
				return err
			}
			sections[p] = section(p, [][]byte{encodeBlob(keys, vals, nil)})
			if cs.pebbleRows {
				pt.DeleteRange(blobKey('d', 0), blobKey('d', math.MaxInt64))
				pt.DeleteRange(blobKey('s', 0), blobKey('s', math.MaxInt64))
			}
		case !changes[p].empty():
			sections[p] = section(p, encodeDelta(changes[p]))
		}
		rows, bytes := st.partitionRows(p)
		meta := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(rows)), uint64(bytes))
		pt.Put(partitionMetaKey, meta)
		return nil
	})
	if err != nil {
		return err
	}
	chunks := [][]byte{{changelogFormat}}
	size := int64(0)
	for _, sec := range sections {
		for _, c := range sec {
			size += int64(len(c))
		}
		chunks = append(chunks, sec...)
	}
	switch {
	case snap:
		txn.PutFile(op, snapshotFile, chunks...)
		txn.DropFilesBefore(op, batch)
		cs.files = snapshotPolicy{snapBytes: size}
		cs.pebbleRows, cs.snapNext = false, false
	case anyChange && size < smallDeltaBytes:
		// A small delta goes into the Pebble batch that records the
		// version, whose WAL is synced anyway: no file to create and
		// sync. The next snapshot (when the policy says) deletes the
		// rows; a restore before it reads them with the files.
		for p, sec := range sections {
			if len(sec) > 0 {
				txn.Put(op, p, blobKey('d', batch), bytes.Join(sec[1:], nil))
			}
		}
		cs.pebbleRows = true
		cs.files.deltas++
		cs.files.deltaBytes += size
	case anyChange:
		txn.PutFile(op, deltaFile, chunks...)
		cs.files.deltas++
		cs.files.deltaBytes += size
	}
	return nil
}

// smallDeltaBytes is the size under which a batch's deltas are Pebble rows
// rather than a changelog file: creating and syncing a file (and its
// directory) costs more than a small write to the WAL.
var smallDeltaBytes int64 = 256 << 10

// section returns the chunks of partition p's section of a changelog
// file: its header, then the blob's chunks.
func section(p int, blob [][]byte) [][]byte {
	size := 0
	for _, c := range blob {
		size += len(c)
	}
	head := binary.AppendUvarint(binary.AppendUvarint(make([]byte, 0, 2*binary.MaxVarintLen64), uint64(p)), uint64(size))
	return append([][]byte{head}, blob...)
}

// parseChangelogFile splits a changelog file into its partitions' blobs.
func parseChangelogFile(b []byte, n int) (map[int][]byte, error) {
	if len(b) == 0 || b[0] != changelogFormat {
		if len(b) > 0 && b[0] > changelogFormat {
			return nil, fmt.Errorf("changelog format %d: written by a newer Millrace; upgrade Millrace", b[0])
		}
		return nil, fmt.Errorf("corrupt changelog file: no format byte")
	}
	b = b[1:]
	out := map[int][]byte{}
	for len(b) > 0 {
		p, k := binary.Uvarint(b)
		if k <= 0 || p >= uint64(n) {
			return nil, fmt.Errorf("corrupt changelog file: bad partition id (the query has %d partitions)", n)
		}
		b = b[k:]
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, fmt.Errorf("corrupt changelog file: partition %d's blob runs past the end", p)
		}
		out[int(p)] = b[k : k+int(l)]
		b = b[k+int(l):]
	}
	return out, nil
}

// persistRows writes batch's changes as Pebble rows (the layout of a store
// with a durable copy on object storage), each partition snapshotting on
// its own.
func persistRows(txn *state.Txn, op int, batch int64, st snapshotter, n int, policy []snapshotPolicy, minDeltas, workers int) error {
	return parallel(context.Background(), n, workers, func(_ context.Context, p int) error {
		pt := txn.Part(op, p)
		if pt == nil {
			return nil // the Txn failed: Commit says why
		}
		ch := st.takeChanges(p)
		pol := &policy[p]
		switch {
		case pol.due(minDeltas) && (!ch.empty() || pol.deltas > 0):
			keys, vals, err := st.snapshot(p)
			if err != nil {
				return err
			}
			blob := encodeBlob(keys, vals, nil)
			pt.Put(blobKey('s', batch), blob)
			pt.DeleteRange(blobKey('d', 0), blobKey('d', batch+1))
			pt.DeleteRange(blobKey('s', 0), blobKey('s', batch))
			*pol = snapshotPolicy{snapBytes: int64(len(blob))}
		case !ch.empty():
			blob := bytes.Join(encodeDelta(ch), nil)
			pt.Put(blobKey('d', batch), blob)
			pol.deltas++
			pol.deltaBytes += int64(len(blob))
		}
		rows, bytes := st.partitionRows(p)
		meta := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), uint64(rows)), uint64(bytes))
		pt.Put(partitionMetaKey, meta)
		return nil
	})
}

// encodeDelta returns a delta blob as chunks to concatenate: the header,
// the rows given as slices, the rows given encoded.
func encodeDelta(ch partChanges) [][]byte {
	if ch.rows == 0 {
		return [][]byte{encodeBlob(ch.putKeys, ch.putVals, ch.delKeys)}
	}
	head := binary.AppendUvarint(nil, uint64(len(ch.putKeys)+len(ch.delKeys)+ch.rows))
	if len(ch.putKeys)+len(ch.delKeys) == 0 {
		return [][]byte{head, ch.body}
	}
	rows := encodeBlob(ch.putKeys, ch.putVals, ch.delKeys)
	_, k := binary.Uvarint(rows)
	return [][]byte{head, rows[k:], ch.body}
}

// blobRef is one blob of a partition's changelog.
type blobRef struct {
	batch int64
	snap  bool
	blob  []byte
}

// restoreChangelog loads every partition from its latest snapshot and the
// deltas after it, read from the store's changelog files and Pebble rows.
func restoreChangelog(store *state.Store, op int, st snapshotter, n int, cs *changelogState) error {
	perPart := make([][]blobRef, n)
	*cs = *newChangelogState(n)
	if store.LocalFiles() {
		all, err := store.Files()
		if err != nil {
			return fmt.Errorf("restore the state of operator %d: %w", op, err)
		}
		var files []state.File
		for _, f := range all {
			if f.Op != op {
				continue
			}
			if f.Kind != deltaFile && f.Kind != snapshotFile {
				return fmt.Errorf("restore the state of operator %d from %s: unknown changelog file kind %q of batch %d: "+
					"the state was written by a newer Millrace; upgrade Millrace", op, store.Dir(), f.Kind, f.Version)
			}
			if f.Kind == snapshotFile {
				files = files[:0] // the snapshot replaces every file before it
			}
			files = append(files, f)
		}
		for _, f := range files {
			b, err := store.ReadFile(f)
			if err != nil {
				return fmt.Errorf("restore the state of operator %d: %w", op, err)
			}
			blobs, err := parseChangelogFile(b, n)
			if err != nil {
				return fmt.Errorf("restore the state of operator %d from %s: %s of batch %d: %w", op, store.Dir(), f.Kind, f.Version, err)
			}
			snap := f.Kind == snapshotFile
			for p := 0; p < n; p++ {
				blob, ok := blobs[p]
				if !ok && snap {
					blob, ok = []byte{0}, true // a partition without rows
				}
				if ok {
					perPart[p] = append(perPart[p], blobRef{batch: f.Version, snap: snap, blob: blob})
				}
			}
			if snap {
				cs.files = snapshotPolicy{snapBytes: int64(len(b))}
			} else {
				cs.files.deltas++
				cs.files.deltaBytes += int64(len(b))
			}
		}
	}
	for p := 0; p < n; p++ {
		err := store.Scan(op, p, func(k, v []byte) error {
			if len(k) == 9 && (k[0] == 's' || k[0] == 'd') {
				cs.pebbleRows = store.LocalFiles()
				cs.snapNext = cs.pebbleRows
				perPart[p] = append(perPart[p], blobRef{batch: int64(binary.BigEndian.Uint64(k[1:])), snap: k[0] == 's', blob: append([]byte(nil), v...)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("restore state partition %d from %s: %w", p, store.Dir(), err)
		}
		refs := perPart[p]
		// the latest snapshot, then the deltas after it in batch order
		sort.SliceStable(refs, func(i, j int) bool { return refs[i].batch < refs[j].batch })
		from := 0
		for i, r := range refs {
			if r.snap {
				from = i
			}
		}
		rows := map[string][]byte{}
		pol := snapshotPolicy{}
		for _, r := range refs[from:] {
			what := "delta"
			if r.snap {
				what = "snapshot"
			} else if len(refs) > 0 && refs[from].snap && r.batch <= refs[from].batch {
				continue
			}
			if err := applyBlob(rows, r.blob); err != nil {
				return fmt.Errorf("restore state partition %d from %s: %s of batch %d: %w", p, store.Dir(), what, r.batch, err)
			}
			if r.snap {
				pol.snapBytes = int64(len(r.blob))
			} else {
				pol.deltas++
				pol.deltaBytes += int64(len(r.blob))
			}
		}
		cs.parts[p] = pol
		keys := make([]string, 0, len(rows))
		for k := range rows {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		kb := make([][]byte, len(keys))
		vb := make([][]byte, len(keys))
		for i, k := range keys {
			kb[i], vb[i] = []byte(k), rows[k]
		}
		if err := st.load(p, kb, vb); err != nil {
			return fmt.Errorf("restore state partition %d from %s: %w", p, store.Dir(), err)
		}
	}
	return nil
}

// Row kinds of a blob.
const (
	rowDelete      = 0
	rowPut         = 1
	rowDeleteRange = 2 // every row whose key is in [lo, hi)
	// rowPutInts (3, changelog_intblock.go) puts many rows with integer
	// key columns, column by column
)

// encodeBlob encodes puts then deletes: uvarint count, then per row a kind
// byte (rowPut, rowDelete, rowDeleteRange), uvarint key length, key, and
// for puts uvarint value length and value, for a range deletion uvarint
// length and the range's end (its key is the start). Rows apply in order.
// A delta may also hold int-key blocks (rowPutInts), each one row of the
// count.
func encodeBlob(putKeys, putVals, delKeys [][]byte) []byte {
	size := 10
	for i, k := range putKeys {
		size += len(k) + len(putVals[i]) + 7
	}
	for _, k := range delKeys {
		size += len(k) + 4
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(putKeys)+len(delKeys)))
	for i, k := range putKeys {
		b = append(b, rowPut)
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, uint64(len(putVals[i])))
		b = append(b, putVals[i]...)
	}
	for _, k := range delKeys {
		b = append(b, rowDelete)
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	return b
}

// appendRangeDelete appends a row deleting the keys in [lo, hi).
func appendRangeDelete(b, lo, hi []byte) []byte {
	b = append(b, rowDeleteRange)
	b = binary.AppendUvarint(b, uint64(len(lo)))
	b = append(b, lo...)
	b = binary.AppendUvarint(b, uint64(len(hi)))
	return append(b, hi...)
}

func applyBlob(rows map[string][]byte, b []byte) error {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return fmt.Errorf("corrupt blob header")
	}
	b = b[k:]
	read := func() ([]byte, error) {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, fmt.Errorf("corrupt blob")
		}
		v := b[k : k+int(l)]
		b = b[k+int(l):]
		return v, nil
	}
	for i := uint64(0); i < n; i++ {
		if len(b) == 0 {
			return fmt.Errorf("corrupt blob: %d of %d rows", i, n)
		}
		kind := b[0]
		b = b[1:]
		if kind == rowPutInts {
			var err error
			if b, err = applyIntBlock(rows, b); err != nil {
				return err
			}
			continue
		}
		key, err := read()
		if err != nil {
			return err
		}
		switch kind {
		case rowPut:
			val, err := read()
			if err != nil {
				return err
			}
			rows[string(key)] = bytes.Clone(val)
		case rowDelete:
			delete(rows, string(key))
		case rowDeleteRange:
			hi, err := read()
			if err != nil {
				return err
			}
			for k := range rows {
				if k >= string(key) && k < string(hi) {
					delete(rows, k)
				}
			}
		default:
			return fmt.Errorf("row kind %d: written by a newer Millrace (or corrupt); upgrade Millrace", kind)
		}
	}
	if len(b) != 0 {
		return fmt.Errorf("corrupt blob: %d trailing bytes", len(b))
	}
	return nil
}

// PartitionState is the size of one state partition as of the last commit.
type PartitionState struct {
	Operator  int   `json:"operatorId"`
	Partition int   `json:"partitionId"`
	Rows      int64 `json:"numRowsTotal"`
	Bytes     int64 `json:"memoryUsedBytes"`
}

// InspectState reads the state rows and bytes of every partition of a
// stopped query's state store (<checkpoint>/state), read-only.
func InspectState(stateDir string) ([]PartitionState, error) {
	st, err := state.Open(stateDir, state.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	parts, err := st.Partitions()
	if err != nil {
		return nil, err
	}
	var out []PartitionState
	for _, op := range parts {
		if op[0] == metaStateOp {
			continue
		}
		v, ok, err := st.Get(op[0], op[1], partitionMetaKey)
		if err != nil {
			return nil, err
		}
		ps := PartitionState{Operator: op[0], Partition: op[1]}
		if ok && len(v) == 16 {
			ps.Rows = int64(binary.BigEndian.Uint64(v[:8]))
			ps.Bytes = int64(binary.BigEndian.Uint64(v[8:]))
		}
		out = append(out, ps)
	}
	return out, nil
}
