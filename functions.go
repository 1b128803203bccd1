package millrace

import (
	"time"

	"github.com/millrace/millrace/plan"
)

// Window groups rows into tumbling event-time windows of the given size:
// [start, start+size) with start a multiple of size since the epoch. As a
// grouping key it yields a column "window" of struct<start, end>.
func Window(timeCol Column, size time.Duration) Column {
	return Column{plan.Window{Time: timeCol.e, Size: size, Slide: size}}
}

// WindowWithOffset is Window with window starts shifted by offset.
func WindowWithOffset(timeCol Column, size, offset time.Duration) Column {
	return Column{plan.Window{Time: timeCol.e, Size: size, Slide: size, Offset: offset}}
}

// SlidingWindow groups rows into windows of the given size that start every
// slide: a row belongs to every window that contains it.
func SlidingWindow(timeCol Column, size, slide time.Duration) Column {
	return Column{plan.Window{Time: timeCol.e, Size: size, Slide: slide}}
}

// Count counts rows: Count() is count(*), Count(col) counts non-null values.
func Count(col ...Column) Column {
	if len(col) == 0 {
		return Column{plan.Agg{Func: plan.AggCountAll}}
	}
	return Column{plan.Agg{Func: plan.AggCount, Arg: col[0].e}}
}

// Sum adds the non-null values of col.
func Sum(col Column) Column { return Column{plan.Agg{Func: plan.AggSum, Arg: col.e}} }

// Min is the smallest non-null value of col: a number, date, timestamp,
// string or binary (compared by their bytes, as Spark does) or boolean
// (false before true). Null when col has no non-null value.
func Min(col Column) Column { return Column{plan.Agg{Func: plan.AggMin, Arg: col.e}} }

// Max is the largest non-null value of col, as Min.
func Max(col Column) Column { return Column{plan.Agg{Func: plan.AggMax, Arg: col.e}} }

// Avg is the mean of the non-null values of col, as a double.
func Avg(col Column) Column { return Column{plan.Agg{Func: plan.AggAvg, Arg: col.e}} }

// CountDistinct counts the distinct non-null values of col.
func CountDistinct(col Column) Column {
	return Column{plan.Agg{Func: plan.AggCountDistinct, Arg: col.e}}
}

// ApproxCountDistinct estimates the number of distinct non-null values of
// col with HyperLogLog++, as Spark's approx_count_distinct: the same
// estimate as Spark's for the same values. rsd is the maximum relative
// standard deviation (default 0.05; from 0.0016 to 0.39): the state of a
// group is 2^p/10+1 words of 8 bytes with p = ceil(2·log2(1.106/rsd)), 416
// bytes at 0.05, 13 KB at 0.01, whatever the number of rows. Only the
// first rsd is used.
func ApproxCountDistinct(col Column, rsd ...float64) Column {
	a := plan.Agg{Func: plan.AggApproxCountDistinct, Arg: col.e}
	if len(rsd) > 0 {
		// 0 stands for the default in plan.Agg: an explicit 0 is refused
		// here, as any other rsd out of range is when the query is planned
		if rsd[0] == 0 {
			return Column{plan.Invalid{Text: "approx_count_distinct(" + col.e.String() + ", 0)", Err: plan.ValidRSD(0)}}
		}
		a.RSD = rsd[0]
	}
	return Column{a}
}

// First is the value of col in the first row of each group, in the order
// rows arrive (within a trigger and across triggers: the state keeps it),
// as Spark's first(col[, ignoreNulls]). With ignoreNulls true it is the
// first non-null value. As in Spark, "first" depends on arrival order:
// rows of one key read from several source partitions in one trigger come
// in partition order.
func First(col Column, ignoreNulls ...bool) Column {
	return Column{plan.Agg{Func: plan.AggFirst, Arg: col.e, IgnoreNulls: len(ignoreNulls) > 0 && ignoreNulls[0]}}
}

// Last is First's counterpart: the value of col in the last row of each
// group so far (the last non-null value with ignoreNulls true).
func Last(col Column, ignoreNulls ...bool) Column {
	return Column{plan.Agg{Func: plan.AggLast, Arg: col.e, IgnoreNulls: len(ignoreNulls) > 0 && ignoreNulls[0]}}
}

// CollectList is the list of the non-null values of col in each group, in
// arrival order, as Spark's collect_list. Its state holds every value of
// the group: it grows without bound unless a watermark closes the groups
// (a window key, in Append or Update mode).
func CollectList(col Column) Column {
	return Column{plan.Agg{Func: plan.AggCollectList, Arg: col.e}}
}

// CollectSet is CollectList without repeats, in order of first appearance
// (Spark's collect_set gives no order). Its state holds every distinct
// value of the group.
func CollectSet(col Column) Column {
	return Column{plan.Agg{Func: plan.AggCollectSet, Arg: col.e}}
}

// SessionWindow groups rows into sessions: rows of the same key whose event
// times are less than gap apart belong to one session, [first event, last
// event + gap). Sessions merge across triggers (a late event may bridge two)
// and are written, in Append mode, once the watermark passes their end. As
// a grouping key it yields a column "session_window" of struct<start, end>.
func SessionWindow(timeCol Column, gap time.Duration) Column {
	return Column{plan.Session{Time: timeCol.e, Gap: gap}}
}

// CurrentTimestamp is the processing time of the micro-batch (Spark's
// current_timestamp()): the same value for every row of a batch, recorded
// in the offsets log so that a batch re-run after a crash sees it again.
// Grouping by a Window over it gives processing-time windows.
func CurrentTimestamp() Column { return Column{plan.CurrentTimestamp{}} }

// When starts a conditional column, as Spark's when(cond, value): value
// where cond is true; chain more branches with Column.When and a default
// with Column.Otherwise. Without Otherwise, a row that no branch takes is
// null. The result type is the branches' common type (numbers widen to the
// widest of INT, BIGINT, DOUBLE; NULL takes the others' type).
//
//	When(Col("price").Gt(100), "high").When(Col("price").Gt(10), "mid").Otherwise("low")
func When(cond Column, value any) Column {
	return Column{plan.Case{Cond: cond.e, Then: toExpr(value)}}
}
