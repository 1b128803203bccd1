package millrace_test

import (
	"context"
	"fmt"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/bench/nexmark"
)

// A windowed count in SQL over a registered stream whose watermark the
// builder declares; the result is a Stream like any other.
func ExampleSession_SQL() {
	ctx := context.Background()
	src := nexmark.NewSource(nexmark.Config{Events: 1000, Rate: 100, Seed: 1, NumPartitions: 1}, nexmark.Bids)
	se := millrace.NewSession()
	se.CreateTempView("bids", millrace.ReadStream(src).WithWatermark("dateTime", time.Second))
	counts, err := se.SQL(ctx, `SELECT window(dateTime, '10 seconds') AS window, count(*) AS n
	                            FROM bids WHERE price > 100 GROUP BY 1`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range counts.Schema().Fields() {
		fmt.Println(f.Name, f.Type)
	}
	_, err = se.SQL(ctx, "SELECT * FROM bid")
	fmt.Println(err)
	// Output:
	// window struct<start: timestamp[us, tz=UTC], end: timestamp[us, tz=UTC]>
	// n int64
	// sql: 1:15: view "bid" not found (did you mean "bids"?)
	//  SELECT * FROM bid
	//                ^
}
