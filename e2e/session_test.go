package e2e_test

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// sessionOracle replays the batches the engine runs for a session-window
// count/sum/max per campaign, row at a time: rows of open sessions are
// kept, a row whose own session [t, t+gap) has closed is late, and every
// batch emits the sessions whose end the watermark has passed.
func sessionOracle(chunks [][]click, gap, delay int64) ([][]any, int64) {
	type row struct {
		ts     int64
		amount *float64
		user   int64
	}
	buf := map[string][]row{}
	var out [][]any
	var dropped int64
	wm, maxSeen, seen := int64(0), int64(0), false
	closeSessions := func() {
		var keys []string
		for k := range buf {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			rows := buf[k]
			sort.SliceStable(rows, func(a, b int) bool { return rows[a].ts < rows[b].ts })
			var keep []row
			for lo := 0; lo < len(rows); {
				end := rows[lo].ts + gap
				hi := lo + 1
				for hi < len(rows) && rows[hi].ts <= end {
					end = max(end, rows[hi].ts+gap)
					hi++
				}
				if wm > 0 && end <= wm {
					var n, nAmt int64
					var sum, mx float64
					users := map[int64]bool{}
					for _, r := range rows[lo:hi] {
						n++
						users[r.user] = true
						if r.amount != nil {
							if nAmt == 0 || *r.amount > mx {
								mx = *r.amount
							}
							nAmt++
							sum += *r.amount
						}
					}
					var camp any = k
					if k == "NULL" {
						camp = nil
					}
					var s, m any
					if nAmt > 0 {
						s, m = sum, mx
					}
					out = append(out, []any{[]any{rows[lo].ts, end}, camp, n, s, m, int64(len(users))})
				} else {
					keep = append(keep, rows[lo:hi]...)
				}
				lo = hi
			}
			if len(keep) == 0 {
				delete(buf, k)
			} else {
				buf[k] = keep
			}
		}
	}
	for _, chunk := range chunks {
		for _, c := range chunk {
			if c.ts == nil {
				continue
			}
			if wm > 0 && *c.ts+gap <= wm {
				dropped++
				continue
			}
			k := "NULL"
			if c.campaign != nil {
				k = *c.campaign
			}
			buf[k] = append(buf[k], row{ts: *c.ts, amount: c.amount, user: c.user})
		}
		closeSessions()
		for _, c := range chunk {
			if c.ts != nil && (!seen || *c.ts > maxSeen) {
				maxSeen, seen = *c.ts, true
			}
		}
		if next := (maxSeen - delay) / 1000 * 1000; seen && next > wm {
			wm = next
			closeSessions()
		}
	}
	return out, dropped
}

// sparseClicks spreads events so that sessions form and close: bursts of
// activity separated by idle gaps, per campaign.
func sparseClicks(n int, seed int64) []click {
	cs := genClicks(n, seed, 0.03)
	for i := range cs {
		if cs[i].ts != nil {
			v := *cs[i].ts + int64(i/40)*20*second // a 20 s pause every 40 events
			cs[i].ts = &v
		}
	}
	return cs
}

func TestSessionWindowsMatchOracle(t *testing.T) {
	const gap, delay = 5 * second, 3 * second
	data := sparseClicks(4000, 17)
	for _, k := range []int{1, 10, 1000} {
		if testing.Short() && k == 1000 {
			continue
		}
		t.Run(fmt.Sprintf("%d-triggers", k), func(t *testing.T) {
			chunks := split(data, k)
			want, wantDropped := sessionOracle(chunks, gap, delay)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
			rec := testutil.NewRecorder()
			counter := &dropCounter{}
			s := millrace.ReadStream(src).WithWatermark("event_time", time.Duration(delay)*time.Microsecond).
				GroupBy(millrace.SessionWindow(millrace.Col("event_time"), time.Duration(gap)*time.Microsecond), millrace.Col("campaign")).
				Agg(millrace.Count().As("n"), millrace.Sum(millrace.Col("amount")).As("total"),
					millrace.Max(millrace.Col("amount")).As("max_amount"), millrace.CountDistinct(millrace.Col("user")).As("users"))
			ctx := context.Background()
			q, err := s.WriteStream(rec).Allocator(mem).StatePartitions(3).Listener(counter).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, ctx, q, src, chunks)
			if d := testutil.Diff(rec.All(), want); d != "" {
				t.Fatal(d)
			}
			if got := counter.dropped.Load(); got != wantDropped {
				t.Fatalf("dropped %d late rows, oracle %d", got, wantDropped)
			}
			if len(want) < 50 {
				t.Fatalf("only %d sessions: the test checks little", len(want))
			}
		})
	}
}

// TestSessionRecovery crashes a checkpointed session aggregation at each
// step and checks the output equals an uninterrupted run's.
func TestSessionRecovery(t *testing.T) {
	const gap, delay = 5 * second, 3 * second
	chunks := split(sparseClicks(2000, 19), 10)
	want, _ := sessionOracle(chunks, gap, delay)
	build := func(src *memsrc.Source) *millrace.Stream {
		return millrace.ReadStream(src).WithWatermark("event_time", time.Duration(delay)*time.Microsecond).
			GroupBy(millrace.SessionWindow(millrace.Col("event_time"), time.Duration(gap)*time.Microsecond), millrace.Col("campaign")).
			Agg(millrace.Count().As("n"), millrace.Sum(millrace.Col("amount")).As("total"),
				millrace.Max(millrace.Col("amount")).As("max_amount"), millrace.CountDistinct(millrace.Col("user")).As("users"))
	}
	for _, step := range []string{"data-read", "sink-committed", "state-committed"} {
		t.Run(step, func(t *testing.T) {
			if d := testutil.Diff(runWithCrash(t, chunks, build, millrace.Append, step, 4), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}
