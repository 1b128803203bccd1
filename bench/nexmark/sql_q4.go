package nexmark

import "fmt"

// q4SQL is q4's SQL text over g's events. As the API version, it bounds the
// join's time range by the generator's longest auction
// (Generator.MaxAuctionLength), which depends on the rate, so the text is
// made per generator; the exact bound dateTime <= expires is a filter after
// the join, and expires a key of the closing-price aggregation (an
// event-time key: each auction's closing price is written once).
func q4SQL(g *Generator) string {
	return fmt.Sprintf(`SELECT Q.category, avg(Q.final) AS avg_price
FROM (
  SELECT A.id, A.category, A.expires, max(B.price) AS final
  FROM (SELECT * FROM (SELECT id, category, dateTime AS a_time, expires FROM auction)
          WATERMARK a_time DELAY OF INTERVAL 4 SECONDS)
         WATERMARK expires DELAY OF INTERVAL 4 SECONDS AS A
  JOIN bid WATERMARK dateTime DELAY OF INTERVAL 4 SECONDS AS B
    ON A.id = B.auction
   AND B.dateTime BETWEEN A.a_time AND A.a_time + INTERVAL %d MICROSECONDS
  WHERE B.dateTime <= A.expires
  GROUP BY A.id, A.category, A.expires) AS Q
GROUP BY Q.category`, g.MaxAuctionLength().Microseconds())
}
