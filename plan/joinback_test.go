package plan

import (
	"testing"
	"time"

	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sources/memory"
)

// TestFindExtremeJoinBack: q7's shape is recognised, and each change that
// would make dominance pruning unsound is refused.
func TestFindExtremeJoinBack(t *testing.T) {
	scan := &Scan{Source: testutil.Must(memory.New(testSchema, memory.Options{}))}
	x := testutil.Must(NewWatermark(scan, "ts", time.Second))
	tumble := Window{Time: col("ts"), Size: 10 * time.Second, Slide: 10 * time.Second}
	type shape struct {
		left      func() Node
		keys      []Expr
		aggs      []Expr
		rightOver func(a Node) Node // nil: the aggregate itself
		how       JoinType
		cond      Expr
	}
	base := func() shape {
		return shape{
			left: func() Node {
				return testutil.Must(NewProject(x, []Expr{col("i64"), col("s"), col("ts"), Alias{tumble, "w"}}))
			},
			keys: []Expr{Alias{tumble, "mw"}},
			aggs: []Expr{Alias{Agg{Func: AggMax, Arg: col("i64")}, "mx"}, Alias{Agg{Func: AggCountAll}, "n"}},
			how:  InnerJoin,
			cond: Binary{OpAnd, Binary{OpEq, col("w"), col("mw")}, Binary{OpEq, col("i64"), col("mx")}},
		}
	}
	build := func(s shape) *Join {
		var right Node = testutil.Must(NewAggregate(x, s.keys, s.aggs))
		if s.rightOver != nil {
			right = s.rightOver(right)
		}
		return testutil.Must(NewJoin(s.left(), right, s.cond, s.how))
	}
	for _, c := range []struct {
		name   string
		change func(*shape)
		ok     bool
		max    bool
	}{
		{"q7", func(*shape) {}, true, true},
		{"keys swapped in the condition", func(s *shape) {
			s.cond = Binary{OpAnd, Binary{OpEq, col("i64"), col("mx")}, Binary{OpEq, col("w"), col("mw")}}
		}, true, true},
		{"min", func(s *shape) { s.aggs = []Expr{Alias{Agg{Func: AggMin, Arg: col("i64")}, "mx"}} }, true, false},
		{"left filtered", func(s *shape) {
			s.left = func() Node {
				f := testutil.Must(NewFilter(x, Binary{OpGt, col("i64"), Literal{int64(0)}}))
				return testutil.Must(NewProject(f, []Expr{col("i64"), col("ts"), Alias{tumble, "w"}}))
			}
		}, true, true},
		{"left renames the value", func(s *shape) {
			s.left = func() Node {
				return testutil.Must(NewProject(x, []Expr{Alias{col("i64"), "price"}, Alias{tumble, "w"}}))
			}
			s.cond = Binary{OpAnd, Binary{OpEq, col("w"), col("mw")}, Binary{OpEq, col("price"), col("mx")}}
		}, true, true},
		{"the right renamed by a projection (SQL)", func(s *shape) {
			s.rightOver = func(a Node) Node {
				return testutil.Must(NewProject(a, []Expr{Alias{col("mw"), "max_window"}, col("mx")}))
			}
			s.cond = Binary{OpAnd, Binary{OpEq, col("w"), col("max_window")}, Binary{OpEq, col("i64"), col("mx")}}
		}, true, true},
		{"the left over its own watermark of the same column and delay (SQL)", func(s *shape) {
			s.left = func() Node {
				w := testutil.Must(NewWatermark(scan, "ts", time.Second))
				return testutil.Must(NewProject(w, []Expr{col("i64"), Alias{tumble, "w"}}))
			}
		}, true, true},
		// refused
		{"the left over a watermark with another delay", func(s *shape) {
			s.left = func() Node {
				w := testutil.Must(NewWatermark(scan, "ts", 2*time.Second))
				return testutil.Must(NewProject(w, []Expr{col("i64"), Alias{tumble, "w"}}))
			}
		}, false, false},
		{"a projection computing over the aggregate", func(s *shape) {
			s.rightOver = func(a Node) Node {
				return testutil.Must(NewProject(a, []Expr{col("mw"), Alias{Binary{OpAdd, col("mx"), Literal{int64(1)}}, "mx"}}))
			}
		}, false, false},
		{"left outer", func(s *shape) { s.how = LeftOuterJoin }, false, false},
		{"sum, not an extreme", func(s *shape) { s.aggs = []Expr{Alias{Agg{Func: AggSum, Arg: col("i64")}, "mx"}} }, false, false},
		{"max of another column", func(s *shape) { s.aggs = []Expr{Alias{Agg{Func: AggMax, Arg: col("i32")}, "mx"}} }, false, false},
		{"float value", func(s *shape) {
			s.aggs = []Expr{Alias{Agg{Func: AggMax, Arg: col("f")}, "mx"}}
			s.cond = Binary{OpAnd, Binary{OpEq, col("w"), col("mw")}, Binary{OpEq, col("f"), col("mx")}}
			s.left = func() Node { return testutil.Must(NewProject(x, []Expr{col("f"), Alias{tumble, "w"}})) }
		}, false, false},
		{"sliding window", func(s *shape) {
			sl := Window{Time: col("ts"), Size: 10 * time.Second, Slide: 5 * time.Second}
			s.keys = []Expr{Alias{sl, "mw"}}
		}, false, false},
		{"another window size on the left", func(s *shape) {
			s.left = func() Node {
				return testutil.Must(NewProject(x, []Expr{col("i64"), Alias{Window{Time: col("ts"), Size: 5 * time.Second, Slide: 5 * time.Second}, "w"}}))
			}
		}, false, false},
		{"a grouping key not joined on", func(s *shape) { s.keys = []Expr{Alias{tumble, "mw"}, col("i32")} }, false, false},
		{"joined only on the value", func(s *shape) { s.cond = Binary{OpEq, col("i64"), col("mx")} }, false, false},
		{"the left has its own watermark", func(s *shape) {
			s.left = func() Node {
				w := testutil.Must(NewWatermark(x, "ts", time.Hour))
				return testutil.Must(NewProject(w, []Expr{col("i64"), Alias{tumble, "w"}}))
			}
		}, false, false},
		{"the left from another source", func(s *shape) {
			other := &Scan{Source: testutil.Must(memory.New(testSchema, memory.Options{}))}
			ox := testutil.Must(NewWatermark(other, "ts", time.Second))
			s.left = func() Node { return testutil.Must(NewProject(ox, []Expr{col("i64"), Alias{tumble, "w"}})) }
		}, false, false},
		{"a computed grouping key", func(s *shape) {
			s.keys = []Expr{Alias{tumble, "mw"}, Alias{Binary{OpAdd, col("i32"), Literal{int64(1)}}, "k"}}
			s.left = func() Node {
				return testutil.Must(NewProject(x, []Expr{col("i64"), Alias{tumble, "w"}, Alias{Binary{OpAdd, col("i32"), Literal{int64(1)}}, "lk"}}))
			}
			s.cond = Binary{OpAnd, Binary{OpAnd, Binary{OpEq, col("w"), col("mw")}, Binary{OpEq, col("lk"), col("k")}}, Binary{OpEq, col("i64"), col("mx")}}
		}, false, false},
		{"a grouping column", func(s *shape) {
			s.keys = []Expr{Alias{tumble, "mw"}, Alias{col("i32"), "k"}}
			s.left = func() Node {
				return testutil.Must(NewProject(x, []Expr{col("i64"), col("i32"), Alias{tumble, "w"}}))
			}
			s.cond = Binary{OpAnd, Binary{OpAnd, Binary{OpEq, col("w"), col("mw")}, Binary{OpEq, col("i32"), col("k")}}, Binary{OpEq, col("i64"), col("mx")}}
		}, true, true},
		{"a filter over the aggregate", func(s *shape) {
			s.rightOver = func(a Node) Node { return testutil.Must(NewFilter(a, Binary{OpGt, col("n"), Literal{int64(1)}})) }
		}, false, false},
	} {
		s := base()
		c.change(&s)
		got, ok := FindExtremeJoinBack(build(s))
		if ok != c.ok || (ok && (got.Max != c.max || got.Value < 0)) {
			t.Errorf("%s: got %+v, %v; want ok %v, max %v", c.name, got, ok, c.ok, c.max)
		}
	}
}
