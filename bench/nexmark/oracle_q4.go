package nexmark

import (
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Oracle of q4: maps of Go structs over all the events, without the
// engine, and without the join's time-range bound (the exact condition
// a.dateTime ≤ b.dateTime ≤ a.expires only).

var q4Schema = arrow.NewSchema([]arrow.Field{
	{Name: "category", Type: arrow.PrimitiveTypes.Int64},
	{Name: "avg_price", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// OracleQ4 evaluates q4 naively over events [0, events): the auctions
// closed by the final watermark as it reaches the closing aggregation
// (the query's watermark w — min over auctions' dateTime and expires and
// bids' dateTime of the latest time − WatermarkDelay, floored to the
// millisecond — lowered by the join's time range), each with
// the maximum price of its bids placed in [dateTime, expires] (an auction
// without such a bid has no closing price), averaged per category. The
// output is the last Complete-mode table: one row per category with a
// closed auction. Sums of prices stay far below 2^53, so the engine's
// float64 sum equals the integer sum whatever the order.
func OracleQ4(g *Generator, events int64) Result {
	type auction struct{ category, start, expires int64 }
	auctions := map[int64]auction{}
	const none = int64(-1 << 62)
	maxA, maxExp, maxB := none, none, none
	for pos := range events {
		e := g.EventNumber(pos)
		if KindOf(e) != Auctions {
			continue
		}
		a := g.AuctionAt(e)
		auctions[a.ID] = auction{a.Category, a.DateTime, a.Expires}
		maxA = max(maxA, a.DateTime)
		maxExp = max(maxExp, a.Expires)
	}
	s := newRowSink(q4Schema)
	// Per part, the closing price so far of each auction and the latest bid.
	p := runtime.GOMAXPROCS(0) // parallelBids' parts
	parts := make([]map[int64]int64, p)
	latest := make([]int64, p)
	for i := range p {
		parts[i] = map[int64]int64{}
		latest[i] = none
	}
	parallelBids(g, events, func(i int, b Bid) {
		latest[i] = max(latest[i], b.DateTime)
		a, ok := auctions[b.Auction]
		if !ok || b.DateTime < a.start || b.DateTime > a.expires {
			return
		}
		if m, ok := parts[i][b.Auction]; !ok || b.Price > m {
			parts[i][b.Auction] = b.Price
		}
	})
	closing := map[int64]int64{}
	for i := range parts {
		for id, m := range parts[i] {
			if cur, ok := closing[id]; !ok || m > cur {
				closing[id] = m
			}
		}
		maxB = max(maxB, latest[i])
	}
	if len(auctions) == 0 || maxB == none {
		return s.done()
	}
	// The closing aggregation runs on the join's output watermark, as in
	// Spark (its watermark propagation): the join's smaller state
	// watermark, trunc_ms(w − maxLen) − 1 ms for auctions (bids up to
	// maxLen after an auction's start still match it) and w − 1 ms for bids.
	w := closedBy(min(maxA, maxExp, maxB))
	maxLen := g.MaxAuctionLength().Microseconds()
	wm := min(((w-maxLen)/1000-1)*1000, w-1000)
	sums := map[int64]int64{}
	counts := map[int64]int64{}
	for id, final := range closing {
		a := auctions[id]
		if a.expires > wm {
			continue
		}
		sums[a.category] += final
		counts[a.category]++
	}
	for c, sum := range sums {
		s.b.Field(0).(*array.Int64Builder).Append(c)
		s.b.Field(1).(*array.Float64Builder).Append(float64(sum) / float64(counts[c]))
		s.row()
	}
	return s.done()
}
