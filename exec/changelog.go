package exec

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/millrace/millrace/state"
)

// Durable state is a changelog per state partition, the design of Spark's
// HDFS-backed state store: each batch writes one delta blob per partition
// it changed (the puts and deletes of its rows), and now and then a
// partition writes a snapshot blob of all its rows and drops the deltas and
// snapshots before it. The hot state stays in the operators' vectorized
// hash tables; one write per partition instead of one per row is what lets
// commits keep up with them (a Pebble insert costs about a microsecond, a
// row of a blob a few nanoseconds).
//
// Where the blobs live depends on the store (state.Store.LocalFiles):
//
//   - A local store: as changelog files beside Pebble (state/files.go),
//     written once and synced before the Pebble batch that records the
//     batch id, instead of going through Pebble's WAL, memtable, flushes
//     and compactions. Files (op, part, batch, "delta") and (op, part,
//     batch, "snapshot"); a snapshot drops the files before it once
//     committed.
//   - A store with a durable copy on object storage, and every store
//     written before the files (the old layout, still read): as Pebble
//     rows under (operator, partition), committed in the same atomic batch
//     that records the batch id, which the durable copy uploads:
//
//	'd' + batch id (8 bytes BE)   delta: the rows the batch put or deleted
//	's' + batch id                snapshot: every row as of the batch
//
// Either way the partition's row count and bytes are a Pebble row:
//
//	'm'                           the partition's row count and bytes
//
// A restore reads both places and takes the latest snapshot and the deltas
// after it, so a store of the old layout restarts; its rows are dropped by
// the partition's first snapshot (a file).
//
// A row is (key, value) as the operator encodes it: the order-preserving
// group key, and the accumulator states (aggregation) or the expiry time
// (deduplication).

// partChanges is what one state partition changed in the running batch:
// rows as key and value slices, or already encoded in a blob's row format
// (rows of them in body; the aggregation encodes its changes as it emits).
type partChanges struct {
	putKeys, putVals [][]byte
	delKeys          [][]byte
	rows             int
	body             []byte
}

func (c *partChanges) empty() bool { return len(c.putKeys) == 0 && len(c.delKeys) == 0 && c.rows == 0 }

// take returns the changes collected and starts a new collection.
func (c *partChanges) take() partChanges {
	ch := *c
	*c = partChanges{}
	return ch
}

// snapshotPolicy decides when a partition writes a snapshot. Snapshotting
// when the deltas since the last snapshot weigh as much as it keeps both
// costs near twice the deltas: commits write at most about twice their
// changes on average, and a restart reads at most about twice the state. At
// least MinDeltasForSnapshot deltas come between snapshots (Spark's
// minDeltasForSnapshot), and at most 100 times that, so that tiny deltas do
// not pile up for ever.
type snapshotPolicy struct {
	deltas     int
	deltaBytes int64
	snapBytes  int64
	// pebbleBlobs: the partition has blobs as Pebble rows in a store that
	// now writes files (the old layout); its next snapshot deletes them.
	pebbleBlobs bool
}

// DefaultMinDeltasForSnapshot is how many deltas a partition writes at
// least before a snapshot (Spark's minDeltasForSnapshot is 10 too).
const DefaultMinDeltasForSnapshot = 10

const minSnapshotBytes = 1 << 20

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
// txn, the partitions in parallel (workers at most).
func persistChangelog(txn *state.Txn, files bool, op int, batch int64, st snapshotter, n int, policy []snapshotPolicy, minDeltas, workers int) error {
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
			if files {
				txn.PutFile(op, p, snapshotFile, blob)
				txn.DropFilesBefore(op, p, batch)
				if pol.pebbleBlobs {
					pt.DeleteRange(blobKey('d', 0), blobKey('d', math.MaxInt64))
					pt.DeleteRange(blobKey('s', 0), blobKey('s', math.MaxInt64))
				}
			} else {
				pt.Put(blobKey('s', batch), blob)
				pt.DeleteRange(blobKey('d', 0), blobKey('d', batch+1))
				pt.DeleteRange(blobKey('s', 0), blobKey('s', batch))
			}
			*pol = snapshotPolicy{snapBytes: int64(len(blob))}
		case !ch.empty():
			chunks := encodeDelta(ch)
			size := 0
			for _, c := range chunks {
				size += len(c)
			}
			if files {
				txn.PutFile(op, p, deltaFile, chunks...)
			} else {
				pt.Put(blobKey('d', batch), bytes.Join(chunks, nil))
			}
			pol.deltas++
			pol.deltaBytes += int64(size)
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

// blobRef is one blob of a partition's changelog, a file or a Pebble row.
type blobRef struct {
	batch int64
	file  *state.File // nil: a Pebble row
	blob  []byte      // the Pebble row's value
}

// restoreChangelog loads every partition from its latest snapshot and the
// deltas after it, read from the store's files and Pebble rows.
func restoreChangelog(store *state.Store, op int, st snapshotter, n int, policy []snapshotPolicy) error {
	var files []state.File
	if store.LocalFiles() {
		all, err := store.Files()
		if err != nil {
			return fmt.Errorf("restore the state of operator %d: %w", op, err)
		}
		for _, f := range all {
			if f.Op == op {
				files = append(files, f)
			}
		}
	}
	for p := 0; p < n; p++ {
		var snap *blobRef
		var deltas []blobRef
		note := func(kind string, r blobRef) error {
			switch kind {
			case snapshotFile:
				if snap == nil || r.batch >= snap.batch {
					snap = &r
				}
			case deltaFile:
				deltas = append(deltas, r)
			default:
				return fmt.Errorf("restore state partition %d from %s: unknown changelog file kind %q of batch %d: "+
					"the state was written by a newer Millrace; upgrade Millrace", p, store.Dir(), kind, r.batch)
			}
			return nil
		}
		pebbleBlobs := false
		err := store.Scan(op, p, func(k, v []byte) error {
			if len(k) == 9 && (k[0] == 's' || k[0] == 'd') {
				pebbleBlobs = true
				kind := map[byte]string{'s': snapshotFile, 'd': deltaFile}[k[0]]
				return note(kind, blobRef{batch: int64(binary.BigEndian.Uint64(k[1:])), blob: append([]byte(nil), v...)})
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("restore state partition %d from %s: %w", p, store.Dir(), err)
		}
		for i := range files {
			if f := &files[i]; f.Part == p {
				if err := note(f.Kind, blobRef{batch: f.Version, file: f}); err != nil {
					return err
				}
			}
		}
		read := func(r blobRef) ([]byte, error) {
			if r.file == nil {
				return r.blob, nil
			}
			return store.ReadFile(*r.file)
		}
		rows := map[string][]byte{}
		pol := snapshotPolicy{pebbleBlobs: pebbleBlobs && store.LocalFiles()}
		snapID := int64(-1)
		if snap != nil {
			b, err := read(*snap)
			if err != nil {
				return fmt.Errorf("restore state partition %d: %w", p, err)
			}
			if err := applyBlob(rows, b); err != nil {
				return fmt.Errorf("restore state partition %d from %s: snapshot of batch %d: %w", p, store.Dir(), snap.batch, err)
			}
			pol.snapBytes = int64(len(b))
			snapID = snap.batch
		}
		sort.SliceStable(deltas, func(i, j int) bool { return deltas[i].batch < deltas[j].batch })
		for _, d := range deltas {
			if d.batch <= snapID {
				continue
			}
			b, err := read(d)
			if err != nil {
				return fmt.Errorf("restore state partition %d: %w", p, err)
			}
			if err := applyBlob(rows, b); err != nil {
				return fmt.Errorf("restore state partition %d from %s: delta of batch %d: %w", p, store.Dir(), d.batch, err)
			}
			pol.deltas++
			pol.deltaBytes += int64(len(b))
		}
		policy[p] = pol
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

// encodeBlob encodes puts then deletes: uvarint count, then per row a kind
// byte (1 put, 0 delete), uvarint key length, key, and for puts uvarint
// value length and value.
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
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, uint64(len(putVals[i])))
		b = append(b, putVals[i]...)
	}
	for _, k := range delKeys {
		b = append(b, 0)
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	return b
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
		key, err := read()
		if err != nil {
			return err
		}
		switch kind {
		case 1:
			val, err := read()
			if err != nil {
				return err
			}
			rows[string(key)] = bytes.Clone(val)
		case 0:
			delete(rows, string(key))
		default:
			return fmt.Errorf("corrupt blob: row kind %d", kind)
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
