package join

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
)

// Extremes is the running maximum (or minimum) of a value per group of
// rows: the dominance filter of a join of a stream with its own grouped
// extreme (exec's window-join-back plans, Nexmark q7). A row whose value
// is below its group's running maximum can never equal the group's final
// maximum, so a join on equality with that maximum need not keep it. Keep
// raises the running extremes with a batch's rows and returns the rows
// that equal them (ties are all kept); Evict forgets groups whose rows
// have all left the join's buffer.
//
// The running extremes are a cache, not state: an Extremes that forgot a
// group (after a restart from a checkpoint, or an Evict) keeps more rows,
// never fewer, so it is never persisted. An Extremes is not safe for
// concurrent use.
type Extremes struct {
	ht      *agg.HashTable
	max     bool
	best    []int64 // per group id: the running extreme
	maxTime []int64 // per group id: the latest time of a row seen

	groups []uint32
	sel    []int32
	keep   []int32
}

// NewExtremes returns an empty filter for groups keyed on columns of
// groupTypes (as NewBuffer's keys) and values of an int32, int64 or
// timestamp column; max false keeps minimums.
func NewExtremes(groupTypes []arrow.DataType, max bool) (*Extremes, error) {
	if len(groupTypes) == 0 {
		return nil, fmt.Errorf("join: extremes: no group columns")
	}
	ht, err := agg.NewHashTable(groupTypes)
	if err != nil {
		return nil, fmt.Errorf("join: extremes: %w", err)
	}
	return &Extremes{ht: ht, max: max}, nil
}

// Groups returns the number of groups tracked.
func (e *Extremes) Groups() int { return e.ht.Len() }

// MemoryUsage returns the approximate bytes held.
func (e *Extremes) MemoryUsage() int64 {
	return e.ht.MemoryUsage() + int64(cap(e.best)+cap(e.maxTime))*8 +
		int64(cap(e.groups))*4 + int64(cap(e.sel)+cap(e.keep))*4
}

// Keep raises the running extremes with the live rows (sel, or every row
// when nil) of a batch and returns those of them whose value equals their
// group's running extreme afterwards, ascending: rows dominated by an
// earlier row or by another row of the batch are left out. Rows with a
// null group column or a null value are left out too (they match nothing
// in an inner join). times (int64 or timestamp) are the rows' event times
// in the unit of Evict's bounds. The result is scratch, valid until the
// next call.
func (e *Extremes) Keep(groupCols []arrow.Array, values, times arrow.Array, sel []int32) ([]int32, error) {
	if e.keep == nil {
		e.keep = make([]int32, 0, 64) // never nil: a nil selection means every row
	}
	if values.Len() == 0 || (sel != nil && len(sel) == 0) {
		return e.keep[:0], nil
	}
	vals, err := int64Data(values)
	if err != nil {
		return nil, fmt.Errorf("join: extremes: value %w", err)
	}
	tv := int64Values(times)
	if tv == nil {
		return nil, fmt.Errorf("join: extremes: time column is %s, want timestamp or int64", columnar.TypeName(times.DataType()))
	}
	valid := validRows(append(groupCols[:len(groupCols):len(groupCols)], values), sel, &e.sel)
	if valid == nil {
		valid = columnar.Identity(e.sel[:0], values.Len())
		e.sel = valid
	}
	groups, err := e.ht.Lookup(groupCols, valid, e.groups, true)
	e.groups = groups
	if err != nil {
		return nil, fmt.Errorf("join: extremes: %w", err)
	}
	for len(e.best) < e.ht.Len() {
		init := int64(math.MinInt64)
		if !e.max {
			init = math.MaxInt64
		}
		e.best = append(e.best, init)
		e.maxTime = append(e.maxTime, math.MinInt64)
	}
	best, maxTime := e.best, e.maxTime
	// pass 1: raise the extremes (a null time still raises them: the
	// value is the aggregate's input all the same) and the groups' times
	for i, g := range groups {
		if r := valid[i]; times.IsValid(int(r)) && tv[r] > maxTime[g] {
			maxTime[g] = tv[r]
		}
	}
	if e.max {
		for i, g := range groups {
			if v := vals[valid[i]]; v > best[g] {
				best[g] = v
			}
		}
	} else {
		for i, g := range groups {
			if v := vals[valid[i]]; v < best[g] {
				best[g] = v
			}
		}
	}
	// pass 2: keep the rows at the extreme
	keep := e.keep[:0]
	for i, g := range groups {
		r := valid[i]
		if vals[r] == best[g] {
			keep = append(keep, r)
		}
	}
	e.keep = keep
	return keep, nil
}

// Evict forgets the groups whose rows all have times below before
// (the bound of the buffer's Evict: their rows have left it), so that the
// table tracks the open groups only. It compacts the table once a quarter
// of its groups are gone.
func (e *Extremes) Evict(before int64) {
	n := e.ht.Len()
	live := make([]bool, n)
	nlive := 0
	for g := 0; g < n; g++ {
		if e.maxTime[g] >= before {
			live[g] = true
			nlive++
		}
	}
	if n-nlive == 0 || n-nlive <= n/4 {
		return
	}
	e.ht.Compact(live)
	j := 0
	for g, l := range live {
		if l {
			e.best[j], e.maxTime[j] = e.best[g], e.maxTime[g]
			j++
		}
	}
	e.best, e.maxTime = e.best[:j], e.maxTime[:j]
}

// Reset forgets every group.
func (e *Extremes) Reset() {
	e.ht.Reset()
	e.best, e.maxTime = e.best[:0], e.maxTime[:0]
}

// int64Data returns the values of an int32, int64 or timestamp array as
// int64s (int32 values are widened into a new slice).
func int64Data(a arrow.Array) ([]int64, error) {
	if v := int64Values(a); v != nil || a.Len() == 0 {
		return v, nil
	}
	if c, ok := a.(*array.Int32); ok {
		out := make([]int64, c.Len())
		for i, x := range c.Int32Values() {
			out[i] = int64(x)
		}
		return out, nil
	}
	return nil, fmt.Errorf("column is %s, want int32, int64 or timestamp", columnar.TypeName(a.DataType()))
}

// NotDominated returns the rows of a batch (every row, ascending) that no
// running extreme dominates: a row whose group is unknown, or whose value
// is at or beyond (for Max: at least) its group's running extreme, or
// with a null group column or value. It inserts no group. The result is
// scratch, valid until the next call.
func (e *Extremes) NotDominated(groupCols []arrow.Array, values arrow.Array) ([]int32, error) {
	vals, err := int64Data(values)
	if err != nil {
		return nil, fmt.Errorf("join: extremes: value %w", err)
	}
	n := values.Len()
	groups, err := e.ht.Lookup(groupCols, nil, e.groups, false)
	e.groups = groups
	if err != nil {
		return nil, fmt.Errorf("join: extremes: %w", err)
	}
	keep := e.keep[:0]
	for r := 0; r < n; r++ {
		g := groups[r]
		switch {
		case g == agg.NoGroup || values.IsNull(r) || anyNull(groupCols, r):
		case e.max && vals[r] < e.best[g], !e.max && vals[r] > e.best[g]:
			continue
		}
		keep = append(keep, int32(r))
	}
	e.keep = keep
	return keep, nil
}

func anyNull(cols []arrow.Array, r int) bool {
	for _, c := range cols {
		if c.IsNull(r) {
			return true
		}
	}
	return false
}
