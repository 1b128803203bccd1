package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestChainedAggregations: an aggregation of an aggregation's output — per
// 1-minute window, the busiest campaign's click count — in Append mode.
// The inner aggregation emits a window once the watermark closes it; the
// outer one groups by that window column and emits in the same batch.
// Checked against a naive evaluation over all input (no late rows, so the
// result is the windows closed by the final watermark).
func TestChainedAggregations(t *testing.T) {
	const delay = 10 * second
	data := genClicks(6000, 51, 0)
	perWindow, wm := campaignCounts(data, delay)
	var want [][]any
	for w, counts := range perWindow {
		if w+60*second > wm {
			continue
		}
		var best int64
		for _, n := range counts {
			best = max(best, n)
		}
		want = append(want, []any{[]any{w, w + 60*second}, best, int64(len(counts))})
	}
	for _, k := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("%d-triggers", k), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
			counts := millrace.ReadStream(src).Filter(millrace.Col("campaign").IsNotNull()).
				WithWatermark("event_time", time.Duration(delay)*time.Microsecond).
				GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign")).
				Agg(millrace.Count().As("n"))
			busiest := counts.GroupBy(millrace.Col("window")).
				Agg(millrace.Max(millrace.Col("n")).As("max_clicks"), millrace.Count().As("campaigns"))
			rec := testutil.NewRecorder()
			ctx := context.Background()
			q, err := busiest.WriteStream(rec).Allocator(mem).StatePartitions(3).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, ctx, q, src, split(data, k))
			if d := testutil.Diff(rec.All(), want); d != "" {
				t.Fatal(d)
			}
			if len(want) < 5 {
				t.Fatal("too few windows")
			}
			if n := len(q.LastProgress().StateOperators); n != 2 {
				t.Fatalf("progress reports %d state operators, want 2", n)
			}
		})
	}
}

// TestWindowOnWindowJoin joins two windowed aggregations on their window and
// key (Nexmark q8's shape): clicks per (minute, campaign) with impression
// cost per (minute, ad), matched when both windows have closed. Checked
// against a naive evaluation (no late rows).
func TestWindowOnWindowJoin(t *testing.T) {
	const delay = 10 * second
	clicks := genClicks(3000, 61, 0)
	imps := genImps(3000, 67, 0)
	var maxC, maxI int64
	clickN := map[string]int64{}
	for _, c := range clicks {
		if c.ts == nil || c.campaign == nil {
			continue
		}
		maxC = max(maxC, *c.ts)
		clickN[fmt.Sprint(*c.ts-mod(*c.ts, 60*second), "|", *c.campaign)]++
	}
	costs := map[string]int64{}
	for _, x := range imps {
		if x.ts == nil || x.ad == nil {
			continue
		}
		maxI = max(maxI, *x.ts)
		costs[fmt.Sprint(*x.ts-mod(*x.ts, 60*second), "|", *x.ad)] += x.cost
	}
	wm := (min(maxC, maxI) - delay) / 1000 * 1000
	var want [][]any
	for k, n := range clickN {
		c, ok := costs[k]
		var w int64
		var camp string
		fmt.Sscanf(strings.Replace(k, "|", " ", 1), "%d %s", &w, &camp)
		if !ok || w+60*second > wm {
			continue
		}
		win := []any{w, w + 60*second}
		want = append(want, []any{win, camp, n, win, camp, c})
	}
	for _, k := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("%d-triggers", k), func(t *testing.T) {
			d := time.Duration(delay) * time.Microsecond
			got, _, last := runTwoStreams(t, split(clicks, k), splitImps(imps, k), func(cs, is *memsrc.Source) *millrace.Stream {
				perCampaign := millrace.ReadStream(cs).WithWatermark("event_time", d).
					GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign")).
					Agg(millrace.Count().As("clicks"))
				perAd := millrace.ReadStream(is).WithWatermark("imp_time", d).
					GroupBy(millrace.Window(millrace.Col("imp_time"), time.Minute).As("imp_window"), millrace.Col("ad")).
					Agg(millrace.Sum(millrace.Col("cost")).As("cost"))
				return perCampaign.Join(perAd,
					millrace.Col("window").Eq(millrace.Col("imp_window")).And(millrace.Col("campaign").Eq(millrace.Col("ad"))), millrace.Inner)
			}, millrace.Append)
			if d := testutil.Diff(got, want); d != "" {
				t.Fatal(d)
			}
			if len(want) < 20 {
				t.Fatalf("only %d joined windows", len(want))
			}
			ops := last.StateOperators
			if len(ops) != 3 || ops[2].NumRowsTotal > 100 {
				t.Fatalf("state operators %+v: want 3, the join's state bounded", ops)
			}
		})
	}
}

// TestAggregateOfJoin aggregates a stream-stream join's output (Nexmark
// q4's shape): clicks joined with the impressions of the same campaign
// within [-5 s, +10 s], counted per (minute of the click, campaign). The
// watermark delay (30 s) exceeds the range and the disorder, so no joined
// row is late for the aggregation, and the result is the naive join's
// counts for the windows the final watermark, as it reaches the
// aggregation through the join, closed.
func TestAggregateOfJoin(t *testing.T) {
	const delay = 30 * second
	clicks := genClicks(1500, 71, 0)
	imps := genImps(1500, 73, 0)
	var maxC, maxI int64
	for _, c := range clicks {
		if c.ts != nil {
			maxC = max(maxC, *c.ts)
		}
	}
	for _, x := range imps {
		if x.ts != nil {
			maxI = max(maxI, *x.ts)
		}
	}
	wm := (min(maxC, maxI) - delay) / 1000 * 1000
	// The aggregation closes windows by the join's output watermark (Spark's
	// propagation): the smaller of its state watermarks, wm − 10 s − 1 ms
	// for clicks (range upper bound) and wm − 5 s − 1 ms for impressions.
	aggWM := wm - 10*second - 1000
	counts := map[string]int64{}
	for _, c := range clicks {
		for _, x := range imps {
			if c.ts == nil || x.ts == nil || c.campaign == nil || x.ad == nil || *c.campaign != *x.ad {
				continue
			}
			if d := *x.ts - *c.ts; d >= -5*second && d <= 10*second {
				counts[fmt.Sprint(*c.ts-mod(*c.ts, 60*second), " ", *c.campaign)]++
			}
		}
	}
	var want [][]any
	for k, n := range counts {
		var w int64
		var camp string
		fmt.Sscanf(k, "%d %s", &w, &camp)
		if w+60*second <= aggWM {
			want = append(want, []any{[]any{w, w + 60*second}, camp, n})
		}
	}
	for _, k := range []int{1, 10, 50} {
		t.Run(fmt.Sprintf("%d-triggers", k), func(t *testing.T) {
			d := time.Duration(delay) * time.Microsecond
			got, _, _ := runTwoStreams(t, split(clicks, k), splitImps(imps, k), func(cs, is *memsrc.Source) *millrace.Stream {
				joined := millrace.ReadStream(cs).WithWatermark("event_time", d).Join(
					millrace.ReadStream(is).WithWatermark("imp_time", d),
					millrace.Col("campaign").Eq(millrace.Col("ad")).
						And(millrace.Col("imp_time").Between(millrace.Col("event_time").Minus(5*time.Second), millrace.Col("event_time").Plus(10*time.Second))),
					millrace.Inner)
				return joined.GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign")).
					Agg(millrace.Count().As("matches"))
			}, millrace.Append)
			if d := testutil.Diff(got, want); d != "" {
				t.Fatal(d)
			}
			if len(want) < 10 {
				t.Fatalf("only %d windows", len(want))
			}
		})
	}
}

// TestChainedRecovery crashes a checkpointed chain of two aggregations at
// each step and checks the output equals an uninterrupted run's: both
// operators' state survives, under their own operator ids.
func TestChainedRecovery(t *testing.T) {
	const delay = 10 * second
	chunks := split(genClicks(3000, 81, 0), 10)
	build := func(src *memsrc.Source) *millrace.Stream {
		return millrace.ReadStream(src).Filter(millrace.Col("campaign").IsNotNull()).
			WithWatermark("event_time", time.Duration(delay)*time.Microsecond).
			GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign")).
			Agg(millrace.Count().As("n")).
			GroupBy(millrace.Col("window")).
			Agg(millrace.Max(millrace.Col("n")).As("max_clicks"), millrace.Count().As("campaigns"))
	}
	want := runWithCrash(t, chunks, build, millrace.Append, "none", -1)
	if len(want) < 3 {
		t.Fatalf("reference run produced %d rows", len(want))
	}
	for _, step := range []string{"data-read", "sink-committed", "state-committed", "commit-written"} {
		t.Run(step, func(t *testing.T) {
			if d := testutil.Diff(runWithCrash(t, chunks, build, millrace.Append, step, 5), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// TestHighestBidPerWindow is Nexmark q7's shape: the rows whose amount is
// their window's maximum — raw rows with a window column (tumbling window
// as a value) joined with the per-window maximum of a second read of the
// same data, on (window, amount).
func TestHighestBidPerWindow(t *testing.T) {
	const delay = 10 * second
	data := genClicks(6000, 91, 0) // 10 minutes: 9 windows close
	var maxTS int64
	best := map[int64]float64{}
	for _, c := range data {
		if c.ts == nil || c.amount == nil {
			continue
		}
		maxTS = max(maxTS, *c.ts)
		w := *c.ts - mod(*c.ts, 60*second)
		if v, ok := best[w]; !ok || *c.amount > v {
			best[w] = *c.amount
		}
	}
	wm := (maxTS - delay) / 1000 * 1000
	var want [][]any
	for _, c := range data {
		if c.ts == nil || c.amount == nil {
			continue
		}
		w := *c.ts - mod(*c.ts, 60*second)
		if w+60*second <= wm && *c.amount == best[w] {
			win := []any{w, w + 60*second}
			var camp any
			if c.campaign != nil {
				camp = *c.campaign
			}
			want = append(want, []any{*c.ts, camp, *c.amount, win, win, *c.amount})
		}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s1 := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	s2 := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	d := time.Duration(delay) * time.Microsecond
	bids := millrace.ReadStream(s1).WithWatermark("event_time", d).
		Select(millrace.Col("event_time"), millrace.Col("campaign"), millrace.Col("amount"),
			millrace.Window(millrace.Col("event_time"), time.Minute).As("window"))
	maxes := millrace.ReadStream(s2).WithWatermark("event_time", d).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute).As("max_window")).
		Agg(millrace.Max(millrace.Col("amount")).As("max_amount"))
	q7 := bids.Join(maxes, millrace.Col("window").Eq(millrace.Col("max_window")).And(millrace.Col("amount").Eq(millrace.Col("max_amount"))), millrace.Inner)
	rec := testutil.NewRecorder()
	ctx := context.Background()
	chunks := split(data, 20)
	add := func(i int) {
		if _, err := s1.AddRows(clickRows(chunks[i])...); err != nil {
			t.Fatal(err)
		}
		if _, err := s2.AddRows(clickRows(chunks[i])...); err != nil {
			t.Fatal(err)
		}
	}
	add(0)
	q, err := q7.WriteStream(rec).Allocator(mem).StatePartitions(3).Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range chunks {
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
	if d := testutil.Diff(rec.All(), want); d != "" {
		t.Fatal(d)
	}
	if len(want) < 4 {
		t.Fatalf("only %d rows", len(want))
	}
}

// TestOneStreamTwoUses uses one stream in two places of a plan (raw rows and
// their per-window maximum, as in TestHighestBidPerWindow): its source is
// read once per batch and the batches fan out; the result equals the one
// with two separate reads of the same data.
func TestOneStreamTwoUses(t *testing.T) {
	const delay = 10 * second
	data := genClicks(6000, 91, 0)
	build := func(s1, s2 *memsrc.Source) *millrace.Stream {
		d := time.Duration(delay) * time.Microsecond
		raw := millrace.ReadStream(s1).WithWatermark("event_time", d)
		second := raw
		if s2 != nil {
			second = millrace.ReadStream(s2).WithWatermark("event_time", d)
		}
		bids := raw.Select(millrace.Col("event_time"), millrace.Col("campaign"), millrace.Col("amount"),
			millrace.Window(millrace.Col("event_time"), time.Minute).As("window"))
		maxes := second.GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute).As("max_window")).
			Agg(millrace.Max(millrace.Col("amount")).As("max_amount"))
		return bids.Join(maxes, millrace.Col("window").Eq(millrace.Col("max_window")).And(millrace.Col("amount").Eq(millrace.Col("max_amount"))), millrace.Inner)
	}
	run := func(twoSources bool) ([][]any, int64) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		s1 := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
		var s2 *memsrc.Source
		if twoSources {
			s2 = testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
		}
		chunks := split(data, 20)
		add := func(i int) {
			if _, err := s1.AddRows(clickRows(chunks[i])...); err != nil {
				t.Fatal(err)
			}
			if s2 != nil {
				if _, err := s2.AddRows(clickRows(chunks[i])...); err != nil {
					t.Fatal(err)
				}
			}
		}
		add(0)
		rec := testutil.NewRecorder()
		ctx := context.Background()
		q, err := build(s1, s2).WriteStream(rec).Allocator(mem).StatePartitions(3).Trigger(millrace.ProcessingTime(time.Hour)).Start(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := range chunks {
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
		var read int64
		for _, p := range q.RecentProgress() {
			read += p.NumInputRows
		}
		return rec.All(), read
	}
	once, readOnce := run(false)
	twice, readTwice := run(true)
	if d := testutil.Diff(once, twice); d != "" {
		t.Fatal(d)
	}
	if len(once) < 4 || readOnce != int64(len(data)) || readTwice != 2*int64(len(data)) {
		t.Fatalf("rows %d, read %d once and %d with two sources", len(once), readOnce, readTwice)
	}
}

// TestAggregationWithTwoConsumers is Nexmark q5's shape: per-window counts
// feed both a join and the per-window maximum they are joined with — one
// aggregation stage with two consumers. Checked against a naive
// evaluation: the busiest campaigns of every closed window.
func TestAggregationWithTwoConsumers(t *testing.T) {
	const delay = 10 * second
	data := genClicks(6000, 97, 0)
	counts, wm := campaignCounts(data, delay)
	var want [][]any
	for w, per := range counts {
		if w+60*second > wm {
			continue
		}
		var best int64
		for _, n := range per {
			best = max(best, n)
		}
		for camp, n := range per {
			if n == best {
				want = append(want, []any{[]any{w, w + 60*second}, camp, n})
			}
		}
	}
	for _, k := range []int{1, 10, 100} {
		t.Run(fmt.Sprintf("%d-triggers", k), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
			perCampaign := millrace.ReadStream(src).Filter(millrace.Col("campaign").IsNotNull()).
				WithWatermark("event_time", time.Duration(delay)*time.Microsecond).
				GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign")).
				Agg(millrace.Count().As("n"))
			best := perCampaign.GroupBy(millrace.Col("window").As("best_window")).Agg(millrace.Max(millrace.Col("n")).As("best"))
			q5 := perCampaign.Join(best, millrace.Col("window").Eq(millrace.Col("best_window")).And(millrace.Col("n").Eq(millrace.Col("best"))), millrace.Inner).
				SelectCols("window", "campaign", "n")
			rec := testutil.NewRecorder()
			ctx := context.Background()
			q, err := q5.WriteStream(rec).Allocator(mem).StatePartitions(3).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			feed(t, ctx, q, src, split(data, k))
			if d := testutil.Diff(rec.All(), want); d != "" {
				t.Fatal(d)
			}
			if n := len(q.LastProgress().StateOperators); n != 3 || len(want) < 5 {
				t.Fatalf("%d state operators (want 3: the shared aggregation once), %d rows", n, len(want))
			}
		})
	}
}

// campaignCounts is the naive oracle's click count per 1-minute window
// start and campaign over all of data, with the watermark after all of it
// (max event time − delay, in whole milliseconds).
func campaignCounts(data []click, delay int64) (map[int64]map[string]int64, int64) {
	var maxTS int64
	counts := map[int64]map[string]int64{}
	for _, c := range data {
		if c.ts == nil || c.campaign == nil {
			continue
		}
		maxTS = max(maxTS, *c.ts)
		w := *c.ts - mod(*c.ts, 60*second)
		if counts[w] == nil {
			counts[w] = map[string]int64{}
		}
		counts[w][*c.campaign]++
	}
	return counts, (maxTS - delay) / 1000 * 1000
}
