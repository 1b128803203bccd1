package nexmark

import (
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// Chained queries: q5 (hot items), q7 (highest bid) and q8 (new users),
// each a join of windowed aggregations (or of raw rows carrying their
// window) in Append mode with a watermark of dateTime − WatermarkDelay on
// every read. q5 and q7 use the bid stream twice: one source, read once
// per batch, whose batches fan out to both uses.

const (
	// TumblingWindow is q7's and q8's window size.
	TumblingWindow = 10 * time.Second
	// HotItemsWindow and HotItemsSlide are q5's sliding window: 10 s
	// windows starting every 2 s.
	HotItemsWindow = 10 * time.Second
	HotItemsSlide  = 2 * time.Second
	// ChainedRate is the default event-time rate of q5, q7 and q8 (the
	// reference's second harness): 10M events span 100 s, so windows
	// close within a benchmark run. At the generator's default rate
	// (10M events/s) 10M events span 1 s and no 10 s window closes.
	ChainedRate = 100_000
)

// Q5 returns the hot items: for each HotItemsWindow window sliding every
// HotItemsSlide, the auctions with the most bids. The reference's
//
//	SELECT AuctionBids.auction, AuctionBids.num
//	FROM (SELECT auction, count(*) AS num, window … FROM HOP(bid) GROUP BY auction, window) AuctionBids
//	JOIN (SELECT max(num) AS maxn, window FROM (… the same counts …) GROUP BY window) MaxBids
//	ON AuctionBids.window = MaxBids.window AND AuctionBids.num >= MaxBids.maxn
//
// with num = maxn (the same thing, as maxn is the window's maximum; the
// engine joins on equalities). Output columns: auction, num, window (struct<start, end>).
func Q5(bidSource sources.Source) *millrace.Stream {
	// the per-window counts feed both the join and the per-window maximum:
	// one aggregation with two consumers
	counts := millrace.ReadStream(bidSource).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.SlidingWindow(millrace.Col("dateTime"), HotItemsWindow, HotItemsSlide), millrace.Col("auction")).
		Agg(millrace.Count().As("num"))
	maxes := counts.
		GroupBy(millrace.Col("window").As("max_window")).
		Agg(millrace.Max(millrace.Col("num")).As("max_num"))
	return counts.Join(maxes, millrace.Col("window").Eq(millrace.Col("max_window")).And(millrace.Col("num").Eq(millrace.Col("max_num"))), millrace.Inner).
		SelectCols("auction", "num", "window")
}

// Q7 returns the highest bids: in each TumblingWindow window, the bids
// whose price equals the window's maximum price. The reference's
//
//	SELECT B.auction, B.price, B.bidder, B.dateTime, B.extra
//	FROM bid B JOIN (SELECT max(price) AS maxprice, window_end FROM TUMBLE(bid) GROUP BY window) B1
//	ON B.price = B1.maxprice AND B.dateTime BETWEEN B1.window_end − 10 s AND B1.window_end
//
// as raw bids carrying their window (Window as a value) joined with the
// per-window maximum on (window, price). Output columns: auction, price, bidder,
// dateTime, extra.
func Q7(bidSource sources.Source) *millrace.Stream {
	// one stream used twice: the source is read once, its batches fan out
	all := millrace.ReadStream(bidSource).WithWatermark("dateTime", WatermarkDelay)
	bids := all.
		Select(millrace.Col("auction"), millrace.Col("price"), millrace.Col("bidder"), millrace.Col("dateTime"), millrace.Col("extra"),
			millrace.Window(millrace.Col("dateTime"), TumblingWindow).As("window"))
	maxes := all.
		GroupBy(millrace.Window(millrace.Col("dateTime"), TumblingWindow).As("max_window")).
		Agg(millrace.Max(millrace.Col("price")).As("max_price"))
	return bids.Join(maxes, millrace.Col("window").Eq(millrace.Col("max_window")).And(millrace.Col("price").Eq(millrace.Col("max_price"))), millrace.Inner).
		SelectCols("auction", "price", "bidder", "dateTime", "extra")
}

// Q8 returns the new users: the people who created an account and opened
// an auction within the same TumblingWindow window. The reference's
//
//	SELECT P.id, P.name, P.starttime
//	FROM (SELECT id, name, window FROM TUMBLE(person) GROUP BY id, name, window) P
//	JOIN (SELECT seller, window FROM TUMBLE(auction) GROUP BY seller, window) A
//	ON P.id = A.seller AND P.window = A.window
//
// (the groupings deduplicate; their Count is not output). Output columns:
// id, name, window (struct<start, end>: the reference's starttime and
// endtime).
func Q8(persons, auctions sources.Source) *millrace.Stream {
	p := millrace.ReadStream(persons).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.Window(millrace.Col("dateTime"), TumblingWindow), millrace.Col("id"), millrace.Col("name")).
		Agg(millrace.Count().As("p_count"))
	a := millrace.ReadStream(auctions).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.Window(millrace.Col("dateTime"), TumblingWindow).As("a_window"), millrace.Col("seller")).
		Agg(millrace.Count().As("a_count"))
	return p.Join(a, millrace.Col("window").Eq(millrace.Col("a_window")).And(millrace.Col("id").Eq(millrace.Col("seller"))), millrace.Inner).
		SelectCols("id", "name", "window")
}
