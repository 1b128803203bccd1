package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// firstLastAcc is Spark's first/last: the value of a group's first (last)
// row in arrival order, null included, or of its first (last) non-null
// value with ignoreNulls. A batch first picks, per group, the row that
// decides (pick), then copies those rows' values once per group: a string
// is copied once per group and batch, not once per row.
type firstLastAcc struct {
	last, ignoreNulls bool
	typ               arrow.DataType
	state             []uint8  // flUnset, flNull or flValue
	fixed             []uint64 // numbers, booleans, timestamps: the value's bits
	strs              []string // strings and binaries
	pick              []int32  // scratch: the deciding row per group, -1 for none
	touched           []uint32 // scratch: groups with a pick
}

const (
	flUnset uint8 = iota // no row seen (or only nulls with ignoreNulls)
	flNull               // the chosen row's value is null
	flValue              // the chosen row's value is in fixed/strs
)

func newFirstLast(last, ignoreNulls bool, t arrow.DataType) (*firstLastAcc, error) {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.BINARY:
	default:
		return nil, fmt.Errorf("first/last of %s is not supported", columnar.TypeName(t))
	}
	return &firstLastAcc{last: last, ignoreNulls: ignoreNulls, typ: t}, nil
}

func (a *firstLastAcc) isBytes() bool {
	id := a.typ.ID()
	return id == arrow.STRING || id == arrow.BINARY
}

func (a *firstLastAcc) resize(n int) {
	a.state = growTo(a.state, n, flUnset)
	a.pick = growTo(a.pick, n, -1)
	if a.isBytes() {
		a.strs = growTo(a.strs, n, "")
	} else {
		a.fixed = growTo(a.fixed, n, 0)
	}
}

func (a *firstLastAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	var bm []byte
	off := 0
	if arg.NullN() > 0 {
		bm, off = validity(arg)
	}
	a.touched = a.touched[:0]
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if a.ignoreNulls && bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		switch {
		case a.pick[g] < 0:
			if !a.last && a.state[g] != flUnset {
				continue // first: decided in an earlier batch
			}
			a.touched = append(a.touched, g)
			a.pick[g] = int32(r)
		case a.last:
			a.pick[g] = int32(r)
		}
	}
	for _, g := range a.touched {
		r := int(a.pick[g])
		a.pick[g] = -1
		if arg.IsNull(r) {
			a.state[g] = flNull
			continue
		}
		a.state[g] = flValue
		switch c := arg.(type) {
		case *array.Int64:
			a.fixed[g] = uint64(c.Value(r))
		case *array.Int32:
			a.fixed[g] = uint64(int64(c.Value(r)))
		case *array.Timestamp:
			a.fixed[g] = uint64(c.Value(r))
		case *array.Float64:
			a.fixed[g] = math.Float64bits(c.Value(r))
		case *array.Boolean:
			a.fixed[g] = 0
			if c.Value(r) {
				a.fixed[g] = 1
			}
		case *array.String:
			a.strs[g] = strings.Clone(c.Value(r)) // Value aliases the batch's buffer
		case *array.Binary:
			a.strs[g] = string(c.Value(r))
		default:
			return fmt.Errorf("first/last of %s", columnar.TypeName(arg.DataType()))
		}
	}
	return nil
}

func (a *firstLastAcc) compact(keep []bool, _ []uint32) {
	a.state = compactSlice(a.state, keep)
	a.pick = a.pick[:len(a.state)]
	if a.isBytes() {
		a.strs = compactSlice(a.strs, keep)
		clear(a.strs[len(a.strs):cap(a.strs)]) // drop references to removed strings
	} else {
		a.fixed = compactSlice(a.fixed, keep)
	}
}

func (a *firstLastAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewBuilder(mem, a.typ)
	defer b.Release()
	b.Reserve(len(groups))
	for _, g := range groups {
		if a.state[g] != flValue {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.Append(int64(a.fixed[g]))
		case *array.Int32Builder:
			bb.Append(int32(int64(a.fixed[g])))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(int64(a.fixed[g])))
		case *array.Float64Builder:
			bb.Append(math.Float64frombits(a.fixed[g]))
		case *array.BooleanBuilder:
			bb.Append(a.fixed[g] == 1)
		case *array.StringBuilder:
			bb.Append(a.strs[g])
		case *array.BinaryBuilder:
			bb.AppendString(a.strs[g])
		}
	}
	return b.NewArray()
}

func (a *firstLastAcc) resultType() (arrow.DataType, bool) { return a.typ, true }

func (a *firstLastAcc) memory() int64 {
	m := int64(cap(a.state)) + int64(cap(a.fixed))*8 + int64(cap(a.pick)+cap(a.touched))*4 + int64(cap(a.strs))*16
	for _, s := range a.strs {
		m += int64(len(s))
	}
	return m
}

// appendState appends group g's state: one byte (flUnset, flNull,
// flValue), then for a value 8 bytes (numbers, booleans, timestamps) or a
// uvarint length and the bytes.
func (a *firstLastAcc) appendState(b []byte, g uint32) []byte {
	b = append(b, a.state[g])
	if a.state[g] != flValue {
		return b
	}
	if a.isBytes() {
		return append(binary.AppendUvarint(b, uint64(len(a.strs[g]))), a.strs[g]...)
	}
	return binary.BigEndian.AppendUint64(b, a.fixed[g])
}

func (a *firstLastAcc) readState(b []byte, g uint32) ([]byte, bool) {
	if len(b) < 1 || b[0] > flValue {
		return b, false
	}
	a.state[g] = b[0]
	b = b[1:]
	if a.state[g] != flValue {
		return b, true
	}
	if a.isBytes() {
		n, rest, ok := uvarint(b)
		if !ok || uint64(len(rest)) < n {
			return b, false
		}
		a.strs[g] = string(rest[:n])
		return rest[n:], true
	}
	v, rest, ok := u64(b)
	a.fixed[g] = v
	return rest, ok
}
