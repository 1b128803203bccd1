package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// Many groups' states at once, for the engine's changelog (an int-key block,
// exec/changelog_intblock.go): AppendAll writes them as Append does, back
// to back; AppendColumns lays them out by accumulator instead, which takes
// about half the bytes when every state is a count, a sum, a min or max of
// numbers or an avg, and DecodeColumns turns such columns back into each
// group's state as Append encodes it.
//
// State columns: uvarint number of accumulators, a kind byte each, then per
// accumulator in spec order:
//
//	colCount      n uvarint counts
//	colSeenInt    a byte 0 (every group seen), or 1 and a bitmap of n bits
//	              (LSB first, a set bit: not seen); then per seen group the
//	              uvarint zig-zag difference of its value (sum, min or max)
//	              from the previous seen group's (the first from 0)
//	colSeenFloat  the same flag and bitmap, then per seen group the value's
//	              8 bytes (float64 bits, big endian)
//	colAvg        n × 8 bytes sums (float64 bits), then n uvarint counts

// maxStateColumns bounds the accumulators DecodeColumns accepts.
const maxStateColumns = 1024

// Kinds of state columns.
const (
	colCount     = 1
	colSeenInt   = 2
	colSeenFloat = 3
	colAvg       = 4
)

// AppendAll appends the states of all the encoder's groups, in order, back
// to back to b, and each state's length as a uvarint to lens: Append group
// by group.
func (e *StateEncoder) AppendAll(b, lens []byte) ([]byte, []byte) {
	for i := range e.groups {
		from := len(b)
		b = e.Append(b, i)
		lens = binary.AppendUvarint(lens, uint64(len(b)-from))
	}
	return b, lens
}

// stateCol is one accumulator's state arrays, for AppendColumns.
type stateCol struct {
	kind   byte
	ints   []int64   // counts, or int64 sums and extremes
	floats []float64 // float64 sums and extremes, avg sums
	seen   []bool
}

// stateCols returns the accumulators' state arrays, or ok false if one's
// state has no column kind.
func (e *StateEncoder) stateCols() (cols []stateCol, ok bool) {
	cols = make([]stateCol, len(e.t.accs))
	for i, a := range e.t.accs {
		switch a := a.(type) {
		case *countAcc:
			cols[i] = stateCol{kind: colCount, ints: a.counts}
		case *sumAcc[int64]:
			cols[i] = stateCol{kind: colSeenInt, ints: a.sums, seen: a.seen}
		case *checkedSumAcc:
			cols[i] = stateCol{kind: colSeenInt, ints: a.sums, seen: a.seen}
		case *sumAcc[float64]:
			cols[i] = stateCol{kind: colSeenFloat, floats: a.sums, seen: a.seen}
		case *minMaxAcc[int64]:
			cols[i] = stateCol{kind: colSeenInt, ints: a.vals, seen: a.seen}
		case *minMaxAcc[float64]:
			cols[i] = stateCol{kind: colSeenFloat, floats: a.vals, seen: a.seen}
		case *avgAcc:
			cols[i] = stateCol{kind: colAvg, floats: a.sums, ints: a.counts}
		default:
			return nil, false
		}
	}
	return cols, true
}

// AppendColumns appends the states of all the encoder's groups as state
// columns to b, or returns b and false if an accumulator's state has no
// column kind (count distinct, collect, approx count distinct, first,
// last, min and max of strings).
func (e *StateEncoder) AppendColumns(b []byte) ([]byte, bool) {
	cols, ok := e.stateCols()
	if !ok {
		return b, false
	}
	b = binary.AppendUvarint(b, uint64(len(cols)))
	for _, c := range cols {
		b = append(b, c.kind)
	}
	groups := e.groups
	for _, c := range cols {
		switch c.kind {
		case colCount:
			b = appendUvarints(b, c.ints, groups)
		case colSeenInt, colSeenFloat:
			b = appendSeenColumn(b, c, groups)
		case colAvg:
			b = slices.Grow(b, 8*len(groups))
			for _, g := range groups {
				b = binary.BigEndian.AppendUint64(b, math.Float64bits(c.floats[g]))
			}
			b = appendUvarints(b, c.ints, groups)
		}
	}
	return b, true
}

// appendUvarints appends vals[g] of each group as a uvarint, the buffer
// grown once and each written in place.
func appendUvarints(b []byte, vals []int64, groups []uint32) []byte {
	b = slices.Grow(b, len(groups)*binary.MaxVarintLen64)
	n, buf := len(b), b[:cap(b)]
	for _, g := range groups {
		n = putUvarint(buf, n, uint64(vals[g]))
	}
	return buf[:n]
}

// AppendZigzagDeltas appends vals[g] of each group of groups as the
// uvarint zig-zag difference from the previous group's value (the first
// from 0): a column of keys or values that repeat or grow slowly in group
// order takes a byte or two a group. The buffer grows once; each varint is
// written in place.
func AppendZigzagDeltas(b []byte, vals []int64, groups []uint32) []byte {
	b = slices.Grow(b, len(groups)*binary.MaxVarintLen64)
	n, buf := len(b), b[:cap(b)]
	prev := int64(0)
	for _, g := range groups {
		v := vals[g]
		d := v - prev
		prev = v
		n = putUvarint(buf, n, uint64(d<<1)^uint64(d>>63))
	}
	return buf[:n]
}

// putUvarint writes u as a uvarint at buf[n:], which has room for it, and
// returns the index after it.
func putUvarint(buf []byte, n int, u uint64) int {
	for u >= 0x80 {
		buf[n] = byte(u) | 0x80
		u >>= 7
		n++
	}
	buf[n] = byte(u)
	return n + 1
}

// appendSeenColumn appends a colSeenInt or colSeenFloat column.
func appendSeenColumn(b []byte, c stateCol, groups []uint32) []byte {
	first := len(groups) // the first group that saw no value
	for i, g := range groups {
		if !c.seen[g] {
			first = i
			break
		}
	}
	seen := groups
	if first == len(groups) {
		b = append(b, 0)
	} else {
		// a bitmap of the groups that saw no value, and the values of
		// the others
		b = append(b, 1)
		at := len(b)
		b = append(b, make([]byte, (len(groups)+7)/8)...)
		seen = append(make([]uint32, 0, len(groups)), groups[:first]...)
		for i := first; i < len(groups); i++ {
			if g := groups[i]; !c.seen[g] {
				b[at+i/8] |= 1 << (i % 8)
			} else {
				seen = append(seen, g)
			}
		}
	}
	if c.kind == colSeenFloat {
		b = slices.Grow(b, 8*len(seen))
		for _, g := range seen {
			b = binary.BigEndian.AppendUint64(b, math.Float64bits(c.floats[g]))
		}
		return b
	}
	return AppendZigzagDeltas(b, c.ints, seen)
}

// DecodeColumns decodes the state columns of n groups at the start of b
// (AppendColumns) into each group's state as Append encodes it: group i's
// is states[ends[i-1]:ends[i]] (from 0 for the first). rest is what follows
// the columns.
func DecodeColumns(b []byte, n int) (states []byte, ends []int, rest []byte, err error) {
	k, w := binary.Uvarint(b)
	if w <= 0 || k == 0 || k > maxStateColumns || k > uint64(len(b)-w) {
		return nil, nil, nil, fmt.Errorf("agg: state columns: bad accumulator count")
	}
	kinds := b[w : w+int(k)]
	b = b[w+int(k):]
	// per accumulator and group: the decoded value(s)
	type column struct {
		kind   byte
		vals   []uint64 // counts, int values, float bits, avg sums
		counts []uint64 // avg counts
		unseen []byte   // bitmap, nil when every group is seen
	}
	cols := make([]column, len(kinds))
	for ci, kind := range kinds {
		// every kind takes at least a bit per group: what is allocated
		// stays within a multiple of the input
		if len(b) < (n+7)/8 {
			return nil, nil, nil, fmt.Errorf("agg: state columns: accumulator %d runs past the end", ci)
		}
		c := column{kind: kind, vals: make([]uint64, n)}
		var ok bool
		switch kind {
		case colCount:
			b, ok = readUvarints(b, c.vals)
		case colSeenInt, colSeenFloat:
			if len(b) == 0 || b[0] > 1 {
				return nil, nil, nil, fmt.Errorf("agg: state columns: accumulator %d: bad seen flag", ci)
			}
			if b[0] == 1 {
				m := (n + 7) / 8
				if len(b)-1 < m {
					return nil, nil, nil, fmt.Errorf("agg: state columns: accumulator %d: seen bitmap runs past the end", ci)
				}
				c.unseen, b = b[1:1+m], b[1+m:]
			} else {
				b = b[1:]
			}
			ok = true
			prev := int64(0)
			for i := 0; i < n && ok; i++ {
				if c.unseen != nil && c.unseen[i/8]&(1<<(i%8)) != 0 {
					continue
				}
				if kind == colSeenFloat {
					c.vals[i], b, ok = u64(b)
					continue
				}
				var u uint64
				u, b, ok = uvarint(b)
				prev += int64(u>>1) ^ -int64(u&1)
				c.vals[i] = uint64(prev)
			}
		case colAvg:
			ok = len(b) >= 8*n
			for i := 0; i < n && ok; i++ {
				c.vals[i], b, _ = u64(b)
			}
			if ok {
				c.counts = make([]uint64, n)
				b, ok = readUvarints(b, c.counts)
			}
		default:
			return nil, nil, nil, fmt.Errorf("agg: state columns: accumulator %d: kind %d: written by a newer Millrace (or corrupt); upgrade Millrace", ci, kind)
		}
		if !ok {
			return nil, nil, nil, fmt.Errorf("agg: state columns: accumulator %d runs past the end", ci)
		}
		cols[ci] = c
	}
	ends = make([]int, n)
	for i := 0; i < n; i++ {
		for _, c := range cols {
			switch c.kind {
			case colCount:
				states = binary.AppendUvarint(states, c.vals[i])
			case colSeenInt, colSeenFloat:
				states = appendSeen(states, c.unseen == nil || c.unseen[i/8]&(1<<(i%8)) == 0, c.vals[i])
			case colAvg:
				states = binary.AppendUvarint(binary.BigEndian.AppendUint64(states, c.vals[i]), c.counts[i])
			}
		}
		ends[i] = len(states)
	}
	return states, ends, b, nil
}

func readUvarints(b []byte, out []uint64) ([]byte, bool) {
	for i := range out {
		var ok bool
		if out[i], b, ok = uvarint(b); !ok {
			return b, false
		}
	}
	return b, true
}
