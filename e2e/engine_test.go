package e2e_test

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// The engine tests run a windowed aggregation over the same input split
// into 1, 10 and 1000 triggers, in every output mode, and compare every
// batch the sink receives with a naive row-at-a-time oracle that follows
// Spark's rules (watermark of batch N from the event times of batches
// < N, late rows dropped and counted, windows emitted or evicted when the
// watermark passes their end).

var clickSchema = arrow.NewSchema([]arrow.Field{
	{Name: "event_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "user", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

type click struct {
	ts       *int64
	campaign *string
	user     int64
	amount   *float64
}

const (
	second = int64(time.Second / time.Microsecond)
	base   = int64(1_767_225_600) * second // 2026-01-01
)

func genClicks(n int, seed int64, lateShare float64) []click {
	r := rand.New(rand.NewSource(seed))
	out := make([]click, n)
	for i := range out {
		c := click{user: int64(r.Intn(50))}
		if r.Float64() > 0.01 {
			ts := base + int64(i)*100_000 - r.Int63n(3*second)
			if r.Float64() < lateShare {
				ts -= r.Int63n(180 * second)
			}
			c.ts = &ts
		}
		if r.Float64() > 0.02 {
			s := fmt.Sprintf("c%d", r.Intn(7))
			c.campaign = &s
		}
		if r.Float64() > 0.05 {
			a := math.Round(r.Float64()*10000) / 100
			c.amount = &a
		}
		out[i] = c
	}
	return out
}

func clickRows(cs []click) [][]any {
	rows := make([][]any, len(cs))
	for i, c := range cs {
		row := []any{nil, nil, c.user, nil}
		if c.ts != nil {
			row[0] = *c.ts
		}
		if c.campaign != nil {
			row[1] = *c.campaign
		}
		if c.amount != nil {
			row[3] = *c.amount
		}
		rows[i] = row
	}
	return rows
}

// windowSpec is a window of the test query, in microseconds.
type windowSpec struct{ size, slide int64 }

func (w windowSpec) column() millrace.Column {
	col := millrace.Col("event_time")
	if w.size == w.slide {
		return millrace.Window(col, time.Duration(w.size)*time.Microsecond)
	}
	return millrace.SlidingWindow(col, time.Duration(w.size)*time.Microsecond, time.Duration(w.slide)*time.Microsecond)
}

// acc is the oracle's state of one group.
type acc struct {
	start    int64
	campaign any
	n, nAmt  int64
	sum      float64
	minUser  int64
	maxAmt   float64
	hasUser  bool
	users    map[int64]bool
	closed   bool
	updateAt int
}

func (a *acc) row(size int64) []any {
	var sum, maxAmt, avg, minUser any
	if a.nAmt > 0 {
		sum, maxAmt, avg = a.sum, a.maxAmt, a.sum/float64(a.nAmt)
	}
	if a.hasUser {
		minUser = a.minUser
	}
	return []any{[]any{a.start, a.start + size}, a.campaign, a.n, a.nAmt, sum, minUser, maxAmt, avg, int64(len(a.users))}
}

// oracle replays the batches the engine runs and returns, per batch, the
// rows the sink must receive, and the total of rows dropped as late.
func oracle(chunks [][]click, w windowSpec, mode millrace.OutputMode, delay int64) ([][][]any, int64) {
	state := map[string]*acc{}
	var order []string
	var out [][][]any
	var dropped int64
	wm := int64(0)
	maxSeen, seen := int64(0), false
	batchNo := 0
	runBatch := func(input []click) {
		batchNo++
		for _, c := range input {
			if c.ts == nil {
				continue
			}
			ts := *c.ts
			last := ts - mod(ts, w.slide)
			if mode != millrace.Complete && wm > 0 && last+w.size <= wm {
				dropped++
				continue
			}
			for s := last; s > ts-w.size; s -= w.slide {
				if mode != millrace.Complete && wm > 0 && s+w.size <= wm {
					continue
				}
				var camp any
				if c.campaign != nil {
					camp = *c.campaign
				}
				k := fmt.Sprint(s, "|", camp)
				a := state[k]
				if a == nil {
					a = &acc{start: s, campaign: camp, users: map[int64]bool{}}
					state[k] = a
					order = append(order, k)
				}
				a.n++
				if c.amount != nil {
					if a.nAmt == 0 || *c.amount > a.maxAmt {
						a.maxAmt = *c.amount
					}
					a.nAmt++
					a.sum += *c.amount
				}
				if !a.hasUser || c.user < a.minUser {
					a.minUser = c.user
				}
				a.hasUser = true
				a.users[c.user] = true
				a.updateAt = batchNo
			}
		}
		var rows [][]any
		for _, k := range order {
			a := state[k]
			if a.closed {
				continue
			}
			isClosed := wm > 0 && a.start+w.size <= wm
			switch mode {
			case millrace.Complete:
				rows = append(rows, a.row(w.size))
			case millrace.Update:
				if a.updateAt == batchNo {
					rows = append(rows, a.row(w.size))
				}
				a.closed = isClosed
			case millrace.Append:
				if isClosed {
					rows = append(rows, a.row(w.size))
					a.closed = true
				}
			}
		}
		out = append(out, rows)
	}
	for _, chunk := range chunks {
		runBatch(chunk)
		for _, c := range chunk {
			if c.ts != nil && (!seen || *c.ts > maxSeen) {
				maxSeen, seen = *c.ts, true
			}
		}
		if seen {
			next := maxSeen - delay
			next = next / 1000 * 1000
			if next > wm {
				wm = next
				if mode != millrace.Complete {
					runBatch(nil)
				}
			}
		}
	}
	return out, dropped
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// feed adds each chunk to src as one trigger, processing it before the
// next, then stops q.
func feed(t *testing.T, ctx context.Context, q *millrace.Query, src *memsrc.Source, chunks [][]click) {
	t.Helper()
	for _, c := range chunks {
		if _, err := src.AddRows(clickRows(c)...); err != nil {
			t.Fatal(err)
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
}

func split(cs []click, k int) [][]click {
	var out [][]click
	for i := 0; i < k; i++ {
		lo, hi := len(cs)*i/k, len(cs)*(i+1)/k
		if hi > lo {
			out = append(out, cs[lo:hi])
		}
	}
	return out
}

func TestWindowedAggregationMatchesOracle(t *testing.T) {
	const delay = 10 * second
	data := genClicks(6000, 1, 0.05)
	windows := map[string]windowSpec{
		"tumbling": {size: 60 * second, slide: 60 * second},
		"sliding":  {size: 60 * second, slide: 20 * second},
	}
	modes := []millrace.OutputMode{millrace.Append, millrace.Update, millrace.Complete}
	for wname, w := range windows {
		for _, mode := range modes {
			for _, k := range []int{1, 10, 1000} {
				if testing.Short() && k == 1000 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%d-triggers", wname, mode, k), func(t *testing.T) {
					chunks := split(data, k)
					want, wantDropped := oracle(chunks, w, mode, delay)
					got, dropped := runClicks(t, chunks, w, mode, time.Duration(delay)*time.Microsecond)
					if len(got) != len(want) {
						t.Fatalf("engine ran %d batches, oracle %d", len(got), len(want))
					}
					for i := range want {
						if d := testutil.Diff(got[i], want[i]); d != "" {
							t.Fatalf("batch %d: %s", i, d)
						}
					}
					if dropped != wantDropped {
						t.Fatalf("numRowsDroppedByWatermark = %d, oracle says %d", dropped, wantDropped)
					}
					if mode != millrace.Complete && wantDropped == 0 && k > 1 {
						t.Fatalf("test data has no late rows; the test checks nothing about lateness")
					}
				})
			}
		}
	}
}

func runClicks(t *testing.T, chunks [][]click, w windowSpec, mode millrace.OutputMode, delay time.Duration) ([][][]any, int64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
	rec := testutil.NewRecorder()
	s := millrace.ReadStream(src).
		WithWatermark("event_time", delay).
		GroupBy(w.column(), millrace.Col("campaign")).
		Agg(
			millrace.Count().As("n"),
			millrace.Count(millrace.Col("amount")).As("n_amount"),
			millrace.Sum(millrace.Col("amount")).As("total"),
			millrace.Min(millrace.Col("user")).As("min_user"),
			millrace.Max(millrace.Col("amount")).As("max_amount"),
			millrace.Avg(millrace.Col("amount")).As("avg_amount"),
			millrace.CountDistinct(millrace.Col("user")).As("users"),
		)
	ctx := context.Background()
	counter := &dropCounter{}
	q, err := s.WriteStream(rec).OutputMode(mode).Allocator(mem).StatePartitions(4).Listener(counter).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, ctx, q, src, chunks)
	_, batches := rec.Batches()
	return batches, counter.dropped.Load()
}

// dropCounter sums numRowsDroppedByWatermark over every progress event.
type dropCounter struct{ dropped atomic.Int64 }

func (d *dropCounter) OnQueryStarted(id, runID, name string) {}
func (d *dropCounter) OnQueryProgress(p *millrace.Progress) {
	for _, op := range p.StateOperators {
		d.dropped.Add(op.NumRowsDroppedByWatermark)
	}
}
func (d *dropCounter) OnQueryTerminated(id, runID string, err error) {}
