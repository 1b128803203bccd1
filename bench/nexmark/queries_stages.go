package nexmark

import (
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sources"
)

// The window stages of q5 and q7 on their own, for the fair comparison
// (bench/compare), where the full queries' join-backs would hide how fast
// each engine aggregates windows.

// Q5Window returns q5's first stage: the number of bids per auction in
// each HotItemsWindow window sliding by HotItemsSlide. Output columns:
// window (struct<start, end>), auction, num.
func Q5Window(bidSource sources.Source) *millrace.Stream {
	return millrace.ReadStream(bidSource).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.SlidingWindow(millrace.Col("dateTime"), HotItemsWindow, HotItemsSlide), millrace.Col("auction")).
		Agg(millrace.Count().As("num"))
}

// Q7Window returns q7's first stage: the highest price in each
// TumblingWindow window. Output columns: window (struct<start, end>),
// max_price.
func Q7Window(bidSource sources.Source) *millrace.Stream {
	return millrace.ReadStream(bidSource).
		WithWatermark("dateTime", WatermarkDelay).
		GroupBy(millrace.Window(millrace.Col("dateTime"), TumblingWindow)).
		Agg(millrace.Max(millrace.Col("price")).As("max_price"))
}
