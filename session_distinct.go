package millrace

import (
	"strings"

	"github.com/millrace/millrace/plan"
)

// distinct plans SELECT DISTINCT over s as Spark plans it over a stream:
// an aggregation grouped by every output column, with no aggregate
// (Spark's Distinct node is an Aggregate to its streaming checks and
// planner), not a dropDuplicates. The difference shows: the rules of
// aggregations apply (Append mode needs a watermarked event time among
// the columns, and emits a row only once the watermark passes it; Update
// mode emits a row again when a duplicate of it arrives), where
// dropDuplicates emits each new row at once and never again. plan's
// Aggregate needs an aggregate: a count is computed and dropped, as for a
// GROUP BY without aggregate functions.
func distinct(s *Stream) *Stream {
	if s.err != nil {
		return s
	}
	fields := s.Schema().Fields()
	keys := make([]Column, len(fields))
	out := make([]Column, len(fields))
	for i, f := range fields {
		keys[i] = Column{plan.ColumnRef{Name: f.Name}}
		out[i] = keys[i]
	}
	hidden := "count"
	for taken := true; taken; {
		taken = false
		for _, f := range fields {
			if strings.EqualFold(f.Name, hidden) {
				hidden, taken = "_"+hidden, true
			}
		}
	}
	return s.GroupBy(keys...).Agg(Count().As(hidden)).Select(out...)
}
