package agg

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// minMaxBytesAcc is min(col) or max(col) of a string or binary column.
// Values order by their bytes, unsigned, as Spark orders strings (its
// default UTF8_BINARY collation compares UTF-8 bytes, so U+10000 sorts
// after U+FFFD, unlike Java's UTF-16 String.compareTo) and binaries; Go's
// string comparison is exactly that.
//
// A group's value is a Go string owned by the accumulator. A batch first
// picks, per group, the row holding the batch's best value that beats the
// stored one (comparing the batch's bytes in place: arrow's Value does not
// copy), then copies those rows once per group: a string is allocated at
// most once per group and batch, and not at all when the batch does not
// improve on the group.
type minMaxBytesAcc struct {
	typ     arrow.DataType
	isMax   bool
	vals    []string
	seen    []bool
	pick    []int32  // scratch: the best row of the batch per group, -1 for none
	touched []uint32 // scratch: groups with a pick
}

func newMinMaxBytes(isMax bool, t arrow.DataType) *minMaxBytesAcc {
	return &minMaxBytesAcc{typ: t, isMax: isMax}
}

func (a *minMaxBytesAcc) resize(n int) {
	a.vals = growTo(a.vals, n, "")
	a.seen = growTo(a.seen, n, false)
	a.pick = growTo(a.pick, n, -1)
}

// better reports whether v replaces cur.
func (a *minMaxBytesAcc) better(v, cur string) bool {
	if a.isMax {
		return v > cur
	}
	return v < cur
}

func (a *minMaxBytesAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	switch c := arg.(type) {
	case *array.String:
		minMaxPick(a, groups, c, sel)
	case *array.Binary:
		minMaxPick(a, groups, binaryAsString{c}, sel)
	default:
		return fmt.Errorf("agg: min/max of %s", columnar.TypeName(arg.DataType()))
	}
	return nil
}

// stringValues is what minMaxPick reads: *array.String, or a binary column
// seen as strings without copying.
type stringValues interface {
	arrow.Array
	Value(i int) string
}

type binaryAsString struct{ *array.Binary }

func (b binaryAsString) Value(i int) string { return b.ValueString(i) }

// minMaxPick is the batch loop, generic so that Value is a direct call.
func minMaxPick[C stringValues](a *minMaxBytesAcc, groups []uint32, c C, sel []int32) {
	var bm []byte
	off := 0
	if c.NullN() > 0 {
		bm, off = validity(c)
	}
	a.touched = a.touched[:0]
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue
		}
		v := c.Value(r)
		if p := a.pick[g]; p >= 0 {
			if a.better(v, c.Value(int(p))) {
				a.pick[g] = int32(r)
			}
			continue
		}
		if !a.seen[g] || a.better(v, a.vals[g]) {
			a.pick[g] = int32(r)
			a.touched = append(a.touched, g)
		}
	}
	for _, g := range a.touched {
		// Value aliases the batch's buffer: keep a copy
		a.vals[g] = strings.Clone(c.Value(int(a.pick[g])))
		a.seen[g] = true
		a.pick[g] = -1
	}
}

func (a *minMaxBytesAcc) compact(keep []bool, _ []uint32) {
	a.vals = compactSlice(a.vals, keep)
	clear(a.vals[len(a.vals):cap(a.vals)]) // drop references to removed strings
	a.seen = compactSlice(a.seen, keep)
	a.pick = a.pick[:len(a.vals)]
}

func (a *minMaxBytesAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewBuilder(mem, a.typ)
	defer b.Release()
	b.Reserve(len(groups))
	size := 0
	for _, g := range groups {
		size += len(a.vals[g])
	}
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.ReserveData(size)
		for _, g := range groups {
			if !a.seen[g] {
				bb.AppendNull()
				continue
			}
			bb.Append(a.vals[g])
		}
	case *array.BinaryBuilder:
		bb.ReserveData(size)
		for _, g := range groups {
			if !a.seen[g] {
				bb.AppendNull()
				continue
			}
			bb.AppendString(a.vals[g])
		}
	}
	return b.NewArray()
}

func (a *minMaxBytesAcc) resultType() (arrow.DataType, bool) { return a.typ, true }

func (a *minMaxBytesAcc) memory() int64 {
	m := int64(cap(a.vals))*16 + int64(cap(a.seen)) + int64(cap(a.pick)+cap(a.touched))*4
	for _, s := range a.vals {
		m += int64(len(s))
	}
	return m
}

// appendState appends group g's state: a byte 0 (no value yet) or 1, then
// for a value its uvarint length and bytes.
func (a *minMaxBytesAcc) appendState(b []byte, g uint32) []byte {
	if !a.seen[g] {
		return append(b, 0)
	}
	b = binary.AppendUvarint(append(b, 1), uint64(len(a.vals[g])))
	return append(b, a.vals[g]...)
}

func (a *minMaxBytesAcc) readState(b []byte, g uint32) ([]byte, bool) {
	if len(b) < 1 || b[0] > 1 {
		return b, false
	}
	a.seen[g] = b[0] == 1
	if !a.seen[g] {
		a.vals[g] = ""
		return b[1:], true
	}
	n, rest, ok := uvarint(b[1:])
	if !ok || uint64(len(rest)) < n {
		return b, false
	}
	a.vals[g] = string(rest[:n])
	return rest[n:], true
}
