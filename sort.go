package millrace

import (
	"fmt"

	"github.com/millrace/millrace/plan"
)

// SortKey is a key of OrderBy: a column, ascending or descending, nulls
// first or last (Spark's asc, desc, asc_nulls_last …).
type SortKey = plan.SortKey

// Asc sorts by c ascending, nulls first (Spark's asc).
func (c Column) Asc() SortKey { return SortKey{E: c.e, NullsFirst: true} }

// Desc sorts by c descending, nulls last (Spark's desc).
func (c Column) Desc() SortKey { return SortKey{E: c.e, Desc: true} }

// OrderBy sorts the rows (Spark's orderBy). A stream cannot be sorted:
// as in Spark, OrderBy is allowed only as the last step of an
// aggregation's output in Complete mode, where each trigger writes the
// whole result, sorted; Start refuses it elsewhere with Spark's message.
// A later OrderBy replaces an earlier one.
func (s *Stream) OrderBy(keys ...SortKey) *Stream {
	if s.err != nil {
		return s
	}
	in, limit := s.node, int64(-1)
	if srt, ok := in.(*plan.Sort); ok {
		in, limit = srt.Input, srt.Limit
	}
	for _, k := range keys {
		if err := plan.FirstInvalid(k.E); err != nil {
			return s.then(nil, fmt.Errorf("orderBy: %w", err))
		}
	}
	return s.then(plan.NewSort(in, keys, limit))
}

// Limit keeps the first n rows (Spark's limit): of the sorted result when
// it follows OrderBy. As OrderBy, it is allowed over an aggregation in
// Complete mode; Spark also limits in Append mode, which Millrace does
// not yet, and refuses it in Update mode, as Start does.
func (s *Stream) Limit(n int64) *Stream {
	if s.err != nil {
		return s
	}
	if n < 0 {
		return s.then(nil, fmt.Errorf("limit: %d is negative", n))
	}
	if srt, ok := s.node.(*plan.Sort); ok {
		if srt.Limit >= 0 && srt.Limit < n {
			n = srt.Limit
		}
		return s.then(plan.NewSort(srt.Input, srt.Keys, n))
	}
	return s.then(plan.NewSort(s.node, nil, n))
}
