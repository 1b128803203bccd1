package nexmark

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestQ3TriggerSizes runs the q3 join at small scale over trigger sizes
// from a few events (most matches cross triggers: the auction and its
// seller arrive in different micro-batches) to all events at once, with
// and without out-of-order groups, against the naive oracle.
func TestQ3TriggerSizes(t *testing.T) {
	q, ok := Lookup("q3")
	if !ok {
		t.Fatal("q3 not registered")
	}
	const events = 60_000
	for _, perTrigger := range []int64{97, 1_000, 7_919, 60_000} {
		for _, ooo := range []int64{1, 50} {
			for _, par := range []int{1, 3} {
				cfg := Config{Events: events, Seed: 5, MaxEventsPerTrigger: perTrigger, OutOfOrderGroup: ooo, NumPartitions: par}
				t.Run(fmt.Sprintf("trigger%d/ooo%d/par%d", perTrigger, ooo, par), func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					got, err := Run(context.Background(), q, cfg, RunOptions{Allocator: mem, Parallelism: par})
					if err != nil {
						t.Fatal(err)
					}
					want := OracleQ3(NewGenerator(cfg), cfg.Events)
					if got != want {
						t.Fatalf("engine %s, oracle %s", got, want)
					}
					if got.Rows < 100 {
						t.Fatalf("only %d output rows", got.Rows)
					}
				})
			}
		}
	}
}

// TestOracleQ3Selective checks that the oracle's filters and join do
// something: fewer rows than category-10 auctions, more than none.
func TestOracleQ3Selective(t *testing.T) {
	const events = 100_000
	g := NewGenerator(Config{Seed: 1})
	res := OracleQ3(g, events)
	var cat10 int64
	for pos := range int64(events) {
		if e := g.EventNumber(pos); KindOf(e) == Auctions && g.AuctionAt(e).Category == Q3Category {
			cat10++
		}
	}
	if res.Rows == 0 || res.Rows >= cat10 {
		t.Fatalf("q3 rows %d, category-%d auctions %d", res.Rows, Q3Category, cat10)
	}
	t.Logf("q3 over %d events: %d rows of %d category-%d auctions", events, res.Rows, cat10, Q3Category)
}
