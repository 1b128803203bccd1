package nexmark

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/columnar"
)

var (
	q5WindowSchema = arrow.NewSchema([]arrow.Field{
		{Name: "window.start", Type: columnar.Timestamp},
		{Name: "window.end", Type: columnar.Timestamp},
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "num", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	q7WindowSchema = arrow.NewSchema([]arrow.Field{
		{Name: "window.start", Type: columnar.Timestamp},
		{Name: "window.end", Type: columnar.Timestamp},
		{Name: "max_price", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
)

// OracleQ5Window evaluates Q5Window naively over events [0, events): the
// count of every (window, auction) a bid lies in, for the windows the
// final watermark closed.
func OracleQ5Window(g *Generator, events int64) Result {
	size := HotItemsWindow.Microseconds()
	counts, maxTs := slidingCounts(g, events)
	s := newRowSink(q5WindowSchema)
	if len(counts) == 0 {
		return s.done()
	}
	wm := closedBy(maxTs)
	rows := closedWindows(counts, size, wm, func(windowAuction, int64) bool { return true })
	for _, k := range rows {
		s.b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window))
		s.b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window + size))
		s.b.Field(2).(*array.Int64Builder).Append(k.auction)
		s.b.Field(3).(*array.Int64Builder).Append(counts[k])
		s.row()
	}
	return s.done()
}

// OracleQ7Window evaluates Q7Window naively over events [0, events): the
// highest price of each window the final watermark closed.
func OracleQ7Window(g *Generator, events int64) Result {
	size := TumblingWindow.Microseconds()
	best, maxTs := tumblingMaxes(g, events)
	s := newRowSink(q7WindowSchema)
	if len(best) == 0 {
		return s.done()
	}
	wm := closedBy(maxTs)
	windows := make([]int64, 0, len(best))
	for w := range best {
		if w+size <= wm {
			windows = append(windows, w)
		}
	}
	slices.Sort(windows)
	for _, w := range windows {
		s.b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(w))
		s.b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(w + size))
		s.b.Field(2).(*array.Int64Builder).Append(best[w])
		s.row()
	}
	return s.done()
}
