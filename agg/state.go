package agg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Durable state. EncodeStates turns groups' accumulator states into byte
// strings and LoadGroups rebuilds groups from them, so that the engine can
// keep each group as one row of a state store (key: the encoded group key,
// value: these bytes) and reload a table after a restart. The encoding, per
// accumulator in spec order:
//
//	count, count(*)  uvarint count
//	sum              seen byte, 8 bytes (int64 or float64 bits)
//	avg              8 bytes sum (float64 bits), uvarint count
//	min, max         seen byte, then (when seen) 8 bytes (numbers, dates,
//	                 timestamps; booleans as 0/1), or uvarint length +
//	                 bytes for strings and binaries
//	count distinct   uvarint n, then n values: 8 bytes for numbers and
//	                 timestamps, 1 for bools, uvarint length + bytes for
//	                 strings and binaries
//	collect_list,    as count distinct: the group's values in arrival
//	collect_set      order
//	approx_count_    a byte 0, then the register words, 8 bytes each
//	distinct         (2^p/10 + 1 of them for precision p); or a byte 1,
//	                 uvarint n, then n non-zero words, each as the uvarint
//	                 gap from the previous one and 8 bytes
//	first, last      a byte (0 unset, 1 null, 2 value), then for a value 8
//	                 bytes, or uvarint length + bytes for strings/binaries
//
// It is versioned by the plan fingerprint the checkpoint records, not here.

// EncodeStates returns the encoded state of each group of groups.
func (t *Table) EncodeStates(groups []uint32) [][]byte {
	enc := t.NewStateEncoder(groups)
	defer enc.Release()
	// every group's state goes into one buffer, sliced at the end: one
	// allocation instead of one per group
	var b []byte
	ends := make([]int, len(groups))
	for gi := range groups {
		b = enc.Append(b, gi)
		ends[gi] = len(b)
	}
	out := make([][]byte, len(groups))
	start := 0
	for gi, end := range ends {
		out[gi] = b[start:end:end]
		start = end
	}
	return out
}

// StateEncoder appends the encoded states of a list of groups one at a
// time to a caller's buffer (a changelog written straight from the hash
// table, without a slice per group). Release it after use.
type StateEncoder struct {
	t        *Table
	groups   []uint32
	distinct []*distinctValues // per accumulator: the distinct values of the groups, or nil
}

// NewStateEncoder prepares the encoding of groups' states.
func (t *Table) NewStateEncoder(groups []uint32) *StateEncoder {
	e := &StateEncoder{t: t, groups: groups}
	for i, a := range t.accs {
		var d *distinctValues
		switch a := a.(type) {
		case *countDistinctAcc:
			d = a.valuesOf(groups)
		case *collectAcc:
			d = groupedValues(a.pairs, a.valCol, groups)
		default:
			continue
		}
		if e.distinct == nil {
			e.distinct = make([]*distinctValues, len(t.accs))
		}
		e.distinct[i] = d
	}
	return e
}

// Release frees the distinct values NewStateEncoder collected.
func (e *StateEncoder) Release() {
	for _, d := range e.distinct {
		if d != nil {
			d.vals.Release()
		}
	}
	e.distinct = nil
}

// Append appends the state of groups[gi] to b.
func (e *StateEncoder) Append(b []byte, gi int) []byte {
	g := e.groups[gi]
	for i, a := range e.t.accs {
		switch a := a.(type) {
		case *countAcc:
			b = binary.AppendUvarint(b, uint64(a.counts[g]))
		case *sumAcc[int64]:
			b = appendSeen(b, a.seen[g], uint64(a.sums[g]))
		case *checkedSumAcc: // the same state as the wrapping sum
			b = appendSeen(b, a.seen[g], uint64(a.sums[g]))
		case *sumAcc[float64]:
			b = appendSeen(b, a.seen[g], math.Float64bits(a.sums[g]))
		case *avgAcc:
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(a.sums[g]))
			b = binary.AppendUvarint(b, uint64(a.counts[g]))
		case *minMaxAcc[int64]:
			b = appendSeen(b, a.seen[g], uint64(a.vals[g]))
		case *minMaxAcc[float64]:
			b = appendSeen(b, a.seen[g], math.Float64bits(a.vals[g]))
		case *minMaxBytesAcc:
			b = a.appendState(b, g)
		case *hllAcc:
			b = a.appendState(b, g)
		case *firstLastAcc:
			b = a.appendState(b, g)
		case *countDistinctAcc, *collectAcc:
			d := e.distinct[i]
			lo, hi := d.start[gi], d.start[gi+1]
			b = binary.AppendUvarint(b, uint64(hi-lo))
			for k := lo; k < hi; k++ {
				b = appendValue(b, d.vals, k)
			}
		}
	}
	return b
}

// distinctValues holds the distinct values of some groups: the values of
// group i of the request are vals[start[i]:start[i+1]].
type distinctValues struct {
	start []int
	vals  arrow.Array
}

// valuesOf collects the distinct values of each group of groups with one
// scan of the pair table.
func (a *countDistinctAcc) valuesOf(groups []uint32) *distinctValues {
	return groupedValues(a.pairs, 1, groups)
}

// appendValue appends the encoding of row i of a distinct-value column.
func appendValue(b []byte, col arrow.Array, i int) []byte {
	switch c := col.(type) {
	case *array.Int64:
		return binary.BigEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Int32:
		return binary.BigEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Timestamp:
		return binary.BigEndian.AppendUint64(b, uint64(c.Value(i)))
	case *array.Float64:
		return binary.BigEndian.AppendUint64(b, math.Float64bits(c.Value(i)))
	case *array.Boolean:
		if c.Value(i) {
			return append(b, 1)
		}
		return append(b, 0)
	case *array.String:
		s := c.Value(i)
		return append(binary.AppendUvarint(b, uint64(len(s))), s...)
	case *array.Binary:
		s := c.Value(i)
		return append(binary.AppendUvarint(b, uint64(len(s))), s...)
	}
	panic(fmt.Sprintf("agg: cannot encode a %s distinct value", col.DataType()))
}

func appendSeen(b []byte, seen bool, v uint64) []byte {
	if !seen {
		return append(b, 0)
	}
	return binary.BigEndian.AppendUint64(append(b, 1), v)
}

// LoadGroups adds groups with the given keys (one row per group; keys not
// yet in the table) and encoded states (from EncodeStates). Loaded groups
// are not dirty.
func (t *Table) LoadGroups(keys []arrow.Array, states [][]byte) error {
	before := t.ht.Len()
	groups, err := t.ht.Lookup(keys, nil, nil, true)
	if err != nil {
		return err
	}
	if t.ht.Len()-before != len(states) {
		return fmt.Errorf("agg: load: %d states for %d new groups (duplicate keys in state?)", len(states), t.ht.Len()-before)
	}
	t.resize()
	// values to insert per count-distinct or collect accumulator
	type pending struct {
		gids []int64
		vals array.Builder
	}
	pend := make([]*pending, len(t.accs))
	collected := func(i int, a *collectAcc) *pending {
		if pend[i] == nil {
			pend[i] = &pending{vals: array.NewBuilder(memory.DefaultAllocator, a.pairs.types[a.valCol])}
		}
		return pend[i]
	}
	defer func() {
		for _, p := range pend {
			if p != nil {
				p.vals.Release()
			}
		}
	}()
	for gi, g := range groups {
		b := states[gi]
		var ok bool
		for i, a := range t.accs {
			switch a := a.(type) {
			case *countAcc:
				var v uint64
				v, b, ok = uvarint(b)
				a.counts[g] = int64(v)
			case *sumAcc[int64]:
				var v uint64
				a.seen[g], v, b, ok = readSeen(b)
				a.sums[g] = int64(v)
			case *checkedSumAcc:
				var v uint64
				a.seen[g], v, b, ok = readSeen(b)
				a.sums[g] = int64(v)
			case *sumAcc[float64]:
				var v uint64
				a.seen[g], v, b, ok = readSeen(b)
				a.sums[g] = math.Float64frombits(v)
			case *avgAcc:
				var s, c uint64
				if s, b, ok = u64(b); ok {
					c, b, ok = uvarint(b)
				}
				a.sums[g], a.counts[g] = math.Float64frombits(s), int64(c)
			case *minMaxAcc[int64]:
				var v uint64
				a.seen[g], v, b, ok = readSeen(b)
				if a.seen[g] {
					a.vals[g] = int64(v)
				}
			case *minMaxAcc[float64]:
				var v uint64
				a.seen[g], v, b, ok = readSeen(b)
				if a.seen[g] {
					a.vals[g] = math.Float64frombits(v)
				}
			case *countDistinctAcc:
				if pend[i] == nil {
					pend[i] = &pending{vals: array.NewBuilder(memory.DefaultAllocator, a.pairs.types[1])}
				}
				var cnt uint64
				cnt, b, ok = uvarint(b)
				for k := uint64(0); ok && k < cnt; k++ {
					b, ok = readValue(b, pend[i].vals)
					pend[i].gids = append(pend[i].gids, int64(g))
				}
				a.counts[g] = int64(cnt)
			case *collectAcc:
				pd := collected(i, a)
				var cnt uint64
				cnt, b, ok = uvarint(b)
				for k := uint64(0); ok && k < cnt; k++ {
					b, ok = readValue(b, pd.vals)
					pd.gids = append(pd.gids, int64(g))
				}
				a.counts[g] = int64(cnt)
			case *minMaxBytesAcc:
				b, ok = a.readState(b, g)
			case *hllAcc:
				b, ok = a.readState(b, g)
			case *firstLastAcc:
				b, ok = a.readState(b, g)
			}
			if !ok {
				return fmt.Errorf("agg: load: state of group %d is truncated at aggregate %d (%s)", gi, i, t.specs[i].Func)
			}
		}
		if len(b) != 0 {
			return fmt.Errorf("agg: load: state of group %d has %d trailing bytes", gi, len(b))
		}
	}
	for i, p := range pend {
		if p == nil {
			continue
		}
		gb := array.NewInt64Builder(memory.DefaultAllocator)
		gb.AppendValues(p.gids, nil)
		gids := gb.NewArray()
		gb.Release()
		vals := p.vals.NewArray()
		keys := []arrow.Array{gids, vals}
		var pairs *HashTable
		switch a := t.accs[i].(type) {
		case *countDistinctAcc:
			pairs = a.pairs
		case *collectAcc:
			pairs = a.pairs
			if a.list {
				// fresh sequence numbers, in the order the state lists them
				seqs := make([]int64, len(p.gids))
				for k := range seqs {
					seqs[k] = a.seq
					a.seq++
				}
				keys = []arrow.Array{gids, viewInt64(seqs), vals}
				defer keys[1].Release()
			}
		}
		before := pairs.Len()
		_, err := pairs.Lookup(keys, nil, nil, true)
		gids.Release()
		vals.Release()
		if err != nil {
			return err
		}
		if added := pairs.Len() - before; added != len(p.gids) {
			// A group's distinct values repeat: its count would not match
			// its values (EncodeStates never writes this).
			return fmt.Errorf("agg: load: aggregate %d (%s) holds %d values but only %d distinct ones; the state is corrupt",
				i, t.specs[i].Func, len(p.gids), added)
		}
	}
	return nil
}

func uvarint(b []byte) (uint64, []byte, bool) {
	v, n := binary.Uvarint(b)
	if n <= 0 {
		return 0, b, false
	}
	return v, b[n:], true
}

func u64(b []byte) (uint64, []byte, bool) {
	if len(b) < 8 {
		return 0, b, false
	}
	return binary.BigEndian.Uint64(b), b[8:], true
}

func readSeen(b []byte) (bool, uint64, []byte, bool) {
	if len(b) < 1 {
		return false, 0, b, false
	}
	if b[0] == 0 {
		return false, 0, b[1:], true
	}
	v, rest, ok := u64(b[1:])
	return true, v, rest, ok
}

func readValue(b []byte, dst array.Builder) ([]byte, bool) {
	switch d := dst.(type) {
	case *array.Int64Builder:
		v, rest, ok := u64(b)
		d.Append(int64(v))
		return rest, ok
	case *array.Int32Builder:
		v, rest, ok := u64(b)
		d.Append(int32(int64(v)))
		return rest, ok
	case *array.TimestampBuilder:
		v, rest, ok := u64(b)
		d.Append(arrow.Timestamp(int64(v)))
		return rest, ok
	case *array.Float64Builder:
		v, rest, ok := u64(b)
		d.Append(math.Float64frombits(v))
		return rest, ok
	case *array.BooleanBuilder:
		if len(b) < 1 {
			return b, false
		}
		d.Append(b[0] == 1)
		return b[1:], true
	case *array.StringBuilder:
		n, rest, ok := uvarint(b)
		if !ok || uint64(len(rest)) < n {
			return b, false
		}
		d.Append(string(rest[:n]))
		return rest[n:], true
	case *array.BinaryBuilder:
		n, rest, ok := uvarint(b)
		if !ok || uint64(len(rest)) < n {
			return b, false
		}
		d.Append(rest[:n])
		return rest[n:], true
	}
	return b, false
}
