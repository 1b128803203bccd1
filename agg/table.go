package agg

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// Func is an aggregate function.
type Func int

const (
	// Count is count(col): the number of non-null values.
	Count Func = iota
	// CountAll is count(*): the number of rows.
	CountAll
	// Sum is sum(col) of int32/int64 (as int64) or float64; null without values.
	Sum
	// Min is min(col) of int32/int64/timestamp/date/float64/bool/string/
	// binary, of the input type; strings and binaries order by their bytes
	// (Spark's UTF8_BINARY), false before true.
	Min
	// Max is max(col), like Min.
	Max
	// Avg is avg(col) of a numeric column, as float64.
	Avg
	// CountDistinct is count(distinct col) over non-null values of any key type.
	CountDistinct
	// ApproxCountDistinct is Spark's approx_count_distinct: a HyperLogLog++
	// estimate of the distinct non-null values (int64), bit-for-bit
	// Spark's (hll.go). Spec.RSD sets its precision.
	ApproxCountDistinct
	// First is the value of the group's first row in arrival order (of its
	// first non-null value with Spec.IgnoreNulls), of the input type.
	First
	// Last is First's counterpart: the last row's value.
	Last
	// CollectList is the group's non-null values in arrival order, as a
	// list; its state grows with the group.
	CollectList
	// CollectSet is CollectList without repeats (first appearance order).
	CollectSet
)

var funcNames = [...]string{"count", "count(*)", "sum", "min", "max", "avg", "count_distinct",
	"approx_count_distinct", "first", "last", "collect_list", "collect_set"}

// String returns the SQL-ish name of f.
func (f Func) String() string {
	if f >= 0 && int(f) < len(funcNames) {
		return funcNames[f]
	}
	return fmt.Sprintf("Func(%d)", int(f))
}

// Spec is one aggregate of a Table.
type Spec struct {
	// Func is the aggregate function.
	Func Func
	// Arg indexes the args slice passed to Update; ignored for CountAll.
	Arg int
	// Name is the result column's name.
	Name string
	// Checked makes an integer sum that overflows int64 an error
	// (ErrOverflow), as Spark's ANSI mode does, instead of wrapping.
	Checked bool
	// RSD is ApproxCountDistinct's relative standard deviation (0: 0.05).
	RSD float64
	// IgnoreNulls makes First and Last skip null values.
	IgnoreNulls bool
}

// Table is the state of a hash aggregation: a HashTable of the grouping keys
// and one accumulator per Spec, all indexed by group id.
type Table struct {
	ht       *HashTable
	argTypes []arrow.DataType
	specs    []Spec
	accs     []accumulator

	fused  fusedPair
	groups []uint32 // group of each live row of the current batch

	// dirty has bit g%64 of word g/64 set when group g was updated since
	// the last TakeDirty. Setting it is one unconditional OR per row into
	// an array 64 times smaller than any per-group state (L1/L2 resident
	// for a million groups); TakeDirty scans it, in ascending order.
	dirty []uint64
}

// NewTable returns an empty aggregation with the given key column types,
// argument column types and aggregates.
func NewTable(keyTypes []arrow.DataType, argTypes []arrow.DataType, specs []Spec) (*Table, error) {
	ht, err := NewHashTable(keyTypes)
	if err != nil {
		return nil, err
	}
	t := &Table{ht: ht, argTypes: argTypes, specs: specs}
	for i, s := range specs {
		var at arrow.DataType
		if s.Func != CountAll {
			if s.Arg < 0 || s.Arg >= len(argTypes) {
				return nil, fmt.Errorf("agg: aggregate %d (%s %q) uses argument %d of %d", i, s.Func, s.Name, s.Arg, len(argTypes))
			}
			at = argTypes[s.Arg]
		}
		acc, err := newAccumulator(s, at)
		if err != nil {
			return nil, fmt.Errorf("agg: aggregate %d (%q): %w", i, s.Name, err)
		}
		t.accs = append(t.accs, acc)
	}
	t.fused = findFusedPair(t.accs)
	return t, nil
}

// HashTable returns the table's key index (read only: do not insert).
func (t *Table) HashTable() *HashTable { return t.ht }

// Len returns the number of groups.
func (t *Table) Len() int { return t.ht.Len() }

// Update folds the live rows of a batch (row sel[i], or every row when sel is
// nil) into their groups, creating groups for new keys, and marks every
// touched group dirty.
func (t *Table) Update(keys []arrow.Array, args []arrow.Array, sel []int32) error {
	if len(args) != len(t.argTypes) {
		return fmt.Errorf("agg: update with %d argument columns, table has %d", len(args), len(t.argTypes))
	}
	for i, a := range args {
		if !arrow.TypeEqual(a.DataType(), t.argTypes[i]) {
			return fmt.Errorf("agg: argument column %d is %s, table expects %s", i,
				columnar.TypeName(a.DataType()), columnar.TypeName(t.argTypes[i]))
		}
		if len(keys) > 0 && a.Len() != keys[0].Len() {
			return fmt.Errorf("agg: argument column %d has %d rows, keys have %d", i, a.Len(), keys[0].Len())
		}
	}
	var err error
	t.groups, err = t.ht.Lookup(keys, sel, t.groups, true)
	if err != nil {
		return err
	}
	t.resize()
	markDirty(t.dirty, t.groups)
	fused := t.updateFused(args, sel)
	for i, a := range t.accs {
		if fused && (i == t.fused.count || i == t.fused.sum) {
			continue
		}
		var arg arrow.Array
		if t.specs[i].Func != CountAll {
			arg = args[t.specs[i].Arg]
		}
		if err := a.update(t.groups, arg, sel); err != nil {
			return fmt.Errorf("agg: aggregate %q: %w", t.specs[i].Name, err)
		}
	}
	return nil
}

// resize makes the dirty bitmap and every accumulator hold Len() groups
// (new groups clean and empty).
func (t *Table) resize() {
	n := t.ht.Len()
	t.dirty = growTo(t.dirty, (n+63)/64, 0)
	for _, a := range t.accs {
		a.resize(n)
	}
}

// markDirty sets the dirty bit of every group of groups.
func markDirty(bits []uint64, groups []uint32) {
	for _, g := range groups {
		bits[g>>6] |= 1 << (g & 63)
	}
}

// Schema returns the schema of Emit's records: the key fields (named by
// keyNames, or key0, key1, … where missing) then one field per Spec.
func (t *Table) Schema(keyNames []string) *arrow.Schema {
	fields := make([]arrow.Field, 0, len(t.ht.types)+len(t.specs))
	for i, kt := range t.ht.types {
		name := fmt.Sprintf("key%d", i)
		if i < len(keyNames) {
			name = keyNames[i]
		}
		fields = append(fields, arrow.Field{Name: name, Type: kt, Nullable: true})
	}
	for i, s := range t.specs {
		rt, nullable := t.accs[i].resultType()
		fields = append(fields, arrow.Field{Name: s.Name, Type: rt, Nullable: nullable})
	}
	return arrow.NewSchema(fields, nil)
}

// Emit returns the keys and aggregate results of groups, in that order, as
// a record of Schema(keyNames). The caller releases it.
func (t *Table) Emit(mem memory.Allocator, groups []uint32, keyNames []string) arrow.RecordBatch {
	cols := t.ht.KeyColumns(mem, groups)
	for _, a := range t.accs {
		cols = append(cols, a.build(mem, groups))
	}
	rec := array.NewRecordBatch(t.Schema(keyNames), cols, int64(len(groups)))
	columnar.ReleaseAll(cols)
	return rec
}

// AllGroups returns 0..Len()-1.
func (t *Table) AllGroups() []uint32 {
	out := make([]uint32, t.Len())
	for i := range out {
		out[i] = uint32(i)
	}
	return out
}

// TakeDirty returns the groups updated since the last call, ascending, and
// clears the dirty set.
func (t *Table) TakeDirty() []uint32 {
	var out []uint32
	for w, b := range t.dirty {
		if b == 0 {
			continue
		}
		t.dirty[w] = 0
		for b != 0 {
			out = append(out, uint32(w<<6|bits.TrailingZeros64(b)))
			b &= b - 1
		}
	}
	return out
}

// Remove deletes groups and renumbers the survivors densely, keeping their
// relative order. Ids held by the caller are invalid afterwards.
func (t *Table) Remove(groups []uint32) {
	if len(groups) == 0 {
		return
	}
	n := t.Len()
	keep := make([]bool, n)
	for i := range keep {
		keep[i] = true
	}
	for _, g := range groups {
		if int(g) < n {
			keep[g] = false
		}
	}
	remap := make([]uint32, n)
	next := uint32(0)
	for g, k := range keep {
		remap[g] = NoGroup
		if k {
			remap[g] = next
			next++
		}
	}
	t.ht.Compact(keep)
	for _, a := range t.accs {
		a.compact(keep, remap)
	}
	dirty := make([]uint64, (next+63)/64)
	for w, b := range t.dirty {
		for b != 0 {
			if ng := remap[w<<6|bits.TrailingZeros64(b)]; ng != NoGroup {
				dirty[ng>>6] |= 1 << (ng & 63)
			}
			b &= b - 1
		}
	}
	t.dirty = dirty
}

// GroupsWhere returns, ascending, the groups whose int64/timestamp key column
// keyCol is non-null and below lessThan (for example windows whose start
// makes them closed by the watermark).
func (t *Table) GroupsWhere(keyCol int, lessThan int64) []uint32 {
	var out []uint32
	c := &t.ht.cols[keyCol]
	for g, v := range c.vals {
		if v < lessThan && !c.nulls[g] {
			out = append(out, uint32(g))
		}
	}
	return out
}

// MemoryUsage returns the approximate bytes held by the table.
func (t *Table) MemoryUsage() int64 {
	m := t.ht.MemoryUsage() + int64(cap(t.groups))*4 + int64(cap(t.dirty))*8
	for _, a := range t.accs {
		m += a.memory()
	}
	return m
}

// Reset removes every group.
func (t *Table) Reset() {
	t.Remove(t.AllGroups())
}
