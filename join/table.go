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

// Table is the build side of a hash join: the static side of a stream-static
// join, or one side of a window-on-window join, built once and probed by
// many batches. It is read-only after Build; Probe uses per-table scratch,
// so one Table must not be probed from two goroutines at once (Clone it).
type Table struct {
	schema   *arrow.Schema
	keyCols  []int
	keyTypes []arrow.DataType
	ht       *agg.HashTable
	rec      arrow.RecordBatch // every build row, concatenated
	// CSR: the build rows of key id g are rows[offsets[g]:offsets[g+1]],
	// ascending.
	offsets []int32
	rows    []int32
	unique  bool // every key id has exactly one row: rows[g] is its row
	groups  []uint32
}

// Build builds a join table over recs (any number, each of schema schema),
// keyed on the columns keyCols. The build rows are numbered 0..Rows()-1 in
// the order of recs and their rows. A row with a null in any key column is
// kept (Gather can return it) but never matches. Build retains the single
// record when there is one and copies otherwise; the caller keeps (and
// releases) its own references to recs. Key columns must be int32, int64,
// timestamp, float64, bool, string or binary; probe keys must have the same
// types (cast them first).
func Build(mem memory.Allocator, schema *arrow.Schema, keyCols []int, recs []arrow.RecordBatch) (*Table, error) {
	types, err := keyTypesOf(schema, keyCols)
	if err != nil {
		return nil, fmt.Errorf("join: build: %w", err)
	}
	total := int64(0)
	for i, r := range recs {
		if !r.Schema().Equal(schema) {
			return nil, fmt.Errorf("join: build: record %d has schema %s, want %s", i, r.Schema(), schema)
		}
		total += r.NumRows()
	}
	if total >= math.MaxInt32 {
		return nil, fmt.Errorf("join: build side has %d rows, at most %d are supported", total, math.MaxInt32-1)
	}
	ht, err := agg.NewHashTable(types)
	if err != nil {
		return nil, fmt.Errorf("join: build: %w", err)
	}
	t := &Table{schema: schema, keyCols: keyCols, keyTypes: types, ht: ht}
	t.rec = concatRecords(mem, schema, recs)
	keys := make([]arrow.Array, len(keyCols))
	for i, c := range keyCols {
		keys[i] = t.rec.Column(c)
	}
	var scratch []int32
	sel := validRows(keys, nil, &scratch)
	groups, err := ht.Lookup(keys, sel, nil, true)
	if err != nil {
		t.Release()
		return nil, fmt.Errorf("join: build: %w", err)
	}
	t.buildCSR(groups, sel)
	return t, nil
}

// keyTypesOf returns the types of the key columns of schema.
func keyTypesOf(schema *arrow.Schema, keyCols []int) ([]arrow.DataType, error) {
	if len(keyCols) == 0 {
		return nil, fmt.Errorf("no key columns")
	}
	types := make([]arrow.DataType, len(keyCols))
	for i, c := range keyCols {
		if c < 0 || c >= schema.NumFields() {
			return nil, fmt.Errorf("key column %d out of range (schema has %d fields)", c, schema.NumFields())
		}
		types[i] = schema.Field(c).Type
	}
	return types, nil
}

// concatRecords returns one record holding the rows of recs in order.
func concatRecords(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) arrow.RecordBatch {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0]
	}
	cols := make([]arrow.Array, schema.NumFields())
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	parts := make([]arrow.Array, len(recs))
	for c := range cols {
		if len(recs) == 0 {
			cols[c] = array.MakeArrayOfNull(mem, schema.Field(c).Type, 0)
			continue
		}
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		cols[c] = kernels.Concat(mem, schema.Field(c).Type, parts)
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// validRows returns the live rows of sel at which every column of cols is
// non-null: sel itself when no column has a null, else a selection written
// to *scratch (which must not alias sel's backing array unless sel came
// from *scratch). The result is nil when sel is nil and no column has nulls.
func validRows(cols []arrow.Array, sel []int32, scratch *[]int32) []int32 {
	for _, c := range cols {
		if c.NullN() > 0 {
			sel = kernels.SelectNotNull(c, sel, (*scratch)[:0])
			*scratch = sel
		}
	}
	return sel
}

// buildCSR groups the build rows by key id: groups[i] is the key id of row
// sel[i] (row i when sel is nil).
func (t *Table) buildCSR(groups []uint32, sel []int32) {
	nk := t.ht.Len()
	t.offsets = make([]int32, nk+1)
	for _, g := range groups {
		t.offsets[g+1]++
	}
	for g := 0; g < nk; g++ {
		t.offsets[g+1] += t.offsets[g]
	}
	t.rows = make([]int32, len(groups))
	t.unique = len(groups) == nk // then offsets[g] == g
	fill := append([]int32(nil), t.offsets[:nk]...)
	for i, g := range groups {
		r := int32(i)
		if sel != nil {
			r = sel[i]
		}
		t.rows[fill[g]] = r
		fill[g]++
	}
}

// Release drops the table's reference to its build rows.
func (t *Table) Release() {
	if t.rec != nil {
		t.rec.Release()
		t.rec = nil
	}
}

// Clone returns a table sharing t's (read-only) build rows and index with
// its own probe scratch, for probing from another goroutine. Release each
// clone.
func (t *Table) Clone() *Table {
	c := *t
	c.groups = nil
	c.rec.Retain()
	return &c
}

// Schema returns the schema of the build rows.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// KeyTypes returns the types of the key columns, which probe keys must have.
func (t *Table) KeyTypes() []arrow.DataType { return t.keyTypes }

// Rows returns the number of build rows.
func (t *Table) Rows() int { return int(t.rec.NumRows()) }

// Keys returns the number of distinct non-null keys.
func (t *Table) Keys() int { return t.ht.Len() }

// Record returns the build rows as one record (not retained for the caller).
func (t *Table) Record() arrow.RecordBatch { return t.rec }

// MemoryUsage returns the approximate bytes held by the table: the hash
// table, the index and the build rows' buffers.
func (t *Table) MemoryUsage() int64 {
	m := t.ht.MemoryUsage() + int64(cap(t.offsets)+cap(t.rows)+cap(t.groups))*4
	seen := map[*memory.Buffer]struct{}{}
	for _, c := range t.rec.Columns() {
		m += arrayBytes(c.Data(), seen)
	}
	return m
}

// arrayBytes returns the bytes of the buffers of d not in seen, adding
// them to seen: a buffer shared by several arrays (a window struct and
// the start and end columns taken from it) is counted once.
func arrayBytes(d arrow.ArrayData, seen map[*memory.Buffer]struct{}) int64 {
	m := int64(0)
	for _, b := range d.Buffers() {
		if b == nil {
			continue
		}
		if _, ok := seen[b]; ok {
			continue
		}
		seen[b] = struct{}{}
		m += int64(b.Len())
	}
	for _, c := range d.Children() {
		m += arrayBytes(c, seen)
	}
	return m
}

func (t *Table) lookup(keys []arrow.Array, sel []int32) ([]uint32, error) {
	g, err := t.ht.Lookup(keys, sel, t.groups, false)
	t.groups = g
	if err != nil {
		return nil, fmt.Errorf("join: probe: %w", err)
	}
	return g, nil
}

// Probe fills out with the inner-join matches of the live rows of keys
// (row sel[i], or row i when sel is nil) against the build side. A probe
// row with a null key column matches nothing.
func (t *Table) Probe(keys []arrow.Array, sel []int32, out *Matches) error {
	return t.probe(keys, sel, out, false)
}

// ProbeLeftOuter is Probe for a left outer join: a probe row without a
// match appears once with BuildRows -1.
func (t *Table) ProbeLeftOuter(keys []arrow.Array, sel []int32, out *Matches) error {
	return t.probe(keys, sel, out, true)
}

func (t *Table) probe(keys []arrow.Array, sel []int32, out *Matches, outer bool) error {
	out.Reset()
	groups, err := t.lookup(keys, sel)
	if err != nil {
		return err
	}
	if t.unique {
		if outer {
			out.ProbeRows, out.BuildRows = expandUniqueOuter(groups, sel, t.rows, out.ProbeRows, out.BuildRows)
		} else {
			out.ProbeRows, out.BuildRows = expandUnique(groups, sel, t.rows, out.ProbeRows, out.BuildRows)
		}
		return nil
	}
	pr, br := out.ProbeRows[:0], out.BuildRows[:0]
	offs, rows := t.offsets, t.rows
	for i, g := range groups {
		p := int32(i)
		if sel != nil {
			p = sel[i]
		}
		if g == agg.NoGroup {
			if outer {
				pr = append(pr, p)
				br = append(br, -1)
			}
			continue
		}
		for _, r := range rows[offs[g]:offs[g+1]] {
			pr = append(pr, p)
			br = append(br, r)
		}
	}
	out.ProbeRows, out.BuildRows = pr, br
	return nil
}

// expandUnique writes the matches of a table with unique keys: at most one
// per probe row, so the output is sized once and written by index.
func expandUnique(groups []uint32, sel []int32, rows []int32, pr, br []int32) ([]int32, []int32) {
	n := len(groups)
	pr, br = growI32(pr, n), growI32(br, n)
	j := 0
	if sel == nil {
		for i, g := range groups {
			if g == agg.NoGroup {
				continue
			}
			pr[j] = int32(i)
			br[j] = rows[g]
			j++
		}
	} else {
		sel = sel[:n]
		for i, g := range groups {
			if g == agg.NoGroup {
				continue
			}
			pr[j] = sel[i]
			br[j] = rows[g]
			j++
		}
	}
	return pr[:j], br[:j]
}

// expandUniqueOuter is expandUnique emitting -1 for probe rows without a
// match: exactly one pair per probe row.
func expandUniqueOuter(groups []uint32, sel []int32, rows []int32, pr, br []int32) ([]int32, []int32) {
	n := len(groups)
	pr, br = growI32(pr, n), growI32(br, n)
	if sel == nil {
		for i := range pr {
			pr[i] = int32(i)
		}
	} else {
		copy(pr, sel)
	}
	for i, g := range groups {
		r := int32(-1)
		if g != agg.NoGroup {
			r = rows[g]
		}
		br[i] = r
	}
	return pr, br
}

// Semi appends to out[:0] the live rows of keys that have at least one
// match (a left semi join), in order. The result is never nil.
func (t *Table) Semi(keys []arrow.Array, sel []int32, out []int32) ([]int32, error) {
	return t.semi(keys, sel, out, true)
}

// Anti appends to out[:0] the live rows of keys that have no match (a left
// anti join, which keeps rows with null keys), in order. The result is
// never nil.
func (t *Table) Anti(keys []arrow.Array, sel []int32, out []int32) ([]int32, error) {
	return t.semi(keys, sel, out, false)
}

func (t *Table) semi(keys []arrow.Array, sel []int32, out []int32, want bool) ([]int32, error) {
	groups, err := t.lookup(keys, sel)
	out = out[:0]
	if out == nil {
		out = make([]int32, 0, len(groups))
	}
	if err != nil {
		return out, err
	}
	for i, g := range groups {
		if (g != agg.NoGroup) == want {
			p := int32(i)
			if sel != nil {
				p = sel[i]
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// Gather returns the build columns cols at buildRows (indices into the
// build side's rows, -1 for null), one array per column. The caller
// releases the arrays.
func (t *Table) Gather(mem memory.Allocator, buildRows []int32, cols []int) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = kernels.TakeChunks(mem, t.schema.Field(c).Type, []arrow.Array{t.rec.Column(c)}, nil, buildRows)
	}
	return out
}

// JoinedRecord returns the joined record of a probe: the columns probeCols
// of probe taken at m.ProbeRows, then the build columns buildCols gathered
// at m.BuildRows (null where -1). schema is the output schema (see
// JoinSchema). The caller releases the record.
func (t *Table) JoinedRecord(mem memory.Allocator, schema *arrow.Schema, probe arrow.RecordBatch, probeCols []int, m *Matches, buildCols []int) arrow.RecordBatch {
	left := TakeRows(mem, probe, probeCols, m.ProbeRows)
	right := t.Gather(mem, m.BuildRows, buildCols)
	return Assemble(schema, len(m.ProbeRows), left, right)
}

// CheckKeys reports whether probe keys of the given types can probe the
// table, for callers that want the error at planning time.
func (t *Table) CheckKeys(types []arrow.DataType) error {
	if len(types) != len(t.keyTypes) {
		return fmt.Errorf("join: table has %d key columns, probe has %d", len(t.keyTypes), len(types))
	}
	for i, ty := range types {
		if !arrow.TypeEqual(ty, t.keyTypes[i]) {
			return fmt.Errorf("join: key column %d: probe is %s, build is %s", i,
				columnar.TypeName(ty), columnar.TypeName(t.keyTypes[i]))
		}
	}
	return nil
}
