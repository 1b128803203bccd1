package agg

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// NoGroup is the group id Find reports for a key that is not in the table.
const NoGroup = math.MaxUint32

// minSlots is the initial size of the slot array (a power of two).
const minSlots = 256

type tableMode uint8

const (
	modeInt     tableMode = iota // one int32/int64/timestamp key: slots hold the key inline
	modeBytes                    // one string/binary key: slots hold hash tag + group
	modeGeneric                  // anything else: probed in rounds, compared column by column
	modePair                     // two int32/int64/timestamp keys: slots hold both inline
)

// intSlot is one slot of the single integer key table. g is the group id
// plus one; 0 marks an empty slot.
type intSlot struct {
	key int64
	g   uint32
}

// HashTable maps key tuples to dense group ids 0..Len()-1, assigned in
// insertion order. See the package documentation for the layout.
type HashTable struct {
	types []arrow.DataType
	cols  []keyCol
	mode  tableMode
	n     int // number of groups

	// Open addressing with linear probing over a power-of-two slot array;
	// the slot of hash h is h>>shift.
	shift uint
	mask  uint64
	limit int // grow when n reaches limit (1/2 load)

	islots []intSlot  // modeInt
	pslots []pairSlot // modePair
	slots  []uint64   // modeBytes, modeGeneric: tag<<32 | group+1, 0 = empty
	hashes []uint64   // modeBytes, modeGeneric: full hash per group, for rehash

	// nullGroup is the group of the null key in the single-key modes, which
	// keep the null key out of the slot array; NoGroup when absent.
	nullGroup uint32

	sc generic // scratch of the generic path
}

// NewHashTable returns an empty table for keys of the given column types
// (int32, int64, timestamp, date32, float64, bool, string, binary; at
// least one).
func NewHashTable(keyTypes []arrow.DataType) (*HashTable, error) {
	if len(keyTypes) == 0 {
		return nil, fmt.Errorf("agg: hash table needs at least one key column")
	}
	h := &HashTable{types: keyTypes, nullGroup: NoGroup, mode: modeGeneric}
	for i, t := range keyTypes {
		c, err := newKeyCol(t)
		if err != nil {
			return nil, fmt.Errorf("agg: key column %d: %w", i, err)
		}
		h.cols = append(h.cols, c)
	}
	isInt := func(t arrow.DataType) bool {
		id := t.ID()
		return id == arrow.INT32 || id == arrow.INT64 || id == arrow.TIMESTAMP || id == arrow.DATE32
	}
	if len(keyTypes) == 2 && isInt(keyTypes[0]) && isInt(keyTypes[1]) {
		h.mode = modePair
	}
	if len(keyTypes) == 1 {
		switch keyTypes[0].ID() {
		case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32:
			h.mode = modeInt
		case arrow.STRING, arrow.BINARY:
			h.mode = modeBytes
		}
	}
	h.alloc(minSlots)
	return h, nil
}

// alloc replaces the slot array by an empty one of n slots (a power of two).
func (h *HashTable) alloc(n int) {
	h.shift = uint(64 - bits.TrailingZeros(uint(n)))
	h.mask = uint64(n - 1)
	h.limit = n / 2
	if n <= smallSlots {
		h.limit = n / smallLoad
	}
	switch h.mode {
	case modeInt:
		h.islots = make([]intSlot, n)
	case modePair:
		h.pslots = make([]pairSlot, n)
	default:
		h.slots = make([]uint64, n)
	}
}

// Small slot arrays (up to smallSlots slots, 256 KiB of intSlot) are kept
// at load <= 1/smallLoad, so that nearly every hit is at the key's home slot
// and the probe loop's branch predicts well; larger ones at load <= 1/2, as
// there a cache miss per row costs more than a collision.
const (
	smallSlots = 1 << 14
	smallLoad  = 4
)

// slotsFor returns the slot count that holds n groups below the load limit.
func slotsFor(n int) int {
	s := minSlots
	for {
		limit := s / 2
		if s <= smallSlots {
			limit = s / smallLoad
		}
		if n < limit {
			return s
		}
		s *= 2
	}
}

// rebuild re-inserts every group into a fresh slot array of n slots.
func (h *HashTable) rebuild(n int) {
	h.alloc(n)
	switch h.mode {
	case modeInt:
		c := &h.cols[0]
		for g := 0; g < h.n; g++ {
			if c.nulls[g] {
				continue
			}
			k := c.vals[g]
			p := hashInt64(k) >> h.shift
			for h.islots[p].g != 0 {
				p = (p + 1) & h.mask
			}
			h.islots[p] = intSlot{key: k, g: uint32(g) + 1}
		}
	case modePair:
		h.rebuildPairs()
	default:
		single := h.mode == modeBytes
		for g := 0; g < h.n; g++ {
			if single && h.cols[0].nulls[g] {
				continue
			}
			hv := h.hashes[g]
			p := hv >> h.shift
			for h.slots[p] != 0 {
				p = (p + 1) & h.mask
			}
			h.slots[p] = hv<<32 | uint64(g+1)
		}
	}
}

// grow doubles the slot array.
func (h *HashTable) grow() { h.rebuild(int(h.mask+1) * 2) }

// Len returns the number of groups.
func (h *HashTable) Len() int { return h.n }

// Reset removes every group, keeping allocated memory.
func (h *HashTable) Reset() {
	for i := range h.cols {
		h.cols[i].reset()
	}
	h.n = 0
	h.hashes = h.hashes[:0]
	h.nullGroup = NoGroup
	clear(h.islots)
	clear(h.pslots)
	clear(h.slots)
}

// Compact keeps the groups g with keep[g] set (len(keep) == Len()), in their
// order, renumbering them densely. The slot array is rebuilt, or, when it
// keeps its size, compacted in place (compact_slots.go).
func (h *HashTable) Compact(keep []bool) {
	for i := range h.cols {
		h.cols[i].compact(keep)
	}
	j := 0
	if h.hashes != nil {
		for g, k := range keep {
			if k {
				h.hashes[j] = h.hashes[g]
				j++
			}
		}
		h.hashes = h.hashes[:j]
	}
	h.n = len(h.cols[0].nulls)
	h.nullGroup = NoGroup
	if h.mode == modeInt || h.mode == modeBytes {
		for g, null := range h.cols[0].nulls {
			if null {
				h.nullGroup = uint32(g)
				break
			}
		}
	}
	if n := slotsFor(h.n); n != int(h.mask+1) || !h.compactSlots(keep) {
		h.rebuild(n)
	}
}

// KeyColumns returns the key values of groups, in that order, one array per
// key column. The caller releases the arrays.
func (h *HashTable) KeyColumns(mem memory.Allocator, groups []uint32) []arrow.Array {
	out := make([]arrow.Array, len(h.cols))
	for i := range h.cols {
		out[i] = h.cols[i].build(mem, groups)
	}
	return out
}

// KeyInt64 returns the stored value of an int32/int64/timestamp key column
// for group (0 for a null key).
func (h *HashTable) KeyInt64(col int, group uint32) int64 { return h.cols[col].vals[group] }

// KeyIsNull reports whether key column col of group is null.
func (h *HashTable) KeyIsNull(col int, group uint32) bool { return h.cols[col].nulls[group] }

// KeyInt64Column returns the stored values and null flags of an
// int32/int64/timestamp/date key column, indexed by group (a null key's
// value is 0): for loops over many groups of one column. The slices are the
// table's own, valid until its next change; callers only read them.
func (h *HashTable) KeyInt64Column(col int) (vals []int64, nulls []bool) {
	return h.cols[col].vals, h.cols[col].nulls
}

// MemoryUsage returns the approximate bytes held by the table.
func (h *HashTable) MemoryUsage() int64 {
	m := int64(cap(h.islots))*16 + int64(cap(h.pslots))*24 + int64(cap(h.slots))*8 + int64(cap(h.hashes))*8
	for i := range h.cols {
		m += h.cols[i].memory()
	}
	return m + h.sc.memory()
}

func (h *HashTable) check(keys []arrow.Array, sel []int32) (int, error) {
	if len(keys) != len(h.cols) {
		return 0, fmt.Errorf("agg: hash table has %d key columns, got %d", len(h.cols), len(keys))
	}
	for i, k := range keys {
		if !arrow.TypeEqual(k.DataType(), h.types[i]) {
			return 0, fmt.Errorf("agg: key column %d is %s, table expects %s", i,
				columnar.TypeName(k.DataType()), columnar.TypeName(h.types[i]))
		}
	}
	if sel != nil {
		return len(sel), nil
	}
	return keys[0].Len(), nil
}

// FindOrInsert appends to groups[:0] the group id of each live row of keys
// (row sel[i], or row i when sel is nil), inserting new keys as new groups.
// Keys that do not match the table's types yield NoGroup for every row; use
// Lookup for an error instead.
func (h *HashTable) FindOrInsert(keys []arrow.Array, sel []int32, groups []uint32) []uint32 {
	groups, _ = h.Lookup(keys, sel, groups, true)
	return groups
}

// Find is FindOrInsert without insertion: absent keys yield NoGroup.
func (h *HashTable) Find(keys []arrow.Array, sel []int32, groups []uint32) []uint32 {
	groups, _ = h.Lookup(keys, sel, groups, false)
	return groups
}

// Lookup is FindOrInsert (insert true) or Find (insert false) reporting key
// columns that do not match the table's types as an error.
func (h *HashTable) Lookup(keys []arrow.Array, sel []int32, groups []uint32, insert bool) ([]uint32, error) {
	n, err := h.check(keys, sel)
	groups = growU32(groups, n)
	if err != nil {
		for i := range groups {
			groups[i] = NoGroup
		}
		return groups, err
	}
	if n == 0 {
		return groups, nil
	}
	switch h.mode {
	case modeInt:
		h.lookupInt(keys[0], sel, groups, insert)
	case modeBytes:
		h.lookupBytes(keys[0], sel, groups, insert)
	case modePair:
		h.lookupPair(keys[0], keys[1], sel, groups, insert)
	default:
		err = h.lookupGeneric(keys, sel, groups, insert)
	}
	return groups, err
}

// nullKeyGroup returns the group of the null key in a single-key mode.
func (h *HashTable) nullKeyGroup(insert bool) uint32 {
	if h.nullGroup != NoGroup || !insert {
		return h.nullGroup
	}
	g := uint32(h.n)
	h.n++
	c := &h.cols[0]
	if c.bytes {
		c.offs = append(c.offs, len(c.arena))
		h.hashes = append(h.hashes, 0)
	} else {
		c.vals = append(c.vals, 0)
	}
	c.nulls = append(c.nulls, true)
	h.nullGroup = g
	return g
}
