package exec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/millrace/millrace/state"
)

// Durable state is a changelog per state partition, the design of Spark's
// HDFS-backed state store: each batch writes one delta blob per partition
// it changed (the puts and deletes of its rows), and now and then a
// partition writes a snapshot blob of all its rows and drops the deltas and
// snapshots before it. Blobs live in the Pebble state store, committed in
// the same atomic batch that records the batch id, so the durable copy is
// exact at every commit. The hot state stays in the operators' vectorized
// hash tables; one Pebble write per partition instead of one per row is what
// lets commits keep up with them (a Pebble insert costs about a microsecond,
// a row of a blob a few nanoseconds).
//
// Keys under (operator, partition):
//
//	'd' + batch id (8 bytes BE)   delta: the rows the batch put or deleted
//	's' + batch id                snapshot: every row as of the batch
//	'm'                           the partition's row count and bytes
//
// A row is (key, value) as the operator encodes it: the order-preserving
// group key, and the accumulator states (aggregation) or the expiry time
// (deduplication).

// partChanges is what one state partition changed in the running batch.
type partChanges struct {
	putKeys, putVals [][]byte
	delKeys          [][]byte
}

func (c *partChanges) empty() bool { return len(c.putKeys) == 0 && len(c.delKeys) == 0 }

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
}

// DefaultMinDeltasForSnapshot is how many deltas a partition writes at
// least before a snapshot (Spark's minDeltasForSnapshot is 10 too).
const DefaultMinDeltasForSnapshot = 10

const minSnapshotBytes = 1 << 20

func (s *snapshotPolicy) due(minDeltas int) bool {
	return s.deltas >= 100*minDeltas || (s.deltas >= minDeltas && s.deltaBytes >= max(s.snapBytes, minSnapshotBytes))
}

// snapshotter is implemented by stateful operators: the rows of one
// partition, and loading them back.
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

// persistChangelog writes batch's state changes of every partition into txn.
func persistChangelog(txn *state.Txn, op int, batch int64, st snapshotter, n int, policy []snapshotPolicy, minDeltas int) error {
	for p := 0; p < n; p++ {
		ch := st.takeChanges(p)
		pol := &policy[p]
		switch {
		case pol.due(minDeltas) && (!ch.empty() || pol.deltas > 0):
			keys, vals, err := st.snapshot(p)
			if err != nil {
				return err
			}
			blob := encodeBlob(keys, vals, nil)
			txn.Put(op, p, blobKey('s', batch), blob)
			txn.DeleteRange(op, p, blobKey('d', 0), blobKey('d', batch+1))
			txn.DeleteRange(op, p, blobKey('s', 0), blobKey('s', batch))
			*pol = snapshotPolicy{snapBytes: int64(len(blob))}
		case !ch.empty():
			blob := encodeBlob(ch.putKeys, ch.putVals, ch.delKeys)
			txn.Put(op, p, blobKey('d', batch), blob)
			pol.deltas++
			pol.deltaBytes += int64(len(blob))
		}
		rows, bytes := st.partitionRows(p)
		meta := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(rows)), uint64(bytes))
		txn.Put(op, p, partitionMetaKey, meta)
	}
	return nil
}

// restoreChangelog loads every partition from its latest snapshot and the
// deltas after it.
func restoreChangelog(store *state.Store, op int, st snapshotter, n int, policy []snapshotPolicy) error {
	for p := 0; p < n; p++ {
		var snap []byte
		snapID := int64(-1)
		type delta struct {
			id   int64
			blob []byte
		}
		var deltas []delta
		err := store.Scan(op, p, func(k, v []byte) error {
			if len(k) == 9 {
				id := int64(binary.BigEndian.Uint64(k[1:]))
				switch k[0] {
				case 's':
					snap, snapID = append([]byte(nil), v...), id
				case 'd':
					deltas = append(deltas, delta{id, append([]byte(nil), v...)})
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("restore state partition %d from %s: %w", p, store.Dir(), err)
		}
		rows := map[string][]byte{}
		pol := snapshotPolicy{}
		if snap != nil {
			if err := applyBlob(rows, snap); err != nil {
				return fmt.Errorf("restore state partition %d from %s: snapshot of batch %d: %w", p, store.Dir(), snapID, err)
			}
			pol.snapBytes = int64(len(snap))
		}
		for _, d := range deltas {
			if d.id <= snapID {
				continue
			}
			if err := applyBlob(rows, d.blob); err != nil {
				return fmt.Errorf("restore state partition %d from %s: delta of batch %d: %w", p, store.Dir(), d.id, err)
			}
			pol.deltas++
			pol.deltaBytes += int64(len(d.blob))
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
