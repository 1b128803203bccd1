package nexmark

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestChainedTriggerSizes runs q5, q7 and q8 at small scale (100 s of
// event time at 1,000 events/s, so about nine 10 s windows close) over
// trigger sizes from a few events (windows fill and close across many
// triggers; a window's maximum arrives long after its rows) to all events
// at once, with and without out-of-order groups and over one and three
// partitions, against the naive oracles.
func TestChainedTriggerSizes(t *testing.T) {
	const events = 100_000
	for _, name := range []string{"q7", "q8", "q5"} {
		q, ok := Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		for _, perTrigger := range []int64{997, 7_919, 33_000, events} {
			for _, ooo := range []int64{1, 50} {
				for _, par := range []int{1, 3} {
					cfg := Config{Events: events, Seed: 11, Rate: 1000, MaxEventsPerTrigger: perTrigger, OutOfOrderGroup: ooo, NumPartitions: par}
					t.Run(fmt.Sprintf("%s/trigger%d/ooo%d/par%d", name, perTrigger, ooo, par), func(t *testing.T) {
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						defer mem.AssertSize(t, 0)
						got, err := Run(context.Background(), q, cfg, RunOptions{Allocator: mem, Parallelism: par})
						if err != nil {
							t.Fatal(err)
						}
						want := q.Oracle(NewGenerator(q.Configure(cfg)), cfg.Events)
						if got != want {
							t.Fatalf("engine %s, oracle %s", got, want)
						}
						if got.Rows < 9 {
							t.Fatalf("only %d output rows", got.Rows)
						}
					})
				}
			}
		}
	}
}
