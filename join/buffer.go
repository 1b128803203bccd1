package join

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// noTime is the time of a row without an event time: below every eviction
// bound, so the next Evict removes it.
const noTime = math.MinInt64

// Buffer is the state of one side of a stream-stream join: the rows of that
// side not yet evicted, indexed by key, with a matched flag per row. See the
// package documentation for the layout and invariants. A Buffer is not safe
// for concurrent use.
type Buffer struct {
	mem      memory.Allocator
	schema   *arrow.Schema
	keyCols  []int
	keyTypes []arrow.DataType
	timeCol  int
	ht       *agg.HashTable

	// Rows are stored in chunks, as added; buffered row r lives in chunk
	// chunkOf[r] at row r-chunkStart[chunkOf[r]].
	chunks     []arrow.RecordBatch
	chunkStart []int32 // len(chunks)+1 entries

	// Per buffered row.
	times   []int64  // event time; noTime when the row has none
	key     []uint32 // key id; agg.NoGroup when the row cannot match
	next    []int32  // next row of the same key in arrival order, -1 at the end
	matched []bool
	ids     []int64 // sequence number, strictly increasing with r
	chunkOf []uint32

	// Per key id: the first and last row of its chain, -1 when none.
	first, last []int32
	liveKeys    int // key ids with a non-empty chain
	minTime     int64

	seq int64 // sequence number of the next added row

	// Changelog since the last Snapshot or Changes.
	mark       int64   // rows with ids >= mark were added since
	dirty      []int64 // ids < mark whose matched flag was set since
	evictBound int64   // highest Evict bound since, noTime when none

	groups []uint32
	sel    []int32
}

// NewBuffer returns an empty buffer for rows of schema, keyed on the columns
// keyCols (int32, int64, timestamp, float64, bool, string or binary) with
// event time in column timeCol (timestamp or int64; probes and eviction
// bounds use the same unit). Copies are allocated from mem.
func NewBuffer(mem memory.Allocator, schema *arrow.Schema, keyCols []int, timeCol int) (*Buffer, error) {
	types, err := keyTypesOf(schema, keyCols)
	if err != nil {
		return nil, fmt.Errorf("join: buffer: %w", err)
	}
	if timeCol < 0 || timeCol >= schema.NumFields() {
		return nil, fmt.Errorf("join: buffer: time column %d out of range (schema has %d fields)", timeCol, schema.NumFields())
	}
	if id := schema.Field(timeCol).Type.ID(); id != arrow.TIMESTAMP && id != arrow.INT64 {
		return nil, fmt.Errorf("join: buffer: time column %q is %s, want timestamp or int64",
			schema.Field(timeCol).Name, columnar.TypeName(schema.Field(timeCol).Type))
	}
	ht, err := agg.NewHashTable(types)
	if err != nil {
		return nil, fmt.Errorf("join: buffer: %w", err)
	}
	return &Buffer{
		mem: mem, schema: schema, keyCols: keyCols, keyTypes: types, timeCol: timeCol, ht: ht,
		chunkStart: []int32{0}, minTime: math.MaxInt64, evictBound: noTime,
	}, nil
}

// Release drops the buffer's references to its rows. The buffer is empty
// afterwards but keeps its sequence numbers.
func (b *Buffer) Release() {
	for _, c := range b.chunks {
		c.Release()
	}
	b.chunks = nil
	b.chunkStart = b.chunkStart[:1]
	b.truncateRows(0)
	b.ht.Reset()
	b.first, b.last = b.first[:0], b.last[:0]
	b.liveKeys = 0
	b.minTime = math.MaxInt64
}

func (b *Buffer) truncateRows(n int) {
	b.times, b.key, b.next = b.times[:n], b.key[:n], b.next[:n]
	b.matched, b.ids, b.chunkOf = b.matched[:n], b.ids[:n], b.chunkOf[:n]
}

// Schema returns the schema of the buffered rows.
func (b *Buffer) Schema() *arrow.Schema { return b.schema }

// KeyTypes returns the types of the key columns, which probe keys must have.
func (b *Buffer) KeyTypes() []arrow.DataType { return b.keyTypes }

// Rows returns the number of buffered rows.
func (b *Buffer) Rows() int { return len(b.times) }

// Keys returns the number of distinct keys with buffered rows.
func (b *Buffer) Keys() int { return b.liveKeys }

// MinTime returns the smallest event time buffered (math.MinInt64 when a
// row that cannot match is buffered, math.MaxInt64 when empty).
func (b *Buffer) MinTime() int64 { return b.minTime }

// Seq returns the sequence number the next added row will get: the count
// of rows ever added (including loaded ones).
func (b *Buffer) Seq() int64 { return b.seq }

// MemoryUsage returns the approximate bytes held: buffered columns, per-row
// index and the hash table.
func (b *Buffer) MemoryUsage() int64 {
	m := b.ht.MemoryUsage()
	m += int64(cap(b.times))*8 + int64(cap(b.key))*4 + int64(cap(b.next))*4 + int64(cap(b.matched)) +
		int64(cap(b.ids))*8 + int64(cap(b.chunkOf))*4 + int64(cap(b.first)+cap(b.last))*4
	seen := map[*memory.Buffer]struct{}{}
	for _, c := range b.chunks {
		for _, col := range c.Columns() {
			m += arrayBytes(col.Data(), seen)
		}
	}
	return m
}

// Add appends the live rows of rec (rows sel, or every row when sel is nil)
// to the buffer, in order, and returns the buffered row number of the first
// one; live row i becomes row first+i until the next Evict. matchedRows
// (record rows, ascending, a subset of the live rows; nil for none) are
// added with their matched flag set: the rows of this batch that already
// matched the other side.
//
// Ownership: with a nil selection Add retains rec and keeps it as a chunk
// (the caller keeps its own reference); with a selection it copies the live
// rows. Rows with a null key column or a null event time are buffered but
// never match. A null-key row leaves when an Evict bound passes its time; a
// row without a time at the next Evict (so an outer join emits both).
func (b *Buffer) Add(rec arrow.RecordBatch, sel []int32, matchedRows []int32) (int32, error) {
	first := int32(len(b.times))
	if !rec.Schema().Equal(b.schema) {
		return first, fmt.Errorf("join: buffer add: record schema %s, want %s", rec.Schema(), b.schema)
	}
	n := rec.NumRows()
	if sel != nil {
		n = int64(len(sel))
	}
	if int64(first)+n >= math.MaxInt32 {
		return first, fmt.Errorf("join: buffer add: %d rows would exceed %d buffered rows", n, math.MaxInt32-1)
	}
	if n == 0 {
		return first, nil
	}
	var stored arrow.RecordBatch
	if sel == nil {
		rec.Retain()
		stored = rec
	} else {
		stored = kernels.Compact(b.mem, columnar.Batch{Rec: rec, Sel: sel})
	}
	if err := b.appendRows(stored, nil, nil); err != nil {
		stored.Release()
		return first, err
	}
	// Matched flags: walk matchedRows against the live rows.
	j := 0
	for _, r := range matchedRows {
		if sel == nil {
			b.matched[int(first)+int(r)] = true
			continue
		}
		for j < len(sel) && sel[j] < r {
			j++
		}
		if j < len(sel) && sel[j] == r {
			b.matched[int(first)+j] = true
		}
	}
	return first, nil
}

// appendRows appends every row of rec (taking over the caller's
// reference) as a new chunk. ids and matched give the rows' sequence numbers
// and flags (nil: the next sequence numbers, unmatched).
func (b *Buffer) appendRows(rec arrow.RecordBatch, ids []int64, matched []bool) error {
	base := len(b.times)
	n := int(rec.NumRows())
	keys := make([]arrow.Array, len(b.keyCols))
	for i, c := range b.keyCols {
		keys[i] = rec.Column(c)
	}
	tcol := rec.Column(b.timeCol)
	tv := int64Values(tcol)
	valid := validRows(append(keys, tcol), nil, &b.sel)
	groups, err := b.ht.Lookup(keys, valid, b.groups, true)
	b.groups = groups
	if err != nil {
		return fmt.Errorf("join: buffer add: %w", err)
	}
	chunk := uint32(len(b.chunks))
	b.chunks = append(b.chunks, rec)
	b.chunkStart = append(b.chunkStart, int32(base+n))
	for i := 0; i < n; i++ {
		b.times = append(b.times, noTime)
		b.key = append(b.key, agg.NoGroup)
		b.next = append(b.next, -1)
		b.chunkOf = append(b.chunkOf, chunk)
	}
	times, key := b.times[base:], b.key[base:]
	// A row with a null key keeps its time: it matches nothing but leaves
	// with the rows of its time (an outer join emits it when the watermark
	// passes it, as Spark does). A row without a time leaves at once.
	switch {
	case tcol.NullN() == 0:
		copy(times, tv)
	default:
		for i := range times {
			if tcol.IsValid(i) {
				times[i] = tv[i]
			}
		}
	}
	if valid == nil {
		copy(key, groups)
	} else {
		for i, r := range valid {
			key[r] = groups[i]
		}
	}
	if matched == nil {
		b.matched = append(b.matched, make([]bool, n)...)
	} else {
		b.matched = append(b.matched, matched...)
	}
	if ids == nil {
		for i := 0; i < n; i++ {
			b.ids = append(b.ids, b.seq+int64(i))
		}
		b.seq += int64(n)
	} else {
		b.ids = append(b.ids, ids...)
		b.seq = max(b.seq, ids[n-1]+1)
	}
	for len(b.first) < b.ht.Len() {
		b.first = append(b.first, -1)
		b.last = append(b.last, -1)
	}
	b.link(base, len(b.times))
	return nil
}

// link appends rows [from, to) to the chains of their keys and updates the
// minimum time.
func (b *Buffer) link(from, to int) {
	first, last, next := b.first, b.last, b.next
	minT := b.minTime
	for r := from; r < to; r++ {
		t := b.times[r]
		minT = min(minT, t)
		g := b.key[r]
		if g == agg.NoGroup {
			continue
		}
		if l := last[g]; l >= 0 {
			next[l] = int32(r)
		} else {
			first[g] = int32(r)
			b.liveKeys++
		}
		last[g] = int32(r)
	}
	b.minTime = minT
}

// int64Values returns the values of an int64 or timestamp array.
func int64Values(a arrow.Array) []int64 {
	switch c := a.(type) {
	case *array.Int64:
		return c.Int64Values()
	case *array.Timestamp:
		d := c.Data()
		return arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
	}
	return nil
}

// SetMatched sets the matched flag of buffered rows (row numbers since the
// last Evict).
func (b *Buffer) SetMatched(rows []int32) {
	for _, r := range rows {
		b.setMatched(r)
	}
}

func (b *Buffer) setMatched(r int32) {
	if b.matched[r] {
		return
	}
	b.matched[r] = true
	if id := b.ids[r]; id < b.mark {
		b.dirty = append(b.dirty, id)
	}
}

// Matched reports whether buffered row r has matched.
func (b *Buffer) Matched(r int32) bool { return b.matched[r] }

// Probe fills out with the buffered rows that join the live rows of a probe
// batch (row sel[i], or row i when sel is nil): equal keys (keys, of the
// buffer's key types) and a buffered time in [t+lower, t+upper], t being
// the probe row's time in times (int64 or timestamp, same unit as the
// buffer). lower and upper may be math.MinInt64 and math.MaxInt64 for no
// bound; the sums saturate. Probe rows with a null key or time match
// nothing. Matched buffered rows get their matched flag set; those matched
// for the first time are listed in out.FirstMatched.
func (b *Buffer) Probe(keys []arrow.Array, times arrow.Array, sel []int32, lower, upper int64, out *Matches) error {
	out.Reset()
	if len(b.times) == 0 {
		return nil
	}
	tv := int64Values(times)
	if tv == nil {
		return fmt.Errorf("join: buffer probe: time column is %s, want timestamp or int64", columnar.TypeName(times.DataType()))
	}
	// Null keys find no key id (the table holds none); null times are
	// removed here.
	valid := validRows([]arrow.Array{times}, sel, &b.sel)
	groups, err := b.ht.Lookup(keys, valid, b.groups, false)
	b.groups = groups
	if err != nil {
		return fmt.Errorf("join: buffer probe: %w", err)
	}
	pr, br, fm := out.ProbeRows, out.BuildRows, out.FirstMatched
	first, next, bt, matched := b.first, b.next, b.times, b.matched
	for i, g := range groups {
		if g == agg.NoGroup {
			continue
		}
		p := int32(i)
		if valid != nil {
			p = valid[i]
		}
		t := tv[p]
		lo, hi := satAdd(t, lower), satAdd(t, upper)
		for r := first[g]; r >= 0; r = next[r] {
			if x := bt[r]; x < lo || x > hi {
				continue
			}
			pr = append(pr, p)
			br = append(br, r)
			if !matched[r] {
				fm = append(fm, r)
				b.setMatched(r)
			}
		}
	}
	out.ProbeRows, out.BuildRows, out.FirstMatched = pr, br, fm
	return nil
}

// satAdd returns t+d clamped to the int64 range; d at either extreme is an
// absent bound and yields that extreme.
func satAdd(t, d int64) int64 {
	switch d {
	case math.MinInt64, math.MaxInt64:
		return d
	}
	s := t + d
	if d > 0 && s < t {
		return math.MaxInt64
	}
	if d < 0 && s > t {
		return math.MinInt64
	}
	return s
}

// Gather returns the buffered rows rows (row numbers, -1 for an all-null
// row) as a record of the buffer's schema. The caller releases it.
func (b *Buffer) Gather(mem memory.Allocator, rows []int32) arrow.RecordBatch {
	cols := make([]int, b.schema.NumFields())
	for i := range cols {
		cols[i] = i
	}
	return Assemble(b.schema, len(rows), b.GatherColumns(mem, rows, cols))
}

// GatherColumns returns the columns cols of the buffered rows rows (-1 for
// null), one array per column. The caller releases the arrays.
func (b *Buffer) GatherColumns(mem memory.Allocator, rows []int32, cols []int) []arrow.Array {
	ch := make([]uint32, len(rows))
	idx := make([]int32, len(rows))
	for i, r := range rows {
		if r < 0 {
			idx[i] = -1
			continue
		}
		c := b.chunkOf[r]
		ch[i] = c
		idx[i] = r - b.chunkStart[c]
	}
	out := make([]arrow.Array, len(cols))
	srcs := make([]arrow.Array, len(b.chunks))
	for i, c := range cols {
		for k, rec := range b.chunks {
			srcs[k] = rec.Column(c)
		}
		if len(srcs) == 0 {
			out[i] = array.MakeArrayOfNull(mem, b.schema.Field(c).Type, len(rows))
			continue
		}
		out[i] = kernels.TakeChunks(mem, b.schema.Field(c).Type, srcs, ch, idx)
	}
	return out
}

// JoinedRecord returns the joined record of a probe: the columns probeCols
// of probe taken at m.ProbeRows, then the buffered columns bufCols at
// m.BuildRows. The caller releases the record.
func (b *Buffer) JoinedRecord(mem memory.Allocator, schema *arrow.Schema, probe arrow.RecordBatch, probeCols []int, m *Matches, bufCols []int) arrow.RecordBatch {
	left := TakeRows(mem, probe, probeCols, m.ProbeRows)
	right := b.GatherColumns(mem, m.BuildRows, bufCols)
	return Assemble(schema, len(m.ProbeRows), left, right)
}
