package nexmark

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/columnar"
)

// Oracles of the chained queries q5, q7 and q8: maps of Go structs over
// all the events, without the engine. The generator's events are in order
// up to OutOfOrderGroup positions, far less than WatermarkDelay at the
// rates used, so no event is late and the engine's Append output is the
// naive result for the windows the final watermark closed: end ≤
// min over the query's sources of (max dateTime − WatermarkDelay),
// floored to the millisecond as the engine keeps it.

var (
	q5Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "num", Type: arrow.PrimitiveTypes.Int64},
		{Name: "window.start", Type: columnar.Timestamp},
		{Name: "window.end", Type: columnar.Timestamp},
	}, nil)
	q7Schema = arrow.NewSchema([]arrow.Field{
		{Name: "auction", Type: arrow.PrimitiveTypes.Int64},
		{Name: "price", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dateTime", Type: columnar.Timestamp},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	q8Schema = arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String},
		{Name: "window.start", Type: columnar.Timestamp},
		{Name: "window.end", Type: columnar.Timestamp},
	}, nil)
)

// floorTo is t rounded down to a multiple of size (t may be negative).
func floorTo(t, size int64) int64 { return t - ((t%size)+size)%size }

// closedBy is the final watermark (µs) of a source whose latest event is
// at maxTs: maxTs − WatermarkDelay, floored to the millisecond.
func closedBy(maxTs int64) int64 {
	return floorTo(maxTs-WatermarkDelay.Microseconds(), 1000)
}

// parallelBids calls fn(part, bid) for every bid among positions
// [0, events), positions split into GOMAXPROCS ranges, part the range's
// index, one goroutine per range; it returns the number of parts.
func parallelBids(g *Generator, events int64, fn func(part int, b Bid)) int {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for i := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(p)
			for pos := events * int64(i) / n; pos < events*int64(i+1)/n; pos++ {
				if e := g.EventNumber(pos); KindOf(e) == Bids {
					fn(i, g.BidAt(e))
				}
			}
		}()
	}
	wg.Wait()
	return p
}

// tumblingMaxes is the highest bid price of every TumblingWindow window
// among events [0, events), by window start, and the latest bid time.
func tumblingMaxes(g *Generator, events int64) (map[int64]int64, int64) {
	size := TumblingWindow.Microseconds()
	p := runtime.GOMAXPROCS(0)
	maxes := make([]map[int64]int64, p)
	latest := make([]int64, p)
	for i := range p {
		maxes[i] = map[int64]int64{}
		latest[i] = -1 << 62
	}
	parallelBids(g, events, func(i int, b Bid) {
		w := floorTo(b.DateTime, size)
		if m, ok := maxes[i][w]; !ok || b.Price > m {
			maxes[i][w] = b.Price
		}
		latest[i] = max(latest[i], b.DateTime)
	})
	best := map[int64]int64{}
	maxTs := int64(-1 << 62)
	for i := range p {
		for w, m := range maxes[i] {
			if cur, ok := best[w]; !ok || m > cur {
				best[w] = m
			}
		}
		maxTs = max(maxTs, latest[i])
	}
	return best, maxTs
}

// closedWindows returns the keys of counts whose window ends by the
// watermark wm and for which keep holds, by window and auction.
func closedWindows(counts map[windowAuction]int64, size, wm int64, keep func(windowAuction, int64) bool) []windowAuction {
	var rows []windowAuction
	for k, n := range counts {
		if k.window+size <= wm && keep(k, n) {
			rows = append(rows, k)
		}
	}
	slices.SortFunc(rows, func(a, b windowAuction) int {
		if c := cmp.Compare(a.window, b.window); c != 0 {
			return c
		}
		return cmp.Compare(a.auction, b.auction)
	})
	return rows
}

// windowAuction keys q5's counts: a sliding window's start and an auction.
type windowAuction struct{ window, auction int64 }

// slidingCounts is the number of bids of every (HotItemsWindow window
// sliding by HotItemsSlide, auction) among events [0, events), and the
// latest bid time.
func slidingCounts(g *Generator, events int64) (map[windowAuction]int64, int64) {
	size, slide := HotItemsWindow.Microseconds(), HotItemsSlide.Microseconds()
	p := runtime.GOMAXPROCS(0)
	parts := make([]map[windowAuction]int64, p)
	latest := make([]int64, p)
	for i := range p {
		parts[i] = map[windowAuction]int64{}
		latest[i] = -1 << 62
	}
	parallelBids(g, events, func(i int, b Bid) {
		for w := floorTo(b.DateTime, slide); w > b.DateTime-size; w -= slide {
			parts[i][windowAuction{w, b.Auction}]++
		}
		latest[i] = max(latest[i], b.DateTime)
	})
	counts, maxTs := parts[0], latest[0]
	for i := 1; i < p; i++ {
		for k, n := range parts[i] {
			counts[k] += n
		}
		maxTs = max(maxTs, latest[i])
	}
	return counts, maxTs
}

// OracleQ7 evaluates q7 naively over events [0, events): a first pass
// finds each window's maximum price and the latest bid time, a second
// emits the bids of closed windows whose price is their window's maximum.
func OracleQ7(g *Generator, events int64) Result {
	size := TumblingWindow.Microseconds()
	best, maxTs := tumblingMaxes(g, events)
	s := newRowSink(q7Schema)
	if len(best) == 0 {
		return s.done()
	}
	wm := closedBy(maxTs)
	var mu sync.Mutex
	parallelBids(g, events, func(_ int, b Bid) {
		w := floorTo(b.DateTime, size)
		if w+size > wm || b.Price != best[w] {
			return
		}
		mu.Lock()
		s.b.Field(0).(*array.Int64Builder).Append(b.Auction)
		s.b.Field(1).(*array.Int64Builder).Append(b.Price)
		s.b.Field(2).(*array.Int64Builder).Append(b.Bidder)
		s.b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(b.DateTime))
		s.b.Field(4).(*array.StringBuilder).Append(b.Extra)
		s.row()
		mu.Unlock()
	})
	return s.done()
}

// OracleQ8 evaluates q8 naively over events [0, events): the distinct
// (window, person id) with the person's name, and the distinct (window,
// seller) of auctions; a row per person whose id sold in the same closed
// window. The watermark is the smaller of the persons' and the auctions'.
func OracleQ8(g *Generator, events int64) Result {
	size := TumblingWindow.Microseconds()
	type key struct{ window, id int64 }
	people := map[key]string{}
	sellers := map[key]bool{}
	maxP, maxA := int64(-1<<62), int64(-1<<62)
	for pos := range events {
		e := g.EventNumber(pos)
		switch KindOf(e) {
		case Persons:
			p := g.PersonAt(e)
			people[key{floorTo(p.DateTime, size), p.ID}] = p.Name
			maxP = max(maxP, p.DateTime)
		case Auctions:
			a := g.AuctionAt(e)
			sellers[key{floorTo(a.DateTime, size), a.Seller}] = true
			maxA = max(maxA, a.DateTime)
		}
	}
	s := newRowSink(q8Schema)
	if len(people) == 0 || len(sellers) == 0 {
		return s.done()
	}
	wm := closedBy(min(maxP, maxA))
	for k, name := range people {
		if k.window+size > wm || !sellers[k] {
			continue
		}
		s.b.Field(0).(*array.Int64Builder).Append(k.id)
		s.b.Field(1).(*array.StringBuilder).Append(name)
		s.b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window))
		s.b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window + size))
		s.row()
	}
	return s.done()
}

// OracleQ5 evaluates q5 naively over events [0, events): every bid counts
// towards each of the HotItemsWindow/HotItemsSlide sliding windows that
// contain it (starts in (t − size, t], multiples of the slide); per closed
// window, the auctions whose count is the window's maximum.
func OracleQ5(g *Generator, events int64) Result {
	size := HotItemsWindow.Microseconds()
	counts, maxTs := slidingCounts(g, events)
	s := newRowSink(q5Schema)
	if len(counts) == 0 {
		return s.done()
	}
	wm := closedBy(maxTs)
	best := map[int64]int64{}
	for k, n := range counts {
		best[k.window] = max(best[k.window], n)
	}
	rows := closedWindows(counts, size, wm, func(k windowAuction, n int64) bool { return n == best[k.window] })
	for _, k := range rows {
		s.b.Field(0).(*array.Int64Builder).Append(k.auction)
		s.b.Field(1).(*array.Int64Builder).Append(counts[k])
		s.b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window))
		s.b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(k.window + size))
		s.row()
	}
	return s.done()
}
