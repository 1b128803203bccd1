package millrace

import (
	"fmt"

	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sources"
)

// JoinType is the kind of a join.
type JoinType = plan.JoinType

// Join types, as Spark names them.
const (
	Inner      = plan.InnerJoin
	LeftOuter  = plan.LeftOuterJoin
	RightOuter = plan.RightOuterJoin
	FullOuter  = plan.FullOuterJoin
	LeftSemi   = plan.LeftSemiJoin
	LeftAnti   = plan.LeftAntiJoin
)

// ReadTable starts a static (bounded) stream from a table, for the static
// side of stream-static joins: a dimension table in memory
// (sources/memory.NewTable), a Delta table (lake.NewStaticTable) or files.
func ReadTable(t sources.Table) *Stream {
	return &Stream{node: &plan.StaticScan{Table: t}}
}

// Join joins s with other on cond: equalities between a column of s and a
// column of other, and — for two streams — optionally a time range between
// their event-time columns, all joined by And, e.g.
//
//	clicks.Join(impressions, Col("click_ad").Eq(Col("ad")).
//		And(Col("click_time").Between(Col("imp_time"), Col("imp_time").Plus(time.Hour))), Inner)
//
// Column names must be unique across both sides (rename with
// WithColumnRenamed, or use JoinUsing for same-named keys). With a static
// other (ReadTable), the stream is never buffered: inner, left outer, left
// semi and left anti joins are supported (a left anti join needs a static
// other, as in Spark).
func (s *Stream) Join(other *Stream, cond Column, how JoinType) *Stream {
	if s.err != nil {
		return s
	}
	if other.err != nil {
		return other
	}
	if err := invalid(cond); err != nil {
		return s.then(nil, fmt.Errorf("join: %w", err))
	}
	return s.then(plan.NewJoin(s.node, other.node, cond.e, how))
}

// JoinUsing joins on columns of the same name on both sides; each appears
// once in the output.
func (s *Stream) JoinUsing(other *Stream, cols []string, how JoinType) *Stream {
	if s.err != nil {
		return s
	}
	if other.err != nil {
		return other
	}
	return s.then(plan.NewJoinUsing(s.node, other.node, cols, how))
}
