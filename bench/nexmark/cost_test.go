package nexmark

import (
	"context"
	"math"
	"sync"
	"testing"

	"github.com/millrace/millrace"
)

// costSum adds up the CPU seconds the progress events' cost reports give.
type costSum struct {
	mu      sync.Mutex
	cpu     float64
	last    *millrace.Progress
	batches int
}

func (c *costSum) OnQueryStarted(string, string, string)   {}
func (c *costSum) OnQueryTerminated(string, string, error) {}
func (c *costSum) OnQueryProgress(p *millrace.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p.Cost != nil {
		c.cpu += p.Cost.CPUSeconds
	}
	c.last = p
	c.batches++
}

// The cost report's CPU seconds, batch after batch, agree with the
// process's CPU time measured around the whole run within 10 % (issue 17,
// item 4): the batches are where the process spends its time, and the
// report leaves none of it out.
func TestCostReportAgreesWithProcessCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 500K events per query")
	}
	for _, name := range []string{"q0", "q5"} {
		t.Run(name, func(t *testing.T) {
			q, ok := Lookup(name)
			if !ok {
				t.Fatalf("no query %s", name)
			}
			cfg := Config{Events: 500_000, Seed: 1, MaxEventsPerTrigger: 100_000}
			sum := &costSum{}
			cpu0 := cpuSeconds()
			if _, err := Run(context.Background(), q, cfg, RunOptions{Listeners: []millrace.Listener{sum}}); err != nil {
				t.Fatal(err)
			}
			measured := cpuSeconds() - cpu0
			sum.mu.Lock()
			defer sum.mu.Unlock()
			t.Logf("%s: %d batches, cost report %.3f CPU s, process %.3f CPU s (%.1f %%)", name, sum.batches, sum.cpu, measured, 100*(sum.cpu-measured)/measured)
			if math.Abs(sum.cpu-measured) > 0.10*measured {
				t.Fatalf("cost report %.3f CPU s, the process measured %.3f: more than 10 %% apart", sum.cpu, measured)
			}
			c := sum.last.Cost
			if c.TotalCPUSeconds <= 0 || c.RecentCPUSecondsPerMillionRows <= 0 || c.CoresNeeded <= 0 || math.Abs(c.TotalCPUSeconds-sum.cpu) > 1e-6 {
				t.Fatalf("last cost report %+v (events add up to %.3f)", c, sum.cpu)
			}
		})
	}
}
