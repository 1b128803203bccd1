package plan

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
)

// SortKey is one key of a Sort: ascending unless Desc, nulls first when
// NullsFirst. Spark's defaults are ASC NULLS FIRST and DESC NULLS LAST.
type SortKey struct {
	E          Expr
	Desc       bool
	NullsFirst bool
}

func (k SortKey) String() string {
	s := k.E.String()
	if k.Desc {
		s += " DESC"
	} else {
		s += " ASC"
	}
	if k.NullsFirst {
		return s + " NULLS FIRST"
	}
	return s + " NULLS LAST"
}

// Sort orders its input's rows by Keys and keeps the first Limit of them
// (all when Limit < 0): ORDER BY … LIMIT n. A stream cannot be sorted, so
// Spark allows it only as the last operator of an aggregation's output in
// Complete mode, where each trigger's result is the whole table: the
// engine checks that when the query starts.
type Sort struct {
	Input Node
	Keys  []SortKey
	Limit int64
}

func (s *Sort) Schema() *arrow.Schema { return s.Input.Schema() }
func (s *Sort) Children() []Node      { return []Node{s.Input} }
func (s *Sort) Describe() string {
	var b strings.Builder
	b.WriteString("Sort")
	if len(s.Keys) > 0 {
		parts := make([]string, len(s.Keys))
		for i, k := range s.Keys {
			parts[i] = k.String()
		}
		b.WriteString(" by " + strings.Join(parts, ", "))
	}
	if s.Limit >= 0 {
		fmt.Fprintf(&b, " limit %d", s.Limit)
	}
	return b.String()
}

// NewSort analyzes a sort: every key must be of an orderable type (a
// window orders by its start, then its end).
func NewSort(in Node, keys []SortKey, limit int64) (*Sort, error) {
	for _, k := range keys {
		if hasAgg(k.E) {
			return nil, fmt.Errorf("orderBy %s: aggregate functions are not allowed here; sort by the aggregation's output column", k.E)
		}
		t, err := TypeOf(k.E, in.Schema())
		if err != nil {
			return nil, fmt.Errorf("orderBy %s: %w", k.E, err)
		}
		switch {
		case t.ID() == arrow.INT32, t.ID() == arrow.INT64, t.ID() == arrow.FLOAT64, t.ID() == arrow.STRING,
			t.ID() == arrow.BOOL, t.ID() == arrow.TIMESTAMP, t.ID() == arrow.NULL, arrow.TypeEqual(t, WindowType):
		default:
			return nil, fmt.Errorf("orderBy %s: cannot sort by %s", k.E, columnar.TypeName(t))
		}
	}
	return &Sort{Input: in, Keys: keys, Limit: limit}, nil
}
