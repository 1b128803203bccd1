package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sources"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// These tests pin Spark Structured Streaming's semantics where Millrace
// once differed (issue 10, items 1-6). Each scenario's expected output is
// what Spark 4 produced for the same rows split into the same triggers.

// evSchema is a keyed event stream; joins use a second copy with other
// column names.
var (
	evSchema = arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: millrace.Timestamp, Nullable: true},
	}, nil)
	evSchemaR = arrow.NewSchema([]arrow.Field{
		{Name: "rk", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "rts", Type: millrace.Timestamp, Nullable: true},
	}, nil)
)

// sec is a timestamp s seconds after the epoch, in microseconds.
func sec(s int64) int64 { return s * second }

// ev is one event row: key and event time in seconds; nil is null.
func ev(k, ts any) []any {
	if s, ok := ts.(int); ok {
		ts = sec(int64(s))
	}
	if i, ok := k.(int); ok {
		k = int64(i)
	}
	return []any{k, ts}
}

// triggers runs a query over one or two memory sources, adding feed[i][s]
// to source s before trigger i, and returns the rows the sink committed
// during each trigger (its data batch and any no-data batch after it).
type triggerRun struct {
	feed    [][][][]any // trigger → source → rows
	schemas []*arrow.Schema
	build   func(srcs []*memsrc.Source) *millrace.Stream
	mode    millrace.OutputMode
	options func(w *millrace.StreamWriter) *millrace.StreamWriter
	// before, if set, runs before trigger i is processed (tests move a
	// clock here).
	before func(i int)
}

func (r triggerRun) run(t *testing.T) ([][][]any, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	srcs := make([]*memsrc.Source, len(r.schemas))
	for i, s := range r.schemas {
		srcs[i] = testutil.Must(memsrc.New(s, memsrc.Options{Allocator: mem}))
	}
	rec := testutil.NewRecorder()
	ctx := context.Background()
	w := r.build(srcs).WriteStream(rec).OutputMode(r.mode).Allocator(mem).StatePartitions(2).
		Trigger(millrace.ProcessingTime(time.Hour))
	if r.options != nil {
		w = r.options(w)
	}
	q, err := w.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out [][][]any
	seen := 0
	for i, in := range r.feed {
		for s, rows := range in {
			if len(rows) == 0 {
				continue
			}
			if _, err := srcs[s].AddRows(rows...); err != nil {
				t.Fatal(err)
			}
		}
		if r.before != nil {
			r.before(i)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			q.Stop()
			return out, err
		}
		all := rec.All()
		out = append(out, all[seen:])
		seen = len(all)
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	return out, nil
}

func checkTriggers(t *testing.T, got, want [][][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d triggers, want %d", len(got), len(want))
	}
	for i := range want {
		if d := testutil.Diff(got[i], want[i]); d != "" {
			t.Errorf("trigger %d: %s", i, d)
		}
	}
}

// Item 1: an event exactly one gap after the previous one extends the
// session in Spark.
func TestSparkSessionGapIsInclusive(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema},
		feed: [][][][]any{
			{{ev(0, 0), ev(0, 5)}},
			{{ev(1, 100)}}, // moves the watermark past the session
		},
		build: func(s []*memsrc.Source) *millrace.Stream {
			return millrace.ReadStream(s[0]).WithWatermark("ts", 0).
				GroupBy(millrace.SessionWindow(millrace.Col("ts"), 5*time.Second), millrace.Col("k")).
				Agg(millrace.Count().As("n"))
		},
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{nil, {{[]any{sec(0), sec(10)}, int64(0), int64(2)}}})
}

// Item 2: dropDuplicatesWithinWatermark reads a null event time as 0, so
// the key expires at the next watermark past the delay.
func TestSparkDedupWithinWatermarkNullTime(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema},
		feed:    [][][][]any{{{ev(0, nil)}}, {{ev(0, 30)}}, {{ev(0, 60)}}},
		build: func(s []*memsrc.Source) *millrace.Stream {
			return millrace.ReadStream(s[0]).WithWatermark("ts", 10*time.Second).DropDuplicatesWithinWatermark("k")
		},
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{{ev(0, nil)}, nil, {ev(0, 60)}})
}

// joinRows is a joined (k, ts, rk, rts) row; nil sides are nulls.
func joinRow(l, r []any) []any {
	if l == nil {
		l = []any{nil, nil}
	}
	if r == nil {
		r = []any{nil, nil}
	}
	return append(append([]any{}, l...), r...)
}

// twoStreamJoin builds left.Join(right) on k = rk and rts within
// [ts − lower, ts + upper], both sides watermarked with delay.
func twoStreamJoin(how millrace.JoinType, delay, lower, upper time.Duration) func(s []*memsrc.Source) *millrace.Stream {
	return func(s []*memsrc.Source) *millrace.Stream {
		l := millrace.ReadStream(s[0]).WithWatermark("ts", delay)
		r := millrace.ReadStream(s[1]).WithWatermark("rts", delay)
		cond := millrace.Col("k").Eq(millrace.Col("rk")).
			And(millrace.Col("rts").Between(millrace.Col("ts").Minus(lower), millrace.Col("ts").Plus(upper)))
		return l.Join(r, cond, how)
	}
}

// Item 3: an input that has seen no data counts as watermark 0, so the
// global (minimum) watermark does not move until every input has data.
func TestSparkWatermarkWaitsForEveryInput(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed: [][][][]any{
			{{ev(1, 20)}, nil},
			{{ev(1, 5)}, {ev(1, 6)}},
		},
		build: twoStreamJoin(millrace.Inner, 5*time.Second, 0, 10*time.Second),
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{nil, {joinRow(ev(1, 5), ev(1, 6))}})
}

// Item 4: in a left outer join Spark emits a null-key left row once the
// watermark passes it, not at once.
func TestSparkOuterJoinNullKeyWaitsForWatermark(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed: [][][][]any{
			{{ev(nil, 10)}, {ev(2, 10)}},
			{{ev(3, 12)}, {ev(4, 12)}},
			{{ev(5, 100)}, {ev(6, 100)}},
		},
		build: twoStreamJoin(millrace.LeftOuter, 5*time.Second, 0, 10*time.Second),
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{nil, nil, {joinRow(ev(nil, 10), nil), joinRow(ev(3, 12), nil)}})
}

// Item 4b: rows with a null join key on a side that cannot emit unmatched
// rows are filtered before the watermark (Spark infers IsNotNull on the
// keys and pushes it below EventTimeWatermark), so they never move it.
func TestSparkNullJoinKeysDoNotMoveWatermark(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed: [][][][]any{
			{{ev(1, 10)}, {ev(2, 12)}},
			{{ev(nil, 30)}, {ev(3, 40)}},
		},
		build: twoStreamJoin(millrace.RightOuter, 5*time.Second, 5*time.Second, 5*time.Second),
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{nil, nil})
}

// The null-key filter crosses projections: a key computed by WithColumn
// is filtered on the expression, below the watermark.
func TestNullJoinKeyFilterCrossesProjection(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed: [][][][]any{
			{{ev(1, 10)}, {ev(2, 12)}},
			{{ev(nil, 30)}, {ev(3, 40)}},
		},
		build: func(s []*memsrc.Source) *millrace.Stream {
			l := millrace.ReadStream(s[0]).WithColumn("k2", millrace.Col("k").Plus(millrace.Lit(int64(0)))).
				WithWatermark("ts", 5*time.Second)
			r := millrace.ReadStream(s[1]).WithWatermark("rts", 5*time.Second)
			cond := millrace.Col("k2").Eq(millrace.Col("rk")).
				And(millrace.Col("rts").Between(millrace.Col("ts").Minus(5*time.Second), millrace.Col("ts").Plus(5*time.Second)))
			return l.Join(r, cond, millrace.RightOuter).Select(millrace.Col("k"), millrace.Col("ts"), millrace.Col("rk"), millrace.Col("rts"))
		},
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{nil, nil})
}

// Departures (docs/ARCHITECTURE.md): a row without an event time can never
// match, so an outer join emits it at the next eviction (Spark keeps it in
// state for ever and never emits it); null keys never match each other in
// a full outer join (Spark's streaming join matches them).
func TestOuterJoinNullTimeAndNullKeyDepartures(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed: [][][][]any{
			{{ev(1, 20), ev(nil, 1)}, {ev(1, 20), ev(nil, 2)}},
			{{ev(7, nil)}, {ev(8, 22)}},
			{{ev(5, 100)}, {ev(6, 100)}},
		},
		build: twoStreamJoin(millrace.FullOuter, 5*time.Second, 5*time.Second, 5*time.Second),
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{
		// the null keys leave when the watermark (15 s) passes them
		{joinRow(ev(1, 20), ev(1, 20)), joinRow(ev(nil, 1), nil), joinRow(nil, ev(nil, 2))},
		{joinRow(ev(7, nil), nil)},
		{joinRow(nil, ev(8, 22))},
	})
}

// unionCount counts rows per 10 s window over two watermarked inputs.
func unionCount(s []*memsrc.Source) *millrace.Stream {
	a := millrace.ReadStream(s[0]).WithWatermark("ts", 0)
	b := millrace.ReadStream(s[1]).WithWatermark("ts", 0)
	return a.Union(b).GroupBy(millrace.Window(millrace.Col("ts"), 10*time.Second)).Agg(millrace.Count().As("n"))
}

// fakeClock is a processing-time clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Item 5: an idle input holds the watermark back for ever by default;
// with WatermarkIdleTimeout it stops holding it after the timeout, and
// holds it again once its rows arrive.
func TestWatermarkIdleTimeout(t *testing.T) {
	feed := [][][][]any{
		{{ev(1, 1), ev(1, 12)}, nil},
		{nil, nil},                 // a minute later: both inputs are idle
		{{ev(1, 25)}, nil},         // input 0 has rows again; input 1 is still idle
		{nil, {ev(2, 26)}},         // input 1 resumes
		{{ev(1, 45)}, nil},         // held by input 1 (26 s) again
		{nil, {ev(2, 50)}},         // both past 40 s
		{{ev(1, 51)}, {ev(2, 51)}}, // both past 50 s
	}
	win := func(s int64) []any { return []any{sec(s), sec(s + 10)} }
	want := map[time.Duration][][][]any{
		// Spark: input 1 holds the watermark at 0 until its first rows
		// (trigger 3), then the minimum of the two inputs
		0: {nil, nil, nil, {{win(0), int64(1)}, {win(10), int64(1)}}, nil, {{win(20), int64(2)}}, {{win(40), int64(1)}}},
		// idle input 1 is left out from trigger 1 on (when every input is
		// idle nothing moves); the watermark follows input 0 to 25 s in
		// trigger 2, and input 1 holds it again once it resumes
		30 * time.Second: {nil, nil, {{win(0), int64(1)}, {win(10), int64(1)}}, nil, nil, {{win(20), int64(2)}}, {{win(40), int64(1)}}},
	}
	for idle, want := range want {
		t.Run(fmt.Sprintf("idle=%s", idle), func(t *testing.T) {
			clock := &fakeClock{now: time.Unix(1_000, 0)}
			r := triggerRun{
				schemas: []*arrow.Schema{evSchema, evSchema},
				feed:    feed,
				build:   unionCount,
				options: func(w *millrace.StreamWriter) *millrace.StreamWriter {
					return w.Clock(clock.Now).WatermarkIdleTimeout(idle)
				},
				before: func(i int) {
					if i == 1 {
						clock.Add(time.Minute)
					}
					clock.Add(time.Second)
				},
			}
			got, err := r.run(t)
			if err != nil {
				t.Fatal(err)
			}
			checkTriggers(t, got, want)
		})
	}
}

// recordingHandler keeps the log records of a query.
type recordingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return nil // the per-batch info lines
	}
	h.mu.Lock()
	h.msgs = append(h.msgs, r.Message)
	h.mu.Unlock()
	return nil
}
func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }

// Item 6: a far-future event time moves the watermark there (Spark's
// semantics, kept) with a warning; MaxEventTimeAhead sends such rows to the
// dead-letter sink, or fails the query naming the row.
func TestFarFutureEventTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := func(t time.Time) []any { return []any{int64(1), t.UnixMicro()} }
	feed := [][][][]any{
		{{at(now.Add(-time.Minute))}},
		{{at(time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))}},
		{{at(now.Add(-30 * time.Second))}},
	}
	count := func(s []*memsrc.Source) *millrace.Stream {
		return millrace.ReadStream(s[0]).WithWatermark("ts", 10*time.Second).
			GroupBy(millrace.Window(millrace.Col("ts"), time.Minute)).Agg(millrace.Count().As("n"))
	}
	clock := func() time.Time { return now }

	t.Run("default", func(t *testing.T) {
		h := &recordingHandler{}
		drops := &dropCounter{}
		r := triggerRun{schemas: []*arrow.Schema{evSchema}, feed: feed, build: count, mode: millrace.Update,
			options: func(w *millrace.StreamWriter) *millrace.StreamWriter {
				return w.Clock(clock).Logger(slog.New(h)).Listener(drops)
			}}
		if _, err := r.run(t); err != nil {
			t.Fatal(err)
		}
		if drops.dropped.Load() != 1 {
			t.Fatalf("%d rows dropped as late, want the row after the far-future one", drops.dropped.Load())
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		if len(h.msgs) != 1 || !strings.Contains(h.msgs[0], "passed the processing time") {
			t.Fatalf("warnings %q", h.msgs)
		}
	})

	t.Run("dead-letter", func(t *testing.T) {
		dead := testutil.NewRecorder()
		drops := &dropCounter{}
		r := triggerRun{schemas: []*arrow.Schema{evSchema}, feed: feed, build: count, mode: millrace.Update,
			options: func(w *millrace.StreamWriter) *millrace.StreamWriter {
				return w.Clock(clock).MaxEventTimeAhead(time.Hour).DeadLetterSink(dead).Listener(drops)
			}}
		got, err := r.run(t)
		if err != nil {
			t.Fatal(err)
		}
		if drops.dropped.Load() != 0 {
			t.Fatalf("%d rows dropped as late", drops.dropped.Load())
		}
		win := []any{now.Add(-time.Minute).UnixMicro(), now.UnixMicro()}
		checkTriggers(t, got, [][][]any{{{win, int64(1)}}, nil, {{win, int64(2)}}})
		letters := dead.All()
		if len(letters) != 1 || !strings.Contains(letters[0][2].(string), "2100-01-01") ||
			!strings.Contains(letters[0][3].(string), "more than 1h0m0s ahead") {
			t.Fatalf("dead letters %v", letters)
		}
	})

	t.Run("fail", func(t *testing.T) {
		r := triggerRun{schemas: []*arrow.Schema{evSchema}, feed: feed, build: count, mode: millrace.Update,
			options: func(w *millrace.StreamWriter) *millrace.StreamWriter {
				return w.Clock(clock).MaxEventTimeAhead(time.Hour)
			}}
		_, err := r.run(t)
		if !errors.Is(err, sources.ErrBadRecord) || !strings.Contains(err.Error(), "2100-01-01") || !strings.Contains(err.Error(), `row {"k":1,"ts":"2100-01-01`) {
			t.Fatalf("error %v", err)
		}
	})
}

// Item 18: after an AvailableNow run that closed windows, LastProgress is
// the no-data batch that closed them (as in Spark); Summary totals the run.
func TestSummaryAfterAvailableNow(t *testing.T) {
	src := testutil.Must(memsrc.New(evSchema, memsrc.Options{}))
	if _, err := src.AddRows(ev(1, 1), ev(1, 2), ev(2, 15)); err != nil {
		t.Fatal(err)
	}
	if _, err := src.AddRows(ev(1, 30), ev(3, 3)); err != nil {
		t.Fatal(err)
	}
	rec := testutil.NewRecorder()
	ctx := context.Background()
	q, err := millrace.ReadStream(src).WithWatermark("ts", 0).
		GroupBy(millrace.Window(millrace.Col("ts"), 10*time.Second)).Agg(millrace.Count().As("n")).
		WriteStream(rec).Trigger(millrace.AvailableNow()).MaxRowsPerTrigger(3).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	if p := q.LastProgress(); p == nil || p.NumInputRows != 0 {
		t.Fatalf("last progress %+v: want the trailing no-data batch", p)
	}
	s := q.Summary()
	// The row at 3 s arrives in batch 1, whose watermark (15 s) is past its
	// window, but it is late only for the watermark of the batch before it
	// (0): Spark 3.4+ keeps it, and so window [0, 10) counts 3.
	want := millrace.Summary{Batches: 3, DataBatches: 2, NumInputRows: 5, NumOutputRows: 2,
		NumRowsDroppedByWatermark: 0, FirstBatchID: 0, LastBatchID: 2, Watermark: "1970-01-01T00:00:30.000Z"}
	if s != want {
		t.Fatalf("summary %+v, want %+v", s, want)
	}
	win := []any{sec(0), sec(10)}
	if d := testutil.Diff(rec.All(), [][]any{{win, int64(3)}, {[]any{sec(10), sec(20)}, int64(1)}}); d != "" {
		t.Fatal(d)
	}
}

// Item 15: int64 sums and arithmetic wrap silently by default (Spark
// without ANSI mode); CheckOverflow makes them fail the query.
func TestIntegerOverflow(t *testing.T) {
	big := int64(math.MaxInt64 - 10)
	small := int64(20)
	three := int64(3)
	for _, checked := range []bool{false, true} {
		for _, q := range []struct {
			name  string
			mode  millrace.OutputMode
			build func(s []*memsrc.Source) *millrace.Stream
			want  [][]any // wrapped results, Go's int64 arithmetic
		}{
			{"sum", millrace.Update, func(s []*memsrc.Source) *millrace.Stream {
				return millrace.ReadStream(s[0]).GroupBy(millrace.Col("k")).Agg(millrace.Sum(millrace.Col("v")).As("s"))
			}, [][]any{{int64(1), big + small}}},
			{"plus", millrace.Append, func(s []*memsrc.Source) *millrace.Stream {
				return millrace.ReadStream(s[0]).Select(millrace.Col("v").Plus(millrace.Col("v")).As("twice"))
			}, [][]any{{big + big}, {small + small}}},
			{"times literal", millrace.Append, func(s []*memsrc.Source) *millrace.Stream {
				return millrace.ReadStream(s[0]).Select(millrace.Lit(three).Times(millrace.Col("v")).As("thrice"))
			}, [][]any{{three * big}, {three * small}}},
		} {
			t.Run(fmt.Sprintf("%s/checked=%v", q.name, checked), func(t *testing.T) {
				r := triggerRun{
					schemas: []*arrow.Schema{kvSchema},
					feed:    [][][][]any{{{{int64(1), big}, {int64(1), small}}}},
					build:   q.build,
					mode:    q.mode,
					options: func(w *millrace.StreamWriter) *millrace.StreamWriter {
						if checked {
							return w.CheckOverflow()
						}
						return w
					},
				}
				got, err := r.run(t)
				if !checked {
					if err != nil {
						t.Fatal(err)
					}
					checkTriggers(t, got, [][][]any{q.want})
					return
				}
				if !errors.Is(err, millrace.ErrOverflow) || !strings.Contains(err.Error(), "overflow") {
					t.Fatalf("error %v", err)
				}
			})
		}
	}
}

var kvSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// A restart goes on with what each input had seen: here input 0 had rows
// before the restart and input 1 has its first rows after it. Spark
// forgets input 0's maximum at a restart and holds the watermark at 0
// until input 0 has rows again; Millrace records it in the commit log
// (and with the state) and gives exactly the output of an uninterrupted
// run, whether the query stopped between batches or crashed at any step
// of the batch after.
func TestRestartKeepsEachInputsWatermark(t *testing.T) {
	feed := [][][][]any{
		{{ev(1, 1), ev(1, 12), ev(1, 20)}, nil},
		{nil, {ev(2, 30)}},
	}
	win := func(s int64) []any { return []any{sec(s), sec(s + 10)} }
	want := [][]any{{win(0), int64(1)}, {win(10), int64(1)}}
	for _, step := range []string{"stop", "data-read", "sink-committed", "state-committed", "commit-written"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			ctx := context.Background()
			rec := testutil.NewRecorder()
			fault := &crash{step: step, batch: 1}
			start := func(added int) (*millrace.Query, []*memsrc.Source) {
				srcs := []*memsrc.Source{testutil.Must(memsrc.New(evSchema, memsrc.Options{})), testutil.Must(memsrc.New(evSchema, memsrc.Options{}))}
				for _, in := range feed[:added] { // what the last run read: a new process sees it again
					for s, rows := range in {
						if len(rows) > 0 {
							if _, err := srcs[s].AddRows(rows...); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
				q, err := unionCount(srcs).WriteStream(rec).StatePartitions(2).Checkpoint(dir).
					Trigger(millrace.ProcessingTime(time.Hour)).
					FaultInjection(fault.hook).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return q, srcs
			}
			q, srcs := start(0)
			for i, in := range feed {
				if i == 1 && step == "stop" {
					if err := q.Stop(); err != nil {
						t.Fatal(err)
					}
					q, srcs = start(1)
				}
				for s, rows := range in {
					if len(rows) > 0 {
						if _, err := srcs[s].AddRows(rows...); err != nil {
							t.Fatal(err)
						}
					}
				}
				if err := q.ProcessAllAvailable(ctx); err != nil {
					if !errors.Is(err, errCrash) {
						t.Fatal(err)
					}
					_ = q.Stop()
					q, _ = start(i + 1)
					if err := q.ProcessAllAvailable(ctx); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := q.Stop(); err != nil {
				t.Fatal(err)
			}
			if !fault.crashed && step != "stop" {
				t.Fatalf("never reached step %s of batch 1", step)
			}
			if d := testutil.Diff(rec.All(), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// Strict time-range conditions exclude their bounds (they were once read
// as <= and >=).
func TestJoinStrictRange(t *testing.T) {
	r := triggerRun{
		schemas: []*arrow.Schema{evSchema, evSchemaR},
		feed:    [][][][]any{{{ev(1, 10)}, {ev(1, 10), ev(1, 15), ev(1, 20)}}},
		build: func(s []*memsrc.Source) *millrace.Stream {
			l := millrace.ReadStream(s[0]).WithWatermark("ts", time.Second)
			r := millrace.ReadStream(s[1]).WithWatermark("rts", time.Second)
			cond := millrace.Col("k").Eq(millrace.Col("rk")).
				And(millrace.Col("rts").Gt(millrace.Col("ts"))).
				And(millrace.Col("rts").Lt(millrace.Col("ts").Plus(10 * time.Second)))
			return l.Join(r, cond, millrace.Inner)
		},
	}
	got, err := r.run(t)
	if err != nil {
		t.Fatal(err)
	}
	checkTriggers(t, got, [][][]any{{joinRow(ev(1, 10), ev(1, 15))}})
}
