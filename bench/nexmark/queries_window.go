package nexmark

import (
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// Window queries: q11 (event-time sessions) and q12 (processing-time
// tumbling windows). Their window columns are structs; Run's sink reads
// the structs' fields (flatsink.go), so the checksum covers the bounds.

const (
	// SessionGap is q11's session gap: a bidder's session closes after
	// 10 s without a bid.
	SessionGap = 10 * time.Second
	// WatermarkDelay is the bids' watermark delay (NEXMARK.md: dateTime −
	// 4 s), larger than any out-of-order span the generator produces at
	// the default rate, so that no bid is late.
	WatermarkDelay = 4 * time.Second
	// ProcessingWindow is q12's processing-time window size.
	ProcessingWindow = 10 * time.Second
)

// Q11 counts bids per bidder per session (sessions close after SessionGap
// without a bid) with a watermark of dateTime − WatermarkDelay, in Append
// mode: each session is written once, when the watermark passes its end.
// Columns as in the reference: bidder, bid_count, session_window
// (struct<start, end>: the reference's starttime, endtime).
func Q11(bids sources.Source) *millrace.Stream {
	return millrace.ReadStream(bids).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.SessionWindow(millrace.Col("dateTime"), SessionGap), millrace.Col("bidder")).
		Agg(millrace.Count().As("bid_count")).
		Select(millrace.Col("bidder"), millrace.Col("bid_count"), millrace.Col("session_window"))
}

// Q12 counts bids per bidder in ProcessingWindow tumbling windows of
// processing time: p_time is the batch's timestamp (CurrentTimestamp).
// Run it in Update mode (Spark's formulation: a processing-time column
// has no watermark, so Append is refused; each trigger writes the windows
// it changed with their running counts). Columns: bidder, bid_count,
// window (struct<start, end>).
func Q12(bids sources.Source) *millrace.Stream {
	return millrace.ReadStream(bids).
		WithColumn("p_time", millrace.CurrentTimestamp()).
		GroupBy(millrace.Window(millrace.Col("p_time"), ProcessingWindow), millrace.Col("bidder")).
		Agg(millrace.Count().As("bid_count")).
		Select(millrace.Col("bidder"), millrace.Col("bid_count"), millrace.Col("window"))
}
