package nexmark

import (
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// q4 (average closing price per category): a stream-stream join of
// auctions and bids feeding two chained aggregations, the last in Complete
// mode.

// MaxAuctionLength is the longest auction (expires − dateTime) the
// generator produces at its Rate: an auction's length is 1 + a draw below
// 2·horizon µs (model.go's auctionLength), horizon the time until the
// auction numInFlightAuctions ahead is created, that is the event-time
// span of ahead = numInFlightAuctions·50/3 = 1,666 events, at most
// ahead·1e6/Rate + 1 µs (event times are floored to the µs). So every
// auction lasts at most 2·(ahead·1e6/Rate + 1) µs: 33.3 ms at 100,000
// events/s, 3.3 s at 1,000/s.
func (g *Generator) MaxAuctionLength() time.Duration {
	const ahead = numInFlightAuctions * ProportionDenominator / auctionProportion
	horizon := ahead*1_000_000/g.cfg.Rate + 1
	return time.Duration(2*horizon) * time.Microsecond
}

// Q4 returns the average closing price per category: for each auction,
// its closing price is the maximum price of the bids placed between its
// start and its expiry; the query averages the closing prices of each
// category. The reference's
//
//	SELECT Q.category, AVG(Q.final)
//	FROM (SELECT MAX(B.price) AS final, A.category
//	      FROM auction A, bid B
//	      WHERE A.id = B.auction AND B.dateTime BETWEEN A.dateTime AND A.expires
//	      GROUP BY A.id, A.category) Q
//	GROUP BY Q.category
//
// as three chained stateful operators: auctions (watermarks on dateTime,
// renamed a_time, and on expires, both WatermarkDelay) joined with bids
// (watermark on dateTime) on id = auction and dateTime between a_time and
// a_time + maxLen, a time range the engine can evict join state by (one
// column per side and a constant); the exact bound dateTime ≤ expires is a
// filter after the join. maxLen must be at least the longest auction
// (Generator.MaxAuctionLength) or bids placed late in a long auction would
// be missed. The closing price is the maximum per (id, category, expires)
// in Append mode: expires is an event-time key, so an auction's maximum is
// written once the watermark passes its expiry, never revised. The average
// per category is the last stage, to run in Complete mode (the whole
// table every trigger: Flink and RisingWave emit retractions instead).
// Since every watermark is dateTime − 4 s or later (expires ≥ dateTime),
// the global watermark, the minimum over the three, is the smaller of the
// auctions' and the bids' dateTime watermarks. Auctions without a bid in
// their range have no closing price (inner join), as in the reference.
// Output columns: category, avg_price (a double).
func Q4(auctions, bids sources.Source, maxLen time.Duration) *millrace.Stream {
	a := millrace.ReadStream(auctions).
		Select(millrace.Col("id"), millrace.Col("category"), millrace.Col("dateTime").As("a_time"), millrace.Col("expires")).
		WithWatermark("a_time", WatermarkDelay).
		WithWatermark("expires", WatermarkDelay)
	b := millrace.ReadStream(bids).
		WithWatermark("dateTime", WatermarkDelay).
		SelectCols("auction", "price", "dateTime")
	joined := a.Join(b,
		millrace.Col("id").Eq(millrace.Col("auction")).
			And(millrace.Col("dateTime").Between(millrace.Col("a_time"), millrace.Col("a_time").Plus(maxLen))),
		millrace.Inner).
		Filter(millrace.Col("dateTime").Le(millrace.Col("expires")))
	closing := joined.GroupBy(millrace.Col("id"), millrace.Col("category"), millrace.Col("expires")).
		Agg(millrace.Max(millrace.Col("price")).As("final"))
	return closing.GroupBy(millrace.Col("category")).
		Agg(millrace.Avg(millrace.Col("final")).As("avg_price"))
}
