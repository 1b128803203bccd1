package agg

import (
	"fmt"
	"slices"

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
	// Min is min(col) of int32/int64/timestamp/float64, of the input type.
	Min
	// Max is max(col), like Min.
	Max
	// Avg is avg(col) of a numeric column, as float64.
	Avg
	// CountDistinct is count(distinct col) over non-null values of any key type.
	CountDistinct
)

var funcNames = [...]string{"count", "count(*)", "sum", "min", "max", "avg", "count_distinct"}

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
}

// Table is the state of a hash aggregation: a HashTable of the grouping keys
// and one accumulator per Spec, all indexed by group id.
type Table struct {
	ht       *HashTable
	argTypes []arrow.DataType
	specs    []Spec
	accs     []accumulator

	groups  []uint32 // group of each live row of the current batch
	mark    []uint32 // epoch of the last batch that touched each group
	epoch   uint32
	touched []uint32 // groups of the current batch, each once

	dirty     []bool
	dirtyList []uint32
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
	n := t.ht.Len()
	if len(t.dirty) < n {
		t.dirty = growTo(t.dirty, n, false)
		t.mark = growTo(t.mark, n, 0)
		for _, a := range t.accs {
			a.resize(n)
		}
	}
	t.touch()
	for i, a := range t.accs {
		var arg arrow.Array
		if t.specs[i].Func != CountAll {
			arg = args[t.specs[i].Arg]
		}
		if err := a.update(t.groups, arg, sel, t.touched); err != nil {
			return fmt.Errorf("agg: aggregate %q: %w", t.specs[i].Name, err)
		}
	}
	return nil
}

// touch lists the distinct groups of the batch in t.touched and marks them
// dirty.
func (t *Table) touch() {
	t.epoch++
	if t.epoch == 0 {
		clear(t.mark)
		t.epoch = 1
	}
	e, mark := t.epoch, t.mark
	touched := t.touched[:0]
	for _, g := range t.groups {
		if mark[g] != e {
			mark[g] = e
			touched = append(touched, g)
		}
	}
	t.touched = touched
	for _, g := range touched {
		if !t.dirty[g] {
			t.dirty[g] = true
			t.dirtyList = append(t.dirtyList, g)
		}
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
	releaseArrays(cols)
	return rec
}

func releaseArrays(cols []arrow.Array) {
	for _, c := range cols {
		c.Release()
	}
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
	out := t.dirtyList
	t.dirtyList = nil
	for _, g := range out {
		t.dirty[g] = false
	}
	slices.Sort(out)
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
	t.dirty = compactSlice(t.dirty, keep)
	j := 0
	for _, g := range t.dirtyList {
		if remap[g] != NoGroup {
			t.dirtyList[j] = remap[g]
			j++
		}
	}
	t.dirtyList = t.dirtyList[:j]
	t.mark = t.mark[:next]
	clear(t.mark)
	t.epoch = 0
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
	m := t.ht.MemoryUsage() + int64(cap(t.groups)+cap(t.mark)+cap(t.touched)+cap(t.dirtyList))*4 + int64(cap(t.dirty))
	for _, a := range t.accs {
		m += a.memory()
	}
	return m
}

// Reset removes every group.
func (t *Table) Reset() {
	t.Remove(t.AllGroups())
}
