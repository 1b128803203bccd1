package millrace_test

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// A stream-stream join with a time range, as Spark's programming guide
// writes it, and its errors: an ambiguous name, and an unknown one with
// the nearest candidate, each at its line and column.
func ExampleSession_SQL_join() {
	ctx := context.Background()
	ts := millrace.Timestamp
	imps, _ := memsrc.New(arrow.NewSchema([]arrow.Field{{Name: "adId", Type: arrow.PrimitiveTypes.Int64}, {Name: "impressionTime", Type: ts}}, nil), memsrc.Options{})
	clicks, _ := memsrc.New(arrow.NewSchema([]arrow.Field{{Name: "adId", Type: arrow.PrimitiveTypes.Int64}, {Name: "clickTime", Type: ts}}, nil), memsrc.Options{})
	se := millrace.NewSession()
	se.CreateTempView("impressions", millrace.ReadStream(imps).WithWatermark("impressionTime", 2*time.Hour))
	se.CreateTempView("clicks", millrace.ReadStream(clicks).WithWatermark("clickTime", 3*time.Hour))
	joined, err := se.SQL(ctx, `SELECT i.adId, impressionTime, clickTime
		FROM impressions i LEFT JOIN clicks c
		  ON c.adId = i.adId AND c.clickTime BETWEEN i.impressionTime AND i.impressionTime + INTERVAL 1 HOUR`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(joined.Explain())
	_, err = se.SQL(ctx, "SELECT adId FROM impressions i JOIN clicks c ON c.adId = i.adId")
	fmt.Println(err)
	_, err = se.SQL(ctx, "SELECT i.adId, c.clikTime\nFROM impressions i JOIN clicks c ON c.adId = i.adId")
	fmt.Println(err)
	// Output:
	// Project adId, impressionTime, clickTime
	//   +- Join left_outer on [adId] = [c.adId] and clickTime - impressionTime in [0us, 3600000000us]
	//     +- Watermark impressionTime, delay 2h0m0s
	//       +- Scan[0] MemorySource
	//     +- Project adId AS c.adId, clickTime
	//       +- Watermark clickTime, delay 3h0m0s
	//         +- Scan[0] MemorySource
	// sql: 1:8: column reference "adId" is ambiguous: it could be c.adId or i.adId; qualify it
	//  SELECT adId FROM impressions i JOIN clicks c ON c.adId = i.adId
	//         ^
	// sql: 1:16: column "clikTime" not found in c (did you mean "clickTime"?)
	//  SELECT i.adId, c.clikTime
	//                 ^
}
