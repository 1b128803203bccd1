package millrace_test

import (
	"context"
	"fmt"

	"github.com/millrace/millrace"
	_ "github.com/millrace/millrace/catalog/builtin"
)

// Tables declared in SQL, the watermark in Spark's clause, and the plan of
// a windowed count; INSERT INTO counts SELECT … would start it.
func ExampleSession_Exec() {
	ctx := context.Background()
	se := millrace.NewSession()
	err := se.ExecScript(ctx, `
		CREATE TABLE clicks USING rate OPTIONS (rowsPerSecond 100, numPartitions 1);
		SET spark.sql.shuffle.partitions = 4`, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := se.Exec(ctx, `EXPLAIN SELECT window(timestamp, '10 seconds') AS window, count(*) AS n
		FROM clicks WATERMARK timestamp DELAY OF INTERVAL 5 SECONDS
		GROUP BY window(timestamp, '10 seconds')`)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(r.Text)
	_, err = se.Exec(ctx, "CREATE TABLE t USING kafka OPTIONS (subscribe 'clicks')")
	fmt.Println(err)
	// Output:
	// == Physical Plan ==
	// output mode: Append
	// source 0: RateSource[rowsPerSecond=100, rampUpTimeSeconds=0, numPartitions=1]
	//   stateless: watermark
	//   → stateful operator 0
	// watermark: timestamp, delay 5s
	// stateful operator 0: stateStoreSave (aggregate), 4 state partitions
	//   keys: window(timestamp, 10s): struct<start: timestamp[us, tz=UTC], end: timestamp[us, tz=UTC]>
	//   aggregates: count(*): int64
	// sql: 1:22: table t: kafka tables need option kafka.bootstrap.servers (the brokers, host:port[,host:port…]): OPTIONS (kafka.bootstrap.servers '…')
	//  CREATE TABLE t USING kafka OPTIONS (subscribe 'clicks')
	//                       ^
}
