package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// Partial aggregation: a Table's groups exported as partial states
// (Partials) and folded into another Table with the same specs (Merge), so
// that a caller can aggregate rows into small groups first (for example
// the panes of a sliding window, package exec) and feed one row per group
// instead of one per input row. Only aggregates whose merge gives exactly
// the result of feeding the rows themselves, in any grouping, are
// combinable (Combinable): integer sums wrap and so are associative;
// min/max of integers, times, dates and booleans have no ties to break;
// counts add. Float sums are not (the grouping changes the rounding), nor
// float min/max (-0 and +0 tie, and the first seen wins), nor checked sums
// (where the overflow is detected depends on the order), nor string
// min/max (not built), nor the order-dependent or set-valued aggregates.
// avg of integers is combinable: its state is a float64 sum, exact while
// every partial and total sum stays within ±2^53.

// Combinable reports whether spec over an argument of argType (nil for
// count(*)) has a partial state that Merge folds exactly.
func Combinable(spec Spec, argType arrow.DataType) bool {
	var id arrow.Type
	if argType != nil {
		id = argType.ID()
	}
	isInt := id == arrow.INT64 || id == arrow.INT32
	switch spec.Func {
	case Count, CountAll:
		return true
	case Sum:
		return isInt && !spec.Checked
	case Avg:
		return isInt
	case Min, Max:
		return isInt || id == arrow.TIMESTAMP || id == arrow.DATE32 || id == arrow.BOOL
	}
	return false
}

// Combinable reports whether every aggregate of t is (see the function).
func (t *Table) Combinable() bool {
	for _, s := range t.specs {
		var at arrow.DataType
		if s.Func != CountAll {
			at = t.argTypes[s.Arg]
		}
		if !Combinable(s, at) {
			return false
		}
	}
	return true
}

// PartialTypes returns the types of Partials' columns: per aggregate, its
// result type (counts, sums and min/max with nulls for groups without
// values), and for avg two columns, the float64 sum and the int64 count.
func (t *Table) PartialTypes() []arrow.DataType {
	var out []arrow.DataType
	for _, a := range t.accs {
		if _, ok := a.(*avgAcc); ok {
			out = append(out, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Int64)
			continue
		}
		rt, _ := a.resultType()
		out = append(out, rt)
	}
	return out
}

// Partials returns the partial states of groups, in that order, as the
// columns PartialTypes describes. The table must be Combinable. The caller
// releases the arrays.
func (t *Table) Partials(mem memory.Allocator, groups []uint32) []arrow.Array {
	var out []arrow.Array
	for _, a := range t.accs {
		if av, ok := a.(*avgAcc); ok {
			out = append(out, buildNumbers(mem, arrow.PrimitiveTypes.Float64, av.sums, nil, groups),
				buildNumbers(mem, arrow.PrimitiveTypes.Int64, av.counts, nil, groups))
			continue
		}
		out = append(out, a.build(mem, groups))
	}
	return out
}

// Merge folds partial states (columns of PartialTypes, from a Table with
// the same keys and specs) into the groups of keys, creating groups for new
// keys in order of first appearance and marking every touched group dirty,
// as Update does for rows. The table must be Combinable.
func (t *Table) Merge(keys []arrow.Array, partials []arrow.Array, sel []int32) error {
	if want := t.PartialTypes(); len(partials) != len(want) {
		return fmt.Errorf("agg: merge of %d partial columns, table has %d", len(partials), len(want))
	}
	var err error
	t.groups, err = t.ht.Lookup(keys, sel, t.groups, true)
	if err != nil {
		return err
	}
	t.resize()
	markDirty(t.dirty, t.groups)
	col := 0
	for i, a := range t.accs {
		p := partials[col]
		col++
		switch acc := a.(type) {
		case *countAcc:
			c, ok := p.(*array.Int64)
			if !ok || c.NullN() > 0 {
				return fmt.Errorf("agg: merge of %q: partial counts are %s", t.specs[i].Name, columnar.TypeName(p.DataType()))
			}
			kernels.SumInt64(acc.counts, t.groups, c, sel)
		case *avgAcc:
			s, ok1 := p.(*array.Float64)
			c, ok2 := partials[col].(*array.Int64)
			col++
			if !ok1 || !ok2 {
				return fmt.Errorf("agg: merge of %q: partial sum and count are %s and %s", t.specs[i].Name,
					columnar.TypeName(p.DataType()), columnar.TypeName(partials[col-1].DataType()))
			}
			kernels.SumFloat64(acc.sums, t.groups, s, sel)
			kernels.SumInt64(acc.counts, t.groups, c, sel)
		case *sumAcc[int64], *minMaxAcc[int64]:
			// a partial sum, min or max is a value like any input row's,
			// null where the partial group had none
			if err := a.update(t.groups, p, sel); err != nil {
				return fmt.Errorf("agg: merge of %q: %w", t.specs[i].Name, err)
			}
		default:
			return fmt.Errorf("agg: merge of %q: %s has no exact partial state", t.specs[i].Name, t.specs[i].Func)
		}
	}
	return nil
}

// Clear removes every group, keeping the memory of the hash table and the
// accumulators, for a table refilled batch after batch (Reset compacts and
// shrinks instead).
func (t *Table) Clear() {
	if !t.Combinable() {
		t.Reset()
		return
	}
	t.ht.Reset()
	clear(t.dirty)
	t.dirty = t.dirty[:0]
	for _, a := range t.accs {
		switch acc := a.(type) {
		case *countAcc:
			acc.counts = acc.counts[:0]
		case *avgAcc:
			acc.sums, acc.counts = acc.sums[:0], acc.counts[:0]
		case *sumAcc[int64]:
			acc.sums = acc.sums[:0]
			acc.seenFlags = seenFlags{seen: acc.seen[:0]}
		case *minMaxAcc[int64]:
			acc.vals = acc.vals[:0]
			acc.seenFlags = seenFlags{seen: acc.seen[:0]}
		}
	}
}
