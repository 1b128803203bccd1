package exec

import (
	"encoding/binary"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
)

// Durable aggregation state (see changelog.go): a row per group, key = the
// order-preserving encoding of the group key, value = the group's
// accumulator states (agg.Table.EncodeStates).

// evictRange says which groups the watermark evicts: those whose key
// column col is not null and below lessThan (agg.Table.GroupsWhere).
type evictRange struct {
	col      int
	lessThan int64
}

// recordChanges captures the durable form of groups updated (dirty) and
// evicted in partition p, before eviction renumbers the groups. It encodes
// them straight into the partition's delta (blob rows, changelog.go), on
// the partition's worker: the commit only writes the bytes. With integer
// keys the updated groups are one int-key block (changelog_intblock.go),
// written column by column from the hash table and the accumulators.
//
// When the evicted groups are exactly those whose first key column is below
// a bound (closedBy: a window start or event time as the first grouping
// key), the delta says so in one range deletion instead of a row per
// group, and leaves out the groups both updated and evicted in the batch:
// a put the range deletion removes right after is no change. The durable
// rows are the table's groups as of the last commit, so the rows the range
// removes are exactly the evicted groups (their first key column encodes
// as the range's prefix, and no null does).
func (a *aggOperator) recordChanges(p int, dirty, evict []uint32, closedBy *evictRange) error {
	if !a.durable || len(dirty)+len(evict) == 0 {
		return nil
	}
	tab := a.parts[p]
	ch := &a.changes[p]
	if a.intKeys() {
		ht := tab.HashTable()
		byRange := closedBy != nil && closedBy.col == 0
		if byRange {
			kept := make([]uint32, 0, len(dirty))
			for _, g := range dirty {
				if ht.KeyIsNull(0, g) || ht.KeyInt64(0, g) >= closedBy.lessThan {
					kept = append(kept, g)
				}
			}
			dirty = kept
		}
		// the groups' keys and states go straight into the body as one
		// int-key block (changelog_intblock.go)
		enc := tab.NewStateEncoder(dirty)
		defer enc.Release()
		keyLen := 9 * len(a.keyTypes)
		if ch.body == nil {
			size := len(dirty)*(len(a.keyTypes)*3+2+9*len(a.specs)) + 32
			if !byRange {
				size += len(evict) * (2 + keyLen)
			}
			ch.body = newBody(size)
		}
		b := ch.body
		if len(dirty) > 0 {
			b, ch.scratch = appendIntBlock(b, ht, len(a.keyTypes), dirty, enc, ch.scratch)
			ch.rows++
		}
		if byRange {
			b = appendRangeDelete(b, []byte{keyNotNullMarker}, columnar.AppendInt64Key(nil, closedBy.lessThan))
			ch.rows++
		} else {
			for _, g := range evict {
				b = appendIntKey(append(b, rowDelete), ht, len(a.keyTypes), g)
			}
			ch.rows += len(evict)
		}
		ch.body = b
		return nil
	}
	if len(dirty) > 0 {
		keys, err := a.encodeGroupKeys(p, dirty)
		if err != nil {
			return err
		}
		ch.putKeys = append(ch.putKeys, keys...)
		ch.putVals = append(ch.putVals, tab.EncodeStates(dirty)...)
	}
	if len(evict) > 0 {
		keys, err := a.encodeGroupKeys(p, evict)
		if err != nil {
			return err
		}
		ch.delKeys = append(ch.delKeys, keys...)
	}
	return nil
}

// keyNotNullMarker starts the encoding of a non-null key column
// (columnar.EncodeKeys); every null one sorts before it.
const keyNotNullMarker = 0x01

// intKeys reports whether every group key column is an integer, date or
// timestamp, which the hash table keeps as int64 values: their key
// encoding (columnar.EncodeKeys) is then written without building arrays.
func (a *aggOperator) intKeys() bool {
	for _, t := range a.keyTypes {
		switch t.ID() {
		case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32:
		default:
			return false
		}
	}
	return true
}

// appendIntKey appends the length and bytes of group g's key as
// columnar.EncodeKeys encodes it (per column: a null marker, or a not-null
// marker and the value big endian with its sign bit flipped).
// TestIntKeyEncodingMatches holds the two together.
func appendIntKey(b []byte, ht *agg.HashTable, cols int, g uint32) []byte {
	n := 0
	for c := 0; c < cols; c++ {
		if ht.KeyIsNull(c, g) {
			n++
		} else {
			n += 9
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	if n == 9*cols {
		// no null key: each column is its marker and 8 big-endian bytes
		// (columnar.AppendInt64Key), written in place
		at := len(b)
		b = slices.Grow(b, n)[:at+n]
		for c := 0; c < cols; c++ {
			b[at] = keyNotNullMarker
			binary.BigEndian.PutUint64(b[at+1:], uint64(ht.KeyInt64(c, g))^(1<<63))
			at += 9
		}
		return b
	}
	for c := 0; c < cols; c++ {
		if ht.KeyIsNull(c, g) {
			b = append(b, 0) // columnar's null marker
			continue
		}
		b = columnar.AppendInt64Key(b, ht.KeyInt64(c, g))
	}
	return b
}
func (a *aggOperator) encodeGroupKeys(p int, groups []uint32) ([][]byte, error) {
	return encodeGroupKeys(a.parts[p].HashTable(), groups)
}

func (a *aggOperator) enableDurability() {
	a.durable = true
	a.changes = make([]partChanges, len(a.parts))
}

func (a *aggOperator) takeChanges(p int) partChanges {
	return a.changes[p].take()
}

func (a *aggOperator) snapshot(p int) ([][]byte, [][]byte, error) {
	groups := a.parts[p].AllGroups()
	if len(groups) == 0 {
		return nil, nil, nil
	}
	keys, err := a.encodeGroupKeys(p, groups)
	if err != nil {
		return nil, nil, err
	}
	return keys, a.parts[p].EncodeStates(groups), nil
}

func (a *aggOperator) load(p int, keys, vals [][]byte) error {
	tab := a.parts[p]
	tab.Reset()
	if len(keys) == 0 {
		return nil
	}
	return withDecodedKeys(keys, a.keyTypes, func(cols []arrow.Array) error {
		return tab.LoadGroups(cols, vals)
	})
}

func (a *aggOperator) partitionRows(p int) (int64, int64) {
	return int64(a.parts[p].Len()), a.parts[p].MemoryUsage()
}
