package sparkdiff

import (
	"fmt"
	"math/rand"
)

// base is the origin of generated event times: 2023-11-14 21:00:00 UTC, a
// whole hour (so windows of any size used here start on it) and far from
// the epoch (Spark treats a watermark of 0 as "none yet").
const base = int64(1_699_995_600) * 1_000_000

const ms = int64(1000) // microseconds per millisecond

// GenOptions change what the generator draws.
type GenOptions struct {
	// AvoidDepartures keeps out of the input what triggers Millrace's
	// documented departures from Spark (docs/ARCHITECTURE.md): no null event
	// time on a side of an outer stream-stream join whose unmatched rows
	// are emitted (Spark never emits such a row; Millrace does), and no
	// null key on the right side of a full outer join (so no null key can
	// meet a null key, which Spark's streaming join matches). Everything
	// else is drawn as without it, so a failure in such a run is a
	// difference from Spark.
	AvoidDepartures bool
}

// Generate makes the case of combo for seed: the query's parameters and its
// input, both drawn from a generator seeded by (combo, seed) so that a case
// is reproduced from its name alone.
func Generate(combo Combo, seed int64) *Case { return GenerateWith(combo, seed, GenOptions{}) }

// GenerateWith is Generate with options; the options are part of the name.
func GenerateWith(combo Combo, seed int64, opt GenOptions) *Case {
	r := rand.New(rand.NewSource(seed*1_000_003 + int64(hashString(combo.String()))))
	c := &Case{Op: combo.Op, Mode: combo.Mode, Join: combo.Join, Seed: seed}
	c.Name = fmt.Sprintf("%s/seed=%d", combo, seed)
	if opt.AvoidDepartures {
		c.Name = fmt.Sprintf("%s/no-departures/seed=%d", combo, seed)
	}
	c.KeyType = pick(r, "long", "string")
	c.DelayMs = pick(r, int64(0), 2000, 5000, 10000)
	c.Watermark = true
	switch c.Op {
	case OpWindow, OpDedupWindow:
		c.SizeMs = pick(r, int64(5000), 10000)
		c.SlideMs = c.SizeMs
		if c.Mode != "append" {
			c.Watermark = r.Float64() < 0.8
		}
	case OpSliding:
		w := pick(r, [2]int64{10000, 5000}, [2]int64{10000, 2000}, [2]int64{6000, 3000})
		c.SizeMs, c.SlideMs = w[0], w[1]
		if c.Mode != "append" {
			c.Watermark = r.Float64() < 0.8
		}
	case OpGroupBy, OpDedupKey, OpStaticJoin:
		c.Watermark = r.Float64() < 0.5
	case OpSession:
		c.GapMs = pick(r, int64(3000), 5000)
	case OpJoin, OpJoinWindow:
		c.DelayMs = pick(r, int64(0), 2000, 5000)
		c.RightDelayMs = pick(r, int64(0), 3000, 5000)
		c.LowerMs = pick(r, int64(-5000), -2000, 0)
		c.UpperMs = pick(r, int64(0), 3000, 5000)
		if c.Op == OpJoinWindow {
			c.SizeMs = pick(r, int64(5000), 10000)
		}
	}
	g := &gen{r: r, c: c, last: map[any]int64{}, avoid: opt.AvoidDepartures}
	n := 3 + r.Intn(6)
	two := c.Op == OpJoin || c.Op == OpJoinWindow
	for i := 0; i < n; i++ {
		g.cur += pick(r, int64(0), 1000, 3000, 5000, 10000, 20000) * ms
		var t Trigger
		t.Left = g.rows(g.rowCount(i == 0), &g.left, nil)
		if two {
			t.Right = g.rows(g.rowCount(i == 0), &g.right, t.Left)
		}
		c.Triggers = append(c.Triggers, t)
	}
	if c.Op == OpStaticJoin {
		for i := 0; i < 2+r.Intn(4); i++ {
			c.Static = append(c.Static, []any{g.key(), g.value()})
		}
	}
	return c
}

type gen struct {
	r    *rand.Rand
	c    *Case
	cur  int64         // the time around which new rows fall (µs since base)
	max  int64         // greatest event time drawn so far (µs since base)
	last map[any]int64 // last event time drawn per key, for session gaps
	// rows drawn so far per stream, for duplicates and join partners
	left, right [][]any
	avoid       bool // GenOptions.AvoidDepartures
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

func hashString(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

func (g *gen) rowCount(first bool) int {
	if g.r.Float64() < 0.15 {
		return 0
	}
	return 1 + g.r.Intn(6)
}

// key draws a key from a small domain (so that keys repeat), or null.
func (g *gen) key() any {
	if g.r.Float64() < 0.08 {
		return nil
	}
	return g.nonNullKey()
}

func (g *gen) nonNullKey() any {
	i := g.r.Intn(3)
	if g.c.KeyType == "string" {
		return string(rune('a' + i))
	}
	return int64(i)
}

func (g *gen) value() any {
	if g.r.Float64() < 0.1 {
		return nil
	}
	return int64(g.r.Intn(26) - 5)
}

// rows draws n rows of one stream. partners are the other stream's rows of
// the same trigger (the left rows, when drawing the right stream of a
// join), so that some right rows fall exactly on the range bounds.
func (g *gen) rows(n int, hist *[][]any, partners [][]any) [][]any {
	out := make([][]any, 0, n)
	for i := 0; i < n; i++ {
		var row []any
		if len(*hist) > 0 && g.r.Float64() < 0.12 {
			// a duplicate of an earlier row, sometimes with another value
			prev := (*hist)[g.r.Intn(len(*hist))]
			row = []any{prev[0], prev[1], prev[2]}
			if g.r.Float64() < 0.5 {
				row[2] = g.value()
			}
		} else {
			k := g.key()
			row = []any{k, g.time(k, hist == &g.right, partners), g.value()}
		}
		if g.avoid {
			g.avoidDepartures(row, hist == &g.right)
		}
		if t, ok := row[1].(int64); ok {
			g.max = max(g.max, t-base)
			g.last[row[0]] = t - base
		}
		out = append(out, row)
		*hist = append(*hist, row)
	}
	return out
}

// time draws an event time: null, late, on a window boundary, one session
// gap after the key's previous event, on a join range bound, exactly at the
// current watermark, or near the current time (now and then with a
// sub-millisecond part).
func (g *gen) time(k any, right bool, partners [][]any) any {
	c, r := g.c, g.r
	delay := c.DelayMs * ms
	unit := max(c.SizeMs, c.SlideMs, c.GapMs, 1000) * ms
	if c.SlideMs > 0 {
		unit = c.SlideMs * ms
	}
	var t int64
	switch p := r.Float64(); {
	case p < 0.06:
		return nil
	case p < 0.20: // late: older than the watermark
		t = g.max - delay - r.Int63n(3*unit) - ms
	case p < 0.40: // a window (slide) boundary
		t = (g.cur + r.Int63n(2*unit) - unit) / unit * unit
	case p < 0.50 && c.GapMs > 0: // one gap after the key's previous event
		if prev, ok := g.last[k]; ok {
			t = prev + c.GapMs*ms
		} else {
			t = g.cur
		}
	case p < 0.55 && c.GapMs > 0: // just less than one gap after
		if prev, ok := g.last[k]; ok {
			t = prev + c.GapMs*ms - pick(r, int64(1), ms)
		} else {
			t = g.cur
		}
	case p < 0.60 && right && len(partners) > 0: // on a range bound of a left row
		l := partners[r.Intn(len(partners))]
		lt, ok := l[1].(int64)
		if !ok {
			return nil
		}
		t = lt - base + pick(r, c.LowerMs, c.UpperMs)*ms
	case p < 0.66: // exactly at the watermark the rows so far give
		t = g.max - delay
	default:
		t = g.cur + r.Int63n(delay+3000*ms) - delay - 1000*ms
		t = t / ms * ms
		if r.Float64() < 0.2 {
			t += 1 + r.Int63n(ms-1)
		}
	}
	return base + t
}

// avoidDepartures rewrites a drawn row of the right (or left) input so
// that it triggers none of the departures (GenOptions.AvoidDepartures).
func (g *gen) avoidDepartures(row []any, right bool) {
	if g.c.Op != OpJoin {
		return
	}
	emits := (!right && (g.c.Join == "left_outer" || g.c.Join == "full_outer")) ||
		(right && (g.c.Join == "right_outer" || g.c.Join == "full_outer"))
	if emits && row[1] == nil {
		row[1] = base + g.cur
	}
	if right && g.c.Join == "full_outer" && row[0] == nil {
		row[0] = g.nonNullKey()
	}
}
