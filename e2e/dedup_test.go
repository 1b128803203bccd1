package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// dedupOracle replays the batches the engine runs for a deduplication and
// returns the rows that must pass and how many are dropped as late.
// expiry(c) gives the event time after which c's key is forgotten, or
// false when keys never expire.
func dedupOracle(chunks [][]click, key func(c click) string, expiry func(c click) (int64, bool), delay int64) ([][]any, int64) {
	type entry struct{ exp int64 }
	seen := map[string]*entry{}
	var out [][]any
	var dropped int64
	wm, maxSeen, any := int64(0), int64(0), false
	evict := func() {
		for k, e := range seen {
			if e.exp <= wm {
				delete(seen, k)
			}
		}
	}
	for _, chunk := range chunks {
		for _, c := range chunk {
			_, expires := expiry(c)
			if expires && wm > 0 && c.ts != nil && *c.ts <= wm {
				dropped++
				continue
			}
			k := key(c)
			if seen[k] != nil {
				continue
			}
			exp, ok := expiry(c)
			if !ok {
				exp = 1 << 62
			}
			seen[k] = &entry{exp: exp}
			out = append(out, clickRows([]click{c})[0])
		}
		if _, expires := expiry(click{}); expires {
			evict()
		}
		for _, c := range chunk {
			if c.ts != nil && (!any || *c.ts > maxSeen) {
				maxSeen, any = *c.ts, true
			}
		}
		if next := (maxSeen - delay) / 1000 * 1000; any && next > wm {
			wm = next
			if _, expires := expiry(click{}); expires {
				evict()
			}
		}
	}
	return out, dropped
}

func TestDropDuplicatesMatchesOracle(t *testing.T) {
	const delay = 5 * second
	data := genClicks(4000, 11, 0.05)
	str := func(p *string) string {
		if p == nil {
			return "NULL"
		}
		return *p
	}
	tsKey := func(c click) string {
		if c.ts == nil {
			return "NULL"
		}
		return fmt.Sprint(*c.ts / second) // whole seconds: many duplicates
	}
	cases := []struct {
		name   string
		build  func(s *millrace.Stream) *millrace.Stream
		key    func(c click) string
		expiry func(c click) (int64, bool)
	}{
		{"no watermark", func(s *millrace.Stream) *millrace.Stream { return s.DropDuplicates("campaign", "user") },
			func(c click) string { return str(c.campaign) + fmt.Sprint(c.user) },
			func(click) (int64, bool) { return 0, false }},
		{"event time in key", func(s *millrace.Stream) *millrace.Stream {
			return s.WithColumn("event_time", millrace.Col("event_time").Cast(millrace.Int64).Div(1_000_000).Cast(millrace.Int64).Times(1_000_000).Cast(millrace.Timestamp)).
				WithWatermark("event_time", time.Duration(delay)*time.Microsecond).DropDuplicates("event_time", "user")
		},
			func(c click) string { return tsKey(c) + "|" + fmt.Sprint(c.user) },
			func(c click) (int64, bool) {
				if c.ts == nil {
					return 1 << 62, true // a null key time never compares with the watermark
				}
				return *c.ts / second * second, true
			}},
		{"within watermark", func(s *millrace.Stream) *millrace.Stream {
			return s.WithWatermark("event_time", time.Duration(delay)*time.Microsecond).DropDuplicatesWithinWatermark("user")
		},
			func(c click) string { return fmt.Sprint(c.user) },
			func(c click) (int64, bool) {
				if c.ts == nil {
					return delay, true // Spark reads a null time as 0
				}
				return *c.ts + delay, true
			}},
	}
	for _, c := range cases {
		for _, k := range []int{1, 10, 100} {
			t.Run(fmt.Sprintf("%s/%d-triggers", c.name, k), func(t *testing.T) {
				chunks := split(data, k)
				oracleChunks := chunks
				if c.name == "event time in key" {
					// the query truncates event times to whole seconds
					oracleChunks = make([][]click, len(chunks))
					for i, ch := range chunks {
						for _, x := range ch {
							if x.ts != nil {
								v := *x.ts / second * second
								x.ts = &v
							}
							oracleChunks[i] = append(oracleChunks[i], x)
						}
					}
				}
				want, wantDropped := dedupOracle(oracleChunks, c.key, c.expiry, delay)
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
				rec := testutil.NewRecorder()
				counter := &dropCounter{}
				ctx := context.Background()
				q, err := c.build(millrace.ReadStream(src)).WriteStream(rec).Allocator(mem).StatePartitions(3).Listener(counter).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range chunks {
					if _, err := src.AddRows(clickRows(ch)...); err != nil {
						t.Fatal(err)
					}
					if err := q.ProcessAllAvailable(ctx); err != nil {
						t.Fatal(err)
					}
				}
				if err := q.Stop(); err != nil {
					t.Fatal(err)
				}
				if d := testutil.Diff(rec.All(), want); d != "" {
					t.Fatal(d)
				}
				if got := counter.dropped.Load(); got != wantDropped {
					t.Fatalf("dropped %d late rows, oracle %d", got, wantDropped)
				}
				if _, expires := c.expiry(click{}); expires && k > 1 && wantDropped == 0 {
					t.Fatal("test data has no late rows")
				}
				if len(want) >= len(data)-int(wantDropped) {
					t.Fatal("test data has no duplicates")
				}
			})
		}
	}
}
