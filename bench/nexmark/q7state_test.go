package nexmark

import (
	"context"
	"testing"

	"github.com/millrace/millrace"
)

// TestQ7StateStaysSmall: q7's join keeps only the bids at their window's
// running maximum price (exec's dominance pruning), not every bid until
// its window closes, from the Go API and from SQL; the progress events
// report the state's rows and bytes and the trigger's batch buffers.
func TestQ7StateStaysSmall(t *testing.T) {
	q, _ := Lookup("q7")
	// 100 s of event time at 1,000 events/s: ~9,200 bids per 10 s window
	cfg := Config{Events: 100_000, Seed: 3, Rate: 1000, MaxEventsPerTrigger: 5_000, NumPartitions: 2}
	for _, sql := range []bool{false, true} {
		log := &progressLog{}
		got, err := Run(context.Background(), q, cfg, RunOptions{Listeners: []millrace.Listener{log}, SQL: sql, Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		if want := q.Oracle(NewGenerator(q.Configure(cfg)), cfg.Events); got != want {
			t.Fatalf("sql %v: engine %s, oracle %s", sql, got, want)
		}
		var maxRows, maxBytes, pruned, batchBytes int64
		for _, p := range log.ps {
			batchBytes = max(batchBytes, p.BatchBufferBytes)
			for _, op := range p.StateOperators {
				if op.OperatorName != "symmetricHashJoin" {
					continue
				}
				maxRows = max(maxRows, op.NumRowsTotal)
				maxBytes = max(maxBytes, op.MemoryUsedBytes)
				pruned += op.CustomMetrics["numRowsPrunedByDominance"]
			}
		}
		t.Logf("sql %v: join state at most %d rows, %d bytes; %d bids pruned; batch buffers at most %d bytes", sql, maxRows, maxBytes, pruned, batchBytes)
		// without pruning the join holds every bid of the open windows:
		// thousands of rows
		if maxRows > 200 {
			t.Fatalf("sql %v: the join held %d rows", sql, maxRows)
		}
		if pruned < 80_000 || maxBytes == 0 || batchBytes == 0 {
			t.Fatalf("sql %v: %d bids pruned, state %d bytes, batch buffers %d bytes", sql, pruned, maxBytes, batchBytes)
		}
	}
}
