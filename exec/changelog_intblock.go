package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/millrace/millrace/agg"
)

// An int-key block (row kind rowPutInts) is one row of a blob that puts
// many rows at once: the changed groups of an aggregation whose grouping
// keys are all integers, dates or timestamps (aggOperator.intKeys), laid
// out by column instead of row by row. A row-by-row put of such a group
// repeats per row its kind, key length, every key column as a marker and 8
// bytes, and its state's length (31 bytes for a window × user count and
// max); the block writes each key column once as zig-zag varint
// differences from the previous row's value (a window start repeats, so
// 1 byte; ids a few), then the states back to back, then their lengths:
// about half the bytes, encoded in tight per-column loops, and half the
// bytes to copy into the page cache and checksum. Layout:
//
//	rowPutInts
//	uvarint n          rows (>= 1)
//	uvarint cols       key columns (1..maxBlockCols)
//	per key column:    a byte 0 (no null), or 1 and a bitmap of n bits
//	                   (LSB first, a set bit is a null key), then per row
//	                   whose key is not null the uvarint zig-zag
//	                   difference from the previous such row's value (the
//	                   first from 0)
//	byte layout        statesByColumn: the rows' values as state columns
//	                   (agg.StateEncoder.AppendColumns: a count, sum, min,
//	                   max or avg of numbers each); or statesByRow (other
//	                   aggregates), then:
//	  uint32 BE size   of the states that follow
//	  states           the rows' values (agg.StateEncoder), back to back
//	  n uvarint        each row's value length (they sum to size)
//
// Row i puts key = per column 0x00 (null) or 0x01 and the value big endian
// with its sign bit flipped (columnar.EncodeKeys, appendIntKey), value =
// its state. Rows apply in order, like n rowPut rows.
const rowPutInts = 3

// maxBlockCols bounds a block's key columns (a grouping has a handful).
const maxBlockCols = 64

// appendIntBlock appends the int-key block putting groups (ascending ids,
// none of them evicted) of ht with their states from enc (made for
// groups). lens is a scratch buffer for the lengths column; it is returned
// for reuse.
func appendIntBlock(b []byte, ht *agg.HashTable, cols int, groups []uint32, enc *agg.StateEncoder, lens []byte) ([]byte, []byte) {
	b = append(b, rowPutInts)
	b = binary.AppendUvarint(b, uint64(len(groups)))
	b = binary.AppendUvarint(b, uint64(cols))
	for c := 0; c < cols; c++ {
		vals, nulls := ht.KeyInt64Column(c)
		b = appendKeyColumn(b, vals, nulls, groups)
	}
	if cols, ok := enc.AppendColumns(append(b, statesByColumn)); ok {
		return cols, lens
	}
	b = append(b, statesByRow)
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	b, lens = enc.AppendAll(b, lens[:0])
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return append(b, lens...), lens
}

// How an int-key block lays out its states.
const (
	statesByRow    = 0
	statesByColumn = 1
)

// appendKeyColumn appends one key column of a block: its null flag (and
// bitmap), then its non-null values as zig-zag varint differences.
func appendKeyColumn(b []byte, vals []int64, nulls []bool, groups []uint32) []byte {
	first := len(groups) // the first group whose key is null
	for i, g := range groups {
		if nulls[g] {
			first = i
			break
		}
	}
	if first == len(groups) {
		return agg.AppendZigzagDeltas(append(b, 0), vals, groups)
	}
	b = append(b, 1)
	at := len(b)
	b = append(b, make([]byte, (len(groups)+7)/8)...)
	valued := append(make([]uint32, 0, len(groups)), groups[:first]...)
	for i := first; i < len(groups); i++ {
		if g := groups[i]; nulls[g] {
			b[at+i/8] |= 1 << (i % 8)
		} else {
			valued = append(valued, g)
		}
	}
	return agg.AppendZigzagDeltas(b, vals, valued)
}

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// applyIntBlock applies an int-key block (b starts after its kind byte) to
// rows and returns what follows it.
func applyIntBlock(rows map[string][]byte, b []byte) ([]byte, error) {
	n, k := binary.Uvarint(b)
	// every row has at least its length byte
	if k <= 0 || n == 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("corrupt int-key block: bad row count")
	}
	b = b[k:]
	cols, k := binary.Uvarint(b)
	if k <= 0 || cols == 0 || cols > maxBlockCols {
		return nil, fmt.Errorf("corrupt int-key block: bad column count")
	}
	b = b[k:]
	// every column takes at least a bit a row (its null bitmap), so what
	// the keys take below stays within a multiple of the block's bytes
	if cols*((n+7)/8) > uint64(len(b)) {
		return nil, fmt.Errorf("corrupt int-key block: %d rows of %d columns in %d bytes", n, cols, len(b))
	}
	rowsN, colsN := int(n), int(cols)
	keyLen := 9 * colsN
	keys := make([]byte, rowsN*keyLen) // 9 bytes per column and row
	var nullRow []bool                 // rows with a null key, when a column has nulls
	for c := 0; c < colsN; c++ {
		if len(b) == 0 || b[0] > 1 {
			return nil, fmt.Errorf("corrupt int-key block: column %d: bad null flag", c)
		}
		var bitmap []byte
		if b[0] == 1 {
			m := (rowsN + 7) / 8
			if len(b)-1 < m {
				return nil, fmt.Errorf("corrupt int-key block: column %d: null bitmap runs past the end", c)
			}
			bitmap = b[1 : 1+m]
			b = b[1+m:]
			if nullRow == nil {
				nullRow = make([]bool, rowsN)
			}
		} else {
			b = b[1:]
		}
		prev := int64(0)
		for i := 0; i < rowsN; i++ {
			at := i*keyLen + 9*c
			if bitmap != nil && bitmap[i/8]&(1<<(i%8)) != 0 {
				nullRow[i] = true
				continue // keys[at] stays 0: the null marker
			}
			u, k := binary.Uvarint(b)
			if k <= 0 {
				return nil, fmt.Errorf("corrupt int-key block: column %d: row %d's value runs past the end", c, i)
			}
			b = b[k:]
			prev += unzigzag(u)
			keys[at] = keyNotNullMarker
			binary.BigEndian.PutUint64(keys[at+1:], uint64(prev)^(1<<63))
		}
	}
	if len(b) == 0 || b[0] > statesByColumn {
		return nil, fmt.Errorf("corrupt int-key block: bad states layout")
	}
	put := func(i int, state []byte) {
		key := keys[i*keyLen : (i+1)*keyLen]
		if nullRow != nil && nullRow[i] {
			key = compactNullKeys(key)
		}
		rows[string(key)] = state
	}
	if b[0] == statesByColumn {
		states, ends, rest, err := agg.DecodeColumns(b[1:], rowsN)
		if err != nil {
			return nil, fmt.Errorf("corrupt int-key block: %w", err)
		}
		from := 0
		for i, end := range ends {
			put(i, states[from:end:end])
			from = end
		}
		return rest, nil
	}
	b = b[1:]
	if len(b) < 4 {
		return nil, fmt.Errorf("corrupt int-key block: no states")
	}
	size := uint64(binary.BigEndian.Uint32(b))
	if uint64(len(b)-4) < size {
		return nil, fmt.Errorf("corrupt int-key block: states run past the end")
	}
	states := b[4 : 4+size]
	b = b[4+size:]
	off := uint64(0)
	for i := 0; i < rowsN; i++ {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > size-off {
			return nil, fmt.Errorf("corrupt int-key block: row %d's state length is bad", i)
		}
		b = b[k:]
		put(i, append([]byte(nil), states[off:off+l]...))
		off += l
	}
	if off != size {
		return nil, fmt.Errorf("corrupt int-key block: %d bytes of states, %d used", size, off)
	}
	return b, nil
}

// compactNullKeys rewrites in place a key of 9-byte column slots in which a
// null column is a 0 marker and 8 unused bytes into the key encoding, where
// a null column is the marker alone, and returns it.
func compactNullKeys(key []byte) []byte {
	out := key[:0]
	for at := 0; at < len(key); at += 9 {
		if key[at] == 0 {
			out = append(out, 0)
			continue
		}
		out = append(out, key[at:at+9]...)
	}
	return out
}
