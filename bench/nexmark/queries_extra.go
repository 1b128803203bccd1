package nexmark

import (
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// The queries the Nexmark suite added after the original eight (q10,
// q13–q22) that fit streaming semantics, written with the Go API and the
// function library; their SQL text is in sql.go. q18 and q19 do not fit:
// both rank rows with ROW_NUMBER() OVER (PARTITION BY … ORDER BY …), a
// window over rows that is not a time window, which Spark's streaming
// queries refuse (Spark 4.2: NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING,
// "Window function is not supported in ROW_NUMBER() … on streaming
// DataFrames/Datasets"). q13 and q20 (joins) are in queries_enrich.go,
// q15–q17 (per-day statistics) in queries_stats.go.

// Q10 is the suite's "log to file system": every bid with its day and its
// hour:minute as strings (date_format), for a sink partitioned by them.
// Output columns: auction, bidder, price, dateTime, extra, dt, hm.
func Q10(bids sources.Source) *millrace.Stream {
	col := millrace.Col
	return millrace.ReadStream(bids).Select(
		col("auction"), col("bidder"), col("price"), col("dateTime"), col("extra"),
		millrace.DateFormat(col("dateTime"), "yyyy-MM-dd").As("dt"),
		millrace.DateFormat(col("dateTime"), "HH:mm").As("hm"))
}

// Q14 is the suite's "calculation": bids whose price in euros is between
// 1M and 50M, with the time of day of the bid (day, night or other by its
// hour) and the number of 'c' in extra (the suite's count_char UDF, as
// length(extra) − length(replace(extra, 'c', ”))). Output columns:
// auction, bidder, price (euros, double), bidTimeType, dateTime, extra,
// c_counts.
func Q14(bids sources.Source) *millrace.Stream {
	col := millrace.Col
	euros := millrace.Lit(EurosPerDollar).Times(col("price"))
	hour := millrace.Hour(col("dateTime"))
	timeType := millrace.When(hour.Ge(8).And(hour.Le(18)), "dayTime").
		When(hour.Le(6).Or(hour.Ge(20)), "nightTime").
		Otherwise("otherTime")
	cCount := millrace.Length(col("extra")).Minus(millrace.Length(millrace.Replace(col("extra"), "c", "")))
	return millrace.ReadStream(bids).
		Filter(euros.Gt(1_000_000).And(euros.Lt(50_000_000))).
		Select(col("auction"), col("bidder"), euros.As("price"), timeType.As("bidTimeType"),
			col("dateTime"), col("extra"), cCount.As("c_counts"))
}

// channelIDPattern extracts the channel_id parameter of a bid's url (q21).
const channelIDPattern = `(&|^)channel_id=([^&]*)`

// Q21 is the suite's "add channel id": the hot channels get fixed ids, the
// others the channel_id parameter of their url. Spark's regexp_extract
// gives "" (not null, as Flink's) when the url has none, so the suite's
// filter (channel id not null or a hot channel) keeps every bid. Output
// columns: auction, bidder, price, channel, channel_id.
func Q21(bids sources.Source) *millrace.Stream {
	col := millrace.Col
	lc := millrace.Lower(col("channel"))
	fromURL := millrace.RegexpExtract(col("url"), channelIDPattern, 2)
	id := millrace.When(lc.Eq("apple"), "0").
		When(lc.Eq("google"), "1").
		When(lc.Eq("facebook"), "2").
		When(lc.Eq("baidu"), "3").
		Otherwise(fromURL)
	hot := lc.Eq("apple").Or(lc.Eq("google")).Or(lc.Eq("facebook")).Or(lc.Eq("baidu"))
	return millrace.ReadStream(bids).
		Filter(fromURL.IsNotNull().Or(hot)).
		Select(col("auction"), col("bidder"), col("price"), col("channel"), id.As("channel_id"))
}

// Q22 is the suite's "get URL directories": the first three directories of
// a bid's url, Spark's split_part(url, '/', 4…6) (the suite's Flink
// SPLIT_INDEX(url, '/', 3…5) counts from 0; split_part gives "" where
// SPLIT_INDEX gives null). Output columns: auction, bidder, price,
// channel, dir1, dir2, dir3.
func Q22(bids sources.Source) *millrace.Stream {
	col := millrace.Col
	return millrace.ReadStream(bids).Select(col("auction"), col("bidder"), col("price"), col("channel"),
		millrace.SplitPart(col("url"), "/", 4).As("dir1"),
		millrace.SplitPart(col("url"), "/", 5).As("dir2"),
		millrace.SplitPart(col("url"), "/", 6).As("dir3"))
}
