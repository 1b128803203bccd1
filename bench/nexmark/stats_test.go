package nexmark

import (
	"context"
	"testing"
	"time"
)

// TestStatsAcrossMidnight runs the per-day statistics q15–q17 over 100 s
// of event time around midnight (the other configs stay within one day),
// from the Go API and from SQL, against the oracle: each group is a day,
// so q15 writes one row per day.
func TestStatsAcrossMidnight(t *testing.T) {
	cfg := Config{Events: 100_000, Seed: 4, Rate: 1000, NumPartitions: 2, MaxEventsPerTrigger: 30_000,
		BaseTime: DefaultBaseTime.Add(-50 * time.Second)}
	for _, name := range []string{"q15", "q16", "q17"} {
		t.Run(name, func(t *testing.T) {
			q, ok := Lookup(name)
			if !ok {
				t.Fatalf("no query %s", name)
			}
			want := q.Oracle(NewGenerator(q.Configure(cfg)), cfg.Events)
			for _, sql := range []bool{false, true} {
				got, err := Run(context.Background(), q, cfg, RunOptions{Parallelism: 2, SQL: sql})
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("engine (SQL %v) %s, oracle %s", sql, got, want)
				}
			}
			if name == "q15" && want.Rows != 2 {
				t.Fatalf("q15 wrote %d rows, want one per day (2)", want.Rows)
			}
		})
	}
}
