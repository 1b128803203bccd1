package nexmark

import (
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// The suite's per-day statistics reports q15, q16 and q17: aggregations
// over all bids (no window, no watermark) grouped by the bid's day,
// date_format(dateTime, 'yyyy-MM-dd'), run in Complete mode (Spark allows
// Update and Complete for them; Complete's last table is the result Run
// reads). The suite's FILTER (WHERE …) clauses are CASE WHEN … THEN …
// END arguments here, which count and count(DISTINCT) skip when null, as
// SQL's FILTER is planned.
//
// q15 and q16 count distinct bidders and auctions: Spark refuses
// count(DISTINCT) on a stream ("consider approx_count_distinct"), Millrace
// keeps the distinct values per group as state and counts them exactly.

// Price ranks of the statistics reports: rank 1 below Rank2Price, rank 2
// below Rank3Price, rank 3 from Rank3Price up.
const (
	Rank2Price = 10_000
	Rank3Price = 1_000_000
)

// dayFormat is the statistics reports' day key.
const dayFormat = "yyyy-MM-dd"

// priceRanks are the conditions of ranks 1, 2 and 3.
func priceRanks() [3]millrace.Column {
	price := millrace.Col("price")
	return [3]millrace.Column{
		price.Lt(Rank2Price),
		price.Ge(Rank2Price).And(price.Lt(Rank3Price)),
		price.Ge(Rank3Price),
	}
}

// bidCounts are count(*) and the count of each rank's bids: total_bids,
// rank1_bids, rank2_bids, rank3_bids.
func bidCounts() []millrace.Column {
	r := priceRanks()
	return []millrace.Column{
		millrace.Count().As("total_bids"),
		millrace.Count(millrace.When(r[0], 1)).As("rank1_bids"),
		millrace.Count(millrace.When(r[1], 1)).As("rank2_bids"),
		millrace.Count(millrace.When(r[2], 1)).As("rank3_bids"),
	}
}

// distinctCounts are the distinct values of col, overall and per rank:
// total_NAME, rank1_NAME, rank2_NAME, rank3_NAME.
func distinctCounts(col, name string) []millrace.Column {
	r := priceRanks()
	c := millrace.Col(col)
	return []millrace.Column{
		millrace.CountDistinct(c).As("total_" + name),
		millrace.CountDistinct(millrace.When(r[0], c)).As("rank1_" + name),
		millrace.CountDistinct(millrace.When(r[1], c)).As("rank2_" + name),
		millrace.CountDistinct(millrace.When(r[2], c)).As("rank3_" + name),
	}
}

// Q15 is the suite's "bidding statistics report": per day, the number of
// bids, bidders and auctions, overall and per price rank. Output columns:
// day, total_bids, rank1_bids…rank3_bids, total_bidders,
// rank1_bidders…rank3_bidders, total_auctions, rank1_auctions…rank3_auctions.
func Q15(bids sources.Source) *millrace.Stream {
	aggs := append(bidCounts(), distinctCounts("bidder", "bidders")...)
	aggs = append(aggs, distinctCounts("auction", "auctions")...)
	return millrace.ReadStream(bids).
		GroupBy(millrace.DateFormat(millrace.Col("dateTime"), dayFormat).As("day")).
		Agg(aggs...)
}

// Q16 is the suite's "channel statistics report": q15's counts per
// channel and day, with the latest hour:minute of the group's bids, the
// suite's max(DATE_FORMAT(dateTime, 'HH:mm')): a max of strings. Output
// columns: channel, day, minute, then q15's twelve counts.
func Q16(bids sources.Source) *millrace.Stream {
	col := millrace.Col
	aggs := append([]millrace.Column{millrace.Max(millrace.DateFormat(col("dateTime"), "HH:mm")).As("minute")}, bidCounts()...)
	aggs = append(aggs, distinctCounts("bidder", "bidders")...)
	aggs = append(aggs, distinctCounts("auction", "auctions")...)
	return millrace.ReadStream(bids).
		GroupBy(col("channel"), millrace.DateFormat(col("dateTime"), dayFormat).As("day")).
		Agg(aggs...)
}

// Q17 is the suite's "auction statistics report": per auction and day, the
// number of bids, overall and per price rank, and the minimum, maximum,
// average (a double, Spark's avg; BIGINT in the suite) and sum of their
// prices. Output columns: auction, day, total_bids, rank1_bids…rank3_bids,
// min_price, max_price, avg_price, sum_price.
func Q17(bids sources.Source) *millrace.Stream {
	price := millrace.Col("price")
	aggs := append(bidCounts(),
		millrace.Min(price).As("min_price"), millrace.Max(price).As("max_price"),
		millrace.Avg(price).As("avg_price"), millrace.Sum(price).As("sum_price"))
	return millrace.ReadStream(bids).
		GroupBy(millrace.Col("auction"), millrace.DateFormat(millrace.Col("dateTime"), dayFormat).As("day")).
		Agg(aggs...)
}
