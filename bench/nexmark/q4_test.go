package nexmark

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
)

// TestMaxAuctionLength checks the join's time-range bound: no auction
// lasts longer than Generator.MaxAuctionLength, and the bound is not
// loose (some auction lasts more than 90 % of it).
func TestMaxAuctionLength(t *testing.T) {
	for _, rate := range []int64{100, 1000, 7_919, ChainedRate, 10_000_000} {
		g := NewGenerator(Config{Seed: 5, Rate: rate})
		bound := g.MaxAuctionLength().Microseconds()
		var longest int64
		for pos := range int64(300_000) {
			if e := g.EventNumber(pos); KindOf(e) == Auctions {
				a := g.AuctionAt(e)
				longest = max(longest, a.Expires-a.DateTime)
			}
		}
		if longest > bound || longest*10 < bound*9 {
			t.Fatalf("rate %d: longest auction %d µs, bound %d µs", rate, longest, bound)
		}
	}
}

// TestQ4TriggerSizes runs q4 at small scale (100 s of event time at 1,000
// events/s: auctions last up to 3.3 s, so nearly all close) over trigger
// sizes from a few events (an auction's bids and its closing arrive over
// many triggers; the Complete table is rewritten each time) to all events
// at once, with and without out-of-order groups, over one and three
// partitions, against the naive oracle. The result compared is the last
// Complete table (Run keeps only the last batch).
func TestQ4TriggerSizes(t *testing.T) {
	const events = 100_000
	q, ok := Lookup("q4")
	if !ok {
		t.Fatal("q4 not registered")
	}
	for _, perTrigger := range []int64{997, 7_919, 33_000, events} {
		for _, ooo := range []int64{1, 50} {
			for _, par := range []int{1, 3} {
				cfg := Config{Events: events, Seed: 13, Rate: 1000, MaxEventsPerTrigger: perTrigger, OutOfOrderGroup: ooo, NumPartitions: par}
				t.Run(fmt.Sprintf("trigger%d/ooo%d/par%d", perTrigger, ooo, par), func(t *testing.T) {
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
					if got.Rows != NumCategories {
						t.Fatalf("%d categories, want %d", got.Rows, NumCategories)
					}
				})
			}
		}
	}
}

// TestQ4OracleUsesExactBound guards the oracle's independence from the
// query's join bound: with a join range shorter than the longest auction
// the engine misses bids placed late in long auctions, and its result no
// longer matches the oracle's.
func TestQ4OracleUsesExactBound(t *testing.T) {
	cfg := Config{Events: 100_000, Seed: 13, Rate: 1000, MaxEventsPerTrigger: 7_919}
	g := NewGenerator(cfg)
	short := Query{Name: "q4-short", Mode: millrace.Complete, Build: func(g *Generator) *millrace.Stream {
		return Q4(g.Source(Auctions), g.Source(Bids), g.MaxAuctionLength()/4)
	}}
	got, err := Run(context.Background(), short, cfg, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := OracleQ4(g, cfg.Events); got == want || got.Rows != want.Rows {
		t.Fatalf("short join range: engine %s, oracle %s: the oracle should differ in values only", got, want)
	}
}
