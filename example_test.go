package millrace_test

import (
	"context"
	"fmt"
	"github.com/millrace/millrace/internal/testutil"
	"os"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/console"
	"github.com/millrace/millrace/sources/clicks"
)

// The seed pipeline: read click events, declare a watermark, count clicks
// per (1-minute window, campaign), and write each window once, when the
// watermark has passed its end.
func Example() {
	src := testutil.Must(clicks.New(clicks.Options{Events: 150_000, MaxEventsPerTrigger: 50_000, Campaigns: 2}))
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", 10*time.Second).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"))

	q, err := counts.WriteStream(testutil.Must(console.New(console.Options{Writer: os.Stdout, NumRows: 3, Truncate: -1}))).
		OutputMode(millrace.Append).
		Trigger(millrace.AvailableNow()).
		StatePartitions(1).
		Start(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := q.AwaitTermination(context.Background()); err != nil {
		fmt.Println(err)
		return
	}
	p := q.LastProgress()
	fmt.Println("watermark:", p.EventTime["watermark"])
	// Output:
	// -------------------------------------------
	// Batch: 0
	// -------------------------------------------
	// +------+-----------+------+
	// |window|campaign_id|clicks|
	// +------+-----------+------+
	// +------+-----------+------+
	//
	// -------------------------------------------
	// Batch: 1
	// -------------------------------------------
	// +------------------------------------------+-----------+------+
	// |window                                    |campaign_id|clicks|
	// +------------------------------------------+-----------+------+
	// |{2025-12-31 23:59:00, 2026-01-01 00:00:00}|0          |2193  |
	// |{2025-12-31 23:59:00, 2026-01-01 00:00:00}|1          |731   |
	// |{2025-12-31 23:58:00, 2025-12-31 23:59:00}|0          |128   |
	// +------------------------------------------+-----------+------+
	// only showing top 3 rows
	//
	// -------------------------------------------
	// Batch: 2
	// -------------------------------------------
	// +------------------------------------------+-----------+------+
	// |window                                    |campaign_id|clicks|
	// +------------------------------------------+-----------+------+
	// |{2026-01-01 00:00:00, 2026-01-01 00:01:00}|0          |44876 |
	// |{2026-01-01 00:00:00, 2026-01-01 00:01:00}|1          |15082 |
	// +------------------------------------------+-----------+------+
	//
	// -------------------------------------------
	// Batch: 3
	// -------------------------------------------
	// +------------------------------------------+-----------+------+
	// |window                                    |campaign_id|clicks|
	// +------------------------------------------+-----------+------+
	// |{2026-01-01 00:01:00, 2026-01-01 00:02:00}|1          |14938 |
	// |{2026-01-01 00:01:00, 2026-01-01 00:02:00}|0          |44676 |
	// +------------------------------------------+-----------+------+
	//
	// watermark: 2026-01-01T00:02:19.928Z
}
