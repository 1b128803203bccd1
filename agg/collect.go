package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// collectAcc is collect_list or collect_set: the non-null values of each
// group, as a list in arrival order. Like count distinct it keeps a second
// hash table: (group id, value) pairs for the set, so a repeat is found and
// dropped; (group id, sequence number, value) for the list, the sequence
// making every row an entry of its own. Entries keep insertion order, so a
// group's values come out in the order they arrived (the set: in order of
// first appearance). The state grows with the number of (distinct) values
// of a group; only a watermark that closes the group frees it.
type collectAcc struct {
	list   bool
	elem   arrow.DataType
	pairs  *HashTable
	valCol int // the value's column in pairs
	// floatBits: collect_list of doubles keeps each value's bits as an
	// int64 key, since a hash table key folds -0.0 into 0.0 and NaNs into
	// one, and Spark's collect_list keeps them as they are (its
	// collect_set folds them as the table does)
	floatBits bool
	seq       int64 // next sequence number (list)
	gids      []int64
	seqs      []int64
	sel       []int32
	pg        []uint32
	counts    []int64 // values per group
}

func newCollect(list bool, t arrow.DataType) (*collectAcc, error) {
	switch t.ID() {
	case arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.FLOAT64, arrow.BOOL, arrow.STRING, arrow.BINARY:
	default:
		return nil, fmt.Errorf("collect_list/collect_set of %s is not supported", columnar.TypeName(t))
	}
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, t}
	floatBits := list && t.ID() == arrow.FLOAT64
	if list {
		stored := t
		if floatBits {
			stored = arrow.PrimitiveTypes.Int64
		}
		types = []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, stored}
	}
	pairs, err := NewHashTable(types)
	if err != nil {
		return nil, err
	}
	return &collectAcc{list: list, elem: t, pairs: pairs, valCol: len(types) - 1, floatBits: floatBits}, nil
}

func (a *collectAcc) resize(n int) { a.counts = growTo(a.counts, n, 0) }

func (a *collectAcc) update(groups []uint32, arg arrow.Array, sel []int32) error {
	n := arg.Len()
	a.gids = growI64(a.gids, n)
	if a.list {
		a.seqs = growI64(a.seqs, n)
	}
	var bm []byte
	off := 0
	if arg.NullN() > 0 {
		bm, off = validity(arg)
	}
	if a.sel == nil {
		a.sel = make([]int32, 0, n) // non-nil: nil would mean every row
	}
	a.sel = a.sel[:0]
	for i, g := range groups {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if bm != nil && !bitutil.BitIsSet(bm, off+r) {
			continue // Spark's collect_* skip nulls
		}
		a.sel = append(a.sel, int32(r))
		a.gids[r] = int64(g)
		if a.list {
			a.seqs[r] = a.seq
			a.seq++
		}
	}
	keys := []arrow.Array{viewInt64(a.gids[:n])}
	if a.list {
		keys = append(keys, viewInt64(a.seqs[:n]))
	}
	if a.floatBits {
		arg = retype(arg, arrow.PrimitiveTypes.Int64)
	} else {
		arg.Retain()
	}
	keys = append(keys, arg)
	defer func() {
		for _, k := range keys {
			k.Release()
		}
	}()
	before := a.pairs.Len()
	var err error
	a.pg, err = a.pairs.Lookup(keys, a.sel, a.pg, true)
	if err != nil {
		return err
	}
	for p := before; p < a.pairs.Len(); p++ {
		a.counts[a.pairs.KeyInt64(0, uint32(p))]++
	}
	return nil
}

// viewInt64 is an Int64 array over v, without a copy.
func viewInt64(v []int64) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(v))
	data := array.NewData(arrow.PrimitiveTypes.Int64, len(v), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.NewInt64Data(data)
}

func (a *collectAcc) compact(keep []bool, remap []uint32) {
	a.counts = compactSlice(a.counts, keep)
	a.pairs.remapGroupColumn(remap)
}

// build returns each group's values as a list (an empty list for a group
// without non-null values, as Spark's).
func (a *collectAcc) build(mem memory.Allocator, groups []uint32) arrow.Array {
	d := groupedValues(a.pairs, a.valCol, groups)
	defer d.vals.Release()
	vals := d.vals
	if a.floatBits {
		vals = retype(vals, a.elem)
		defer vals.Release()
	}
	offs := make([]int32, len(d.start))
	for i, s := range d.start {
		offs[i] = int32(s)
	}
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))
	data := array.NewData(arrow.ListOf(a.elem), len(groups), []*memory.Buffer{nil, buf}, []arrow.ArrayData{vals.Data()}, 0, 0)
	defer data.Release()
	return array.NewListData(data)
}

func (a *collectAcc) resultType() (arrow.DataType, bool) { return arrow.ListOf(a.elem), false }

func (a *collectAcc) memory() int64 {
	return int64(cap(a.counts)+cap(a.gids)+cap(a.seqs))*8 + int64(cap(a.sel)+cap(a.pg))*4 + a.pairs.MemoryUsage()
}

// groupedValues collects the values (key column valCol of pairs, whose
// column 0 is a group id) of each group of groups with one scan of pairs,
// in entry order.
func groupedValues(pairs *HashTable, valCol int, groups []uint32) *distinctValues {
	pos := make(map[uint32]int, len(groups))
	for i, g := range groups {
		pos[g] = i
	}
	per := make([][]uint32, len(groups))
	for p := 0; p < pairs.Len(); p++ {
		if i, ok := pos[uint32(pairs.KeyInt64(0, uint32(p)))]; ok {
			per[i] = append(per[i], uint32(p))
		}
	}
	d := &distinctValues{start: make([]int, len(groups)+1)}
	var all []uint32
	for i, ps := range per {
		d.start[i] = len(all)
		all = append(all, ps...)
	}
	d.start[len(groups)] = len(all)
	cols := pairs.KeyColumns(memory.DefaultAllocator, all)
	for i, c := range cols {
		if i != valCol {
			c.Release()
		}
	}
	d.vals = cols[valCol]
	return d
}

// retype views a fixed-width array as another type of the same width
// (float64 bits as int64 and back), without a copy.
func retype(a arrow.Array, t arrow.DataType) arrow.Array {
	d := a.Data()
	data := array.NewData(t, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer data.Release()
	return array.MakeFromData(data)
}
