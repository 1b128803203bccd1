package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// keyCol stores the values of one key column for every group, indexed by
// group id. Fixed-width types (int32, int64, timestamp, float64, bool) are
// widened to int64 (floats normalised by normFloat, bools 0/1); strings and
// binary live in a byte arena delimited by offs. A null key is stored as
// value 0 (or the empty string) with nulls[g] set.
type keyCol struct {
	typ   arrow.DataType
	bytes bool    // string or binary
	vals  []int64 // fixed-width values
	offs  []int   // bytes: group g is arena[offs[g]:offs[g+1]]; len = groups+1
	arena []byte
	nulls []bool
}

func newKeyCol(t arrow.DataType) (keyCol, error) {
	c := keyCol{typ: t}
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64, arrow.BOOL, arrow.DATE32:
	case arrow.STRING, arrow.BINARY:
		c.bytes = true
		c.offs = []int{0}
	default:
		return c, fmt.Errorf("agg: unsupported key type %s", columnar.TypeName(t))
	}
	return c, nil
}

func (c *keyCol) bytesOf(g uint32) []byte { return c.arena[c.offs[g]:c.offs[g+1]] }

func (c *keyCol) reset() {
	c.vals = c.vals[:0]
	c.nulls = c.nulls[:0]
	c.arena = c.arena[:0]
	if c.bytes {
		c.offs = c.offs[:1]
	}
}

// compact keeps the groups whose keep flag is set, in order.
func (c *keyCol) compact(keep []bool) {
	j := 0
	if c.bytes {
		w := 0
		for g, k := range keep {
			if !k {
				continue
			}
			s, e := c.offs[g], c.offs[g+1]
			copy(c.arena[w:], c.arena[s:e])
			c.offs[j] = w
			w += e - s
			c.nulls[j] = c.nulls[g]
			j++
		}
		c.offs[j] = w
		c.offs = c.offs[:j+1]
		c.arena = c.arena[:w]
		c.nulls = c.nulls[:j]
		return
	}
	for g, k := range keep {
		if k {
			c.vals[j] = c.vals[g]
			c.nulls[j] = c.nulls[g]
			j++
		}
	}
	c.vals = c.vals[:j]
	c.nulls = c.nulls[:j]
}

func (c *keyCol) memory() int64 {
	return int64(cap(c.vals))*8 + int64(cap(c.offs))*8 + int64(cap(c.arena)) + int64(cap(c.nulls))
}

// colScratch is one key column of the current batch gathered to live-row
// order: vals for fixed-width columns (normalised like keyCol.vals), starts
// and ends into data for byte columns. nulls is nil when no live row is null;
// null rows hold value 0 / an empty string.
type colScratch struct {
	vals        []int64
	starts, end []int32
	data        []byte
	nulls       []bool
	nullBuf     []bool // backing store of nulls
}

func (s *colScratch) bytesOf(i int) []byte { return s.data[s.starts[i]:s.end[i]] }

func growI64(b []int64, n int) []int64 {
	if cap(b) < n {
		return make([]int64, n)
	}
	return b[:n]
}

func growI32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}

func growU32(b []uint32, n int) []uint32 {
	if cap(b) < n {
		return make([]uint32, n)
	}
	return b[:n]
}

func growU64(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n)
	}
	return b[:n]
}

func growBool(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	return b[:n]
}

// gatherFixed copies vals at the live rows into dst, widened to int64.
func gatherFixed[T ~int32 | ~int64](dst []int64, vals []T, sel []int32) {
	if sel == nil {
		vals = vals[:len(dst)]
		for i, v := range vals {
			dst[i] = int64(v)
		}
		return
	}
	for i, r := range sel {
		dst[i] = int64(vals[r])
	}
}

// gather fills s with the live rows of arr (n live rows).
func (s *colScratch) gather(arr arrow.Array, sel []int32, n int) error {
	s.nulls = nil
	hasNulls := arr.NullN() > 0
	isBytes := false
	switch a := arr.(type) {
	case *array.Int64:
		s.vals = growI64(s.vals, n)
		gatherFixed(s.vals, a.Int64Values(), sel)
	case *array.Timestamp:
		s.vals = growI64(s.vals, n)
		gatherFixed(s.vals, a.TimestampValues(), sel)
	case *array.Int32:
		s.vals = growI64(s.vals, n)
		gatherFixed(s.vals, a.Int32Values(), sel)
	case *array.Date32:
		s.vals = growI64(s.vals, n)
		gatherFixed(s.vals, a.Date32Values(), sel)
	case *array.Float64:
		s.vals = growI64(s.vals, n)
		v := a.Float64Values()
		if sel == nil {
			for i := range s.vals {
				s.vals[i] = normFloat(v[i])
			}
		} else {
			for i, r := range sel {
				s.vals[i] = normFloat(v[r])
			}
		}
	case *array.Boolean:
		s.vals = growI64(s.vals, n)
		for i := range s.vals {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			s.vals[i] = 0
			if a.Value(r) {
				s.vals[i] = 1
			}
		}
	case *array.String, *array.Binary:
		isBytes = true
		var offs []int32
		if sa, ok := a.(*array.String); ok {
			offs = sa.ValueOffsets()
		} else {
			offs = a.(*array.Binary).ValueOffsets()
		}
		s.data = nil
		if b := arr.Data().Buffers()[2]; b != nil {
			s.data = b.Bytes()
		}
		s.starts = growI32(s.starts, n)
		s.end = growI32(s.end, n)
		if sel == nil {
			offs = offs[:n+1]
			for i := range s.starts {
				s.starts[i] = offs[i]
				s.end[i] = offs[i+1]
			}
		} else {
			for i, r := range sel {
				s.starts[i] = offs[r]
				s.end[i] = offs[r+1]
			}
		}
	default:
		return fmt.Errorf("agg: unsupported key column type %s", columnar.TypeName(arr.DataType()))
	}
	if !hasNulls {
		return nil
	}
	s.nullBuf = growBool(s.nullBuf, n)
	s.nulls = s.nullBuf
	bm := arr.NullBitmapBytes()
	off := arr.Data().Offset()
	for i := range s.nulls {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		null := !bitutil.BitIsSet(bm, off+r)
		s.nulls[i] = null
		if null {
			if isBytes {
				s.end[i] = s.starts[i]
			} else {
				s.vals[i] = 0
			}
		}
	}
	return nil
}

// appendRows appends the live rows rows of s as new groups.
func (c *keyCol) appendRows(s *colScratch, rows []int32) {
	if c.bytes {
		for _, i := range rows {
			c.arena = append(c.arena, s.bytesOf(int(i))...)
			c.offs = append(c.offs, len(c.arena))
		}
	} else {
		for _, i := range rows {
			c.vals = append(c.vals, s.vals[i])
		}
	}
	if s.nulls == nil {
		for range rows {
			c.nulls = append(c.nulls, false)
		}
		return
	}
	for _, i := range rows {
		c.nulls = append(c.nulls, s.nulls[i])
	}
}

// build returns the values of groups as an Arrow array of the column's type.
func (c *keyCol) build(mem memory.Allocator, groups []uint32) arrow.Array {
	b := array.NewBuilder(mem, c.typ)
	defer b.Release()
	b.Reserve(len(groups))
	switch bb := b.(type) {
	case *array.Int64Builder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(c.vals[g])
		}
	case *array.TimestampBuilder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(arrow.Timestamp(c.vals[g]))
		}
	case *array.Int32Builder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(int32(c.vals[g]))
		}
	case *array.Date32Builder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(arrow.Date32(c.vals[g]))
		}
	case *array.Float64Builder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(floatOf(c.vals[g]))
		}
	case *array.BooleanBuilder:
		for _, g := range groups {
			if c.nulls[g] {
				bb.UnsafeAppendBoolToBitmap(false)
				continue
			}
			bb.UnsafeAppend(c.vals[g] != 0)
		}
	case *array.StringBuilder:
		n := 0
		for _, g := range groups {
			n += c.offs[g+1] - c.offs[g]
		}
		bb.ReserveData(n)
		for _, g := range groups {
			if c.nulls[g] {
				bb.AppendNull()
				continue
			}
			bb.BinaryBuilder.Append(c.bytesOf(g))
		}
	case *array.BinaryBuilder:
		n := 0
		for _, g := range groups {
			n += c.offs[g+1] - c.offs[g]
		}
		bb.ReserveData(n)
		for _, g := range groups {
			if c.nulls[g] {
				bb.AppendNull()
				continue
			}
			bb.Append(c.bytesOf(g))
		}
	}
	return b.NewArray()
}

// permuteTail reorders the groups from oldN on so that new group oldN+i
// holds what group oldN+inv[i] held.
func (c *keyCol) permuteTail(oldN int, inv []uint32) {
	nulls := append([]bool(nil), c.nulls[oldN:]...)
	for i, old := range inv {
		c.nulls[oldN+i] = nulls[old]
	}
	if !c.bytes {
		vals := append([]int64(nil), c.vals[oldN:]...)
		for i, old := range inv {
			c.vals[oldN+i] = vals[old]
		}
		return
	}
	base := c.offs[oldN]
	offs := append([]int(nil), c.offs[oldN:]...)
	arena := append([]byte(nil), c.arena[base:]...)
	c.arena = c.arena[:base]
	for i, old := range inv {
		c.arena = append(c.arena, arena[offs[old]-base:offs[old+1]-base]...)
		c.offs[oldN+i+1] = len(c.arena)
	}
}
