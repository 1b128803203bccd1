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

// Oracles of the window queries. Their outputs are checksummed flat:
// bidder, bid_count, window start, window end (see flatsink.go).

var windowOutSchema = arrow.NewSchema([]arrow.Field{
	{Name: "bidder", Type: arrow.PrimitiveTypes.Int64},
	{Name: "bid_count", Type: arrow.PrimitiveTypes.Int64},
	{Name: "start", Type: columnar.Timestamp},
	{Name: "end", Type: columnar.Timestamp},
}, nil)

// bidTime is a bid's bidder and event time (µs).
type bidTime struct {
	bidder, ts int64
}

// bidTimes returns the bidder and time of the bids among positions
// [lo, hi), in position order, generated on GOMAXPROCS goroutines.
func bidTimes(g *Generator, lo, hi int64) []bidTime {
	p := int64(runtime.GOMAXPROCS(0))
	parts := make([][]bidTime, p)
	var wg sync.WaitGroup
	n := hi - lo
	for i := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out []bidTime
			for pos := lo + n*i/p; pos < lo+n*(i+1)/p; pos++ {
				e := g.EventNumber(pos)
				if KindOf(e) != Bids {
					continue
				}
				b := g.BidAt(e)
				out = append(out, bidTime{b.Bidder, b.DateTime})
			}
			parts[i] = out
		}()
	}
	wg.Wait()
	return slices.Concat(parts...)
}

func appendWindowRow(s *rowSink, bidder, count, start, end int64) {
	s.b.Field(0).(*array.Int64Builder).Append(bidder)
	s.b.Field(1).(*array.Int64Builder).Append(count)
	s.b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(start))
	s.b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(end))
	s.row()
}

// OracleQ11 evaluates q11 naively over events [0, events): per bidder, the
// bids sorted by time split into sessions wherever two consecutive bids
// are more than SessionGap apart; a session [first, last + gap) is output
// if the final watermark closed it: end ≤ max(dateTime) − WatermarkDelay,
// floored to the millisecond as the engine keeps it. This is the engine's
// result when no bid is late, which holds while WatermarkDelay exceeds the
// out-of-order span (G events of event time).
func OracleQ11(g *Generator, events int64) Result {
	bids := bidTimes(g, 0, events)
	s := newRowSink(windowOutSchema)
	if len(bids) == 0 {
		return s.done()
	}
	maxTs := bids[0].ts
	for _, b := range bids {
		maxTs = max(maxTs, b.ts)
	}
	wm := (maxTs - WatermarkDelay.Microseconds()) / 1000 * 1000
	gap := SessionGap.Microseconds()
	slices.SortFunc(bids, func(a, b bidTime) int {
		if c := cmp.Compare(a.bidder, b.bidder); c != 0 {
			return c
		}
		return cmp.Compare(a.ts, b.ts)
	})
	start, last, n := bids[0].ts, bids[0].ts, int64(1)
	for i := 1; i <= len(bids); i++ {
		if i < len(bids) && bids[i].bidder == bids[i-1].bidder && bids[i].ts-last <= gap { // a bid exactly one gap later extends the session, as in Spark
			last = bids[i].ts
			n++
			continue
		}
		if last+gap <= wm {
			appendWindowRow(s, bids[i-1].bidder, n, start, last+gap)
		}
		if i < len(bids) {
			start, last, n = bids[i].ts, bids[i].ts, 1
		}
	}
	return s.done()
}

// OracleQ12 evaluates q12 naively over events [0, events) in Update mode
// on Run's simulated clock: batch k reads positions TriggerRange(k) at
// processing time TriggerTime(k) (kept in milliseconds, as the engine's
// batch timestamp); after each batch, every (window, bidder) that batch
// counted is output with its count so far.
func OracleQ12(g *Generator, events int64) Result {
	s := newRowSink(windowOutSchema)
	size := ProcessingWindow.Microseconds()
	type key struct{ window, bidder int64 }
	counts := map[key]int64{}
	for k := int64(0); ; k++ {
		lo, hi, ok := g.TriggerRange(k, events)
		if !ok {
			break
		}
		pt := g.TriggerTime(k).UnixMilli() * 1000
		w := pt - ((pt%size)+size)%size
		touched := map[int64]bool{}
		for _, b := range bidTimes(g, lo, hi) {
			counts[key{w, b.bidder}]++
			touched[b.bidder] = true
		}
		for bidder := range touched {
			appendWindowRow(s, bidder, counts[key{w, bidder}], w, w+size)
		}
	}
	return s.done()
}
