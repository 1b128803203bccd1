package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

var impSchema = arrow.NewSchema([]arrow.Field{
	{Name: "ad", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "imp_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "cost", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

type imp struct {
	ad   *string
	ts   *int64
	cost int64
}

func genImps(n int, seed int64, lateShare ...float64) []imp {
	late := 0.03
	if len(lateShare) > 0 {
		late = lateShare[0]
	}
	r := rand.New(rand.NewSource(seed))
	out := make([]imp, n)
	for i := range out {
		x := imp{cost: int64(r.Intn(100))}
		if r.Float64() > 0.02 {
			ts := base + int64(i)*100_000 - r.Int63n(4*second)
			if r.Float64() < late {
				ts -= r.Int63n(60 * second) // late
			}
			x.ts = &ts
		}
		if r.Float64() > 0.02 {
			s := fmt.Sprintf("c%d", r.Intn(7))
			x.ad = &s
		}
		out[i] = x
	}
	return out
}

func impRows(xs []imp) [][]any {
	rows := make([][]any, len(xs))
	for i, x := range xs {
		row := []any{nil, nil, x.cost}
		if x.ad != nil {
			row[0] = *x.ad
		}
		if x.ts != nil {
			row[1] = *x.ts
		}
		rows[i] = row
	}
	return rows
}

// joinOracle replays the engine's batches of a stream-stream join of
// clicks (left: campaign, event_time) and impressions (right: ad,
// imp_time) on campaign = ad and imp_time − event_time in [lower, upper],
// row at a time: late rows dropped, new left rows matched with older right
// rows, new right rows with every left row, rows evicted when the watermark
// passes their last possible match (outer joins emit unmatched ones then).
func joinOracle(lc [][]click, rc [][]imp, how millrace.JoinType, lower, upper, delay int64) ([][]any, int64) {
	type lrow struct {
		c       click
		matched bool
	}
	type rrow struct {
		x       imp
		matched bool
	}
	var left []*lrow
	var right []*rrow
	var out [][]any
	var dropped int64
	wm := int64(0)
	var maxL, maxR int64
	seenL, seenR := false, false
	lRow := func(c click) []any { return clickRows([]click{c})[0] }
	rRow := func(x imp) []any { return impRows([]imp{x})[0] }
	nulls := func(n int) []any { return make([]any, n) }
	match := func(c click, x imp) bool {
		return c.campaign != nil && x.ad != nil && *c.campaign == *x.ad && c.ts != nil && x.ts != nil &&
			*x.ts-*c.ts >= lower && *x.ts-*c.ts <= upper
	}
	evict := func() {
		if wm <= 0 {
			return
		}
		var keepL []*lrow
		for _, l := range left {
			// a row without a time goes at the first eviction; a null key
			// leaves with the rows of its time
			if l.c.ts == nil || *l.c.ts <= sparkStateWM(wm-upper) {
				if !l.matched && (how == millrace.LeftOuter || how == millrace.FullOuter) {
					out = append(out, append(lRow(l.c), nulls(3)...))
				}
				continue
			}
			keepL = append(keepL, l)
		}
		left = keepL
		var keepR []*rrow
		for _, r := range right {
			if r.x.ts == nil || *r.x.ts <= sparkStateWM(wm+lower) {
				if !r.matched && (how == millrace.RightOuter || how == millrace.FullOuter) {
					out = append(out, append(nulls(4), rRow(r.x)...))
				}
				continue
			}
			keepR = append(keepR, r)
		}
		right = keepR
	}
	// Spark filters null keys of a side whose unmatched rows are not
	// emitted before anything else sees them (the watermark included).
	keepNullL := how == millrace.LeftOuter || how == millrace.FullOuter
	keepNullR := how == millrace.RightOuter || how == millrace.FullOuter
	lc, rc = slices.Clone(lc), slices.Clone(rc) // the caller feeds the engine the originals
	for b := range lc {
		lc[b] = slices.DeleteFunc(slices.Clone(lc[b]), func(c click) bool { return c.campaign == nil && !keepNullL })
		rc[b] = slices.DeleteFunc(slices.Clone(rc[b]), func(x imp) bool { return x.ad == nil && !keepNullR })
	}
	for b := range lc {
		var newL []*lrow
		for _, c := range lc[b] {
			if wm > 0 && c.ts != nil && *c.ts <= wm {
				dropped++
				continue
			}
			l := &lrow{c: c}
			for _, r := range right {
				if match(c, r.x) {
					if how != millrace.LeftSemi {
						out = append(out, append(lRow(c), rRow(r.x)...))
					} else if !l.matched {
						out = append(out, lRow(c))
					}
					l.matched, r.matched = true, true
				}
			}
			newL = append(newL, l)
		}
		left = append(left, newL...)
		for _, x := range rc[b] {
			if wm > 0 && x.ts != nil && *x.ts <= wm {
				dropped++
				continue
			}
			r := &rrow{x: x}
			for _, l := range left {
				if match(l.c, x) {
					if how != millrace.LeftSemi {
						out = append(out, append(lRow(l.c), rRow(x)...))
					} else if !l.matched {
						out = append(out, lRow(l.c))
					}
					l.matched, r.matched = true, true
				}
			}
			right = append(right, r)
		}
		evict()
		for _, c := range lc[b] {
			if c.ts != nil && (!seenL || *c.ts > maxL) {
				maxL, seenL = *c.ts, true
			}
		}
		for _, x := range rc[b] {
			if x.ts != nil && (!seenR || *x.ts > maxR) {
				maxR, seenR = *x.ts, true
			}
		}
		next := int64(0) // an input without data yet counts as 0, as in Spark
		if seenL && seenR {
			next = min(maxL, maxR) - delay
		}
		next = next / 1000 * 1000
		if next > wm {
			wm = next
			evict() // the no-data batch
		}
	}
	return out, dropped
}

// sparkStateWM is Spark's state watermark for an inclusive range bound:
// rows at or below it can match no future row of the other side; it is
// the bound truncated to milliseconds, less 1 ms.
func sparkStateWM(us int64) int64 { return (us/1000 - 1) * 1000 }

func TestStreamStreamJoinMatchesOracle(t *testing.T) {
	const delay = 5 * second
	lower, upper := -5*second, 10*second
	clicks := genClicks(1500, 31, 0.03)
	imps := genImps(1500, 37)
	for _, how := range []millrace.JoinType{millrace.Inner, millrace.LeftOuter, millrace.RightOuter, millrace.FullOuter, millrace.LeftSemi} {
		for _, k := range []int{1, 10, 1000} {
			if testing.Short() && k == 1000 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d-triggers", how, k), func(t *testing.T) {
				lc, rc := split(clicks, k), splitImps(imps, k)
				want, wantDropped := joinOracle(lc, rc, how, lower, upper, delay)
				d := time.Duration(delay) * time.Microsecond
				got, dropped, _ := runTwoStreams(t, lc, rc, func(ls, rs *memsrc.Source) *millrace.Stream {
					left := millrace.ReadStream(ls).WithWatermark("event_time", d)
					right := millrace.ReadStream(rs).WithWatermark("imp_time", d)
					cond := millrace.Col("campaign").Eq(millrace.Col("ad")).
						And(millrace.Col("imp_time").Between(millrace.Col("event_time").Minus(5*time.Second), millrace.Col("event_time").Plus(10*time.Second)))
					return left.Join(right, cond, how)
				}, millrace.Append)
				if d := testutil.Diff(got, want); d != "" {
					t.Fatal(d)
				}
				if dropped != wantDropped {
					t.Fatalf("dropped %d late rows, oracle %d", dropped, wantDropped)
				}
				if len(want) < 100 {
					t.Fatalf("only %d output rows", len(want))
				}
			})
		}
	}
}

func splitImps(xs []imp, k int) [][]imp {
	var out [][]imp
	for i := 0; i < k; i++ {
		lo, hi := len(xs)*i/k, len(xs)*(i+1)/k
		out = append(out, xs[lo:hi])
	}
	return out
}

// TestStreamJoinRecovery crashes a checkpointed left outer stream-stream
// join at every step of a batch, restarts it on the same checkpoint and
// sink, and checks the output equals an uninterrupted run's (the oracle):
// the buffered rows of both sides and their matched flags survive.
func TestStreamJoinRecovery(t *testing.T) {
	const delay = 5 * second
	lc, rc := split(genClicks(800, 41, 0.03), 8), splitImps(genImps(800, 43), 8)
	want, _ := joinOracle(lc, rc, millrace.LeftOuter, -5*second, 10*second, delay)
	for _, step := range []string{"offsets-written", "data-read", "sink-committed", "state-committed", "commit-written"} {
		t.Run(step, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			dir := t.TempDir()
			rec := testutil.NewRecorder()
			ctx := context.Background()
			fault := &crash{step: step, batch: 3}
			start := func(added int) (*millrace.Query, *memsrc.Source, *memsrc.Source) {
				ls := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
				rs := testutil.Must(memsrc.New(impSchema, memsrc.Options{Allocator: mem}))
				for i := 0; i < added; i++ {
					if _, err := ls.AddRows(clickRows(lc[i])...); err != nil {
						t.Fatal(err)
					}
					if _, err := rs.AddRows(impRows(rc[i])...); err != nil {
						t.Fatal(err)
					}
				}
				d := time.Duration(delay) * time.Microsecond
				cond := millrace.Col("campaign").Eq(millrace.Col("ad")).
					And(millrace.Col("imp_time").Between(millrace.Col("event_time").Minus(5*time.Second), millrace.Col("event_time").Plus(10*time.Second)))
				q, err := millrace.ReadStream(ls).WithWatermark("event_time", d).
					Join(millrace.ReadStream(rs).WithWatermark("imp_time", d), cond, millrace.LeftOuter).
					WriteStream(rec).Allocator(mem).StatePartitions(3).Checkpoint(dir).MinDeltasForSnapshot(2).
					Trigger(millrace.ProcessingTime(time.Hour)).
					FaultInjection(fault.hook).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return q, ls, rs
			}
			q, ls, rs := start(1)
			for i := range lc {
				if i > 0 {
					if _, err := ls.AddRows(clickRows(lc[i])...); err != nil {
						t.Fatal(err)
					}
					if _, err := rs.AddRows(impRows(rc[i])...); err != nil {
						t.Fatal(err)
					}
				}
				err := q.ProcessAllAvailable(ctx)
				if err == nil {
					continue
				}
				if !errors.Is(err, errCrash) {
					t.Fatal(err)
				}
				_ = q.Stop()
				q, ls, rs = start(i + 1)
				if err := q.ProcessAllAvailable(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.Stop(); err != nil {
				t.Fatal(err)
			}
			if !fault.crashed {
				t.Fatal("never crashed")
			}
			if d := testutil.Diff(rec.All(), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// runTwoStreams runs a query over a click source and an impression source,
// feeding chunk i of each before batch i (a long trigger interval keeps
// batches to the calls of ProcessAllAvailable), and returns the committed
// rows, the late rows dropped and the last progress event.
func runTwoStreams(t *testing.T, lc [][]click, rc [][]imp, build func(l, r *memsrc.Source) *millrace.Stream, mode millrace.OutputMode) ([][]any, int64, *millrace.Progress) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ls := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	rs := testutil.Must(memsrc.New(impSchema, memsrc.Options{Allocator: mem}))
	add := func(i int) {
		if _, err := ls.AddRows(clickRows(lc[i])...); err != nil {
			t.Fatal(err)
		}
		if _, err := rs.AddRows(impRows(rc[i])...); err != nil {
			t.Fatal(err)
		}
	}
	// the first trigger runs at start: the first chunks are there already
	add(0)
	rec := testutil.NewRecorder()
	counter := &dropCounter{}
	ctx := context.Background()
	q, err := build(ls, rs).WriteStream(rec).OutputMode(mode).Allocator(mem).StatePartitions(3).Listener(counter).
		Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range lc {
		if i > 0 {
			add(i)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	return rec.All(), counter.dropped.Load(), q.LastProgress()
}
