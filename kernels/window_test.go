package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func TestDivisor(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ds := []uint64{2, 3, 7, 10, 1000, 1 << 20, 3_600_000_000, 86_400_000_000, math.MaxInt64, 1 << 62}
	for i := 0; i < 50; i++ {
		ds = append(ds, (rng.Uint64()>>(1+rng.IntN(63)))|2)
	}
	ns := []uint64{0, 1, 2, 1<<63 - 1, 1<<63 - 2, 1 << 62}
	for _, d := range ds {
		dv := newDivisor(d)
		for _, n := range ns {
			if got := dv.mod(n); got != n%d {
				t.Fatalf("%d mod %d: got %d want %d", n, d, got, n%d)
			}
		}
		for i := 0; i < 1000; i++ {
			n := rng.Uint64() >> (1 + rng.IntN(63))
			if got := dv.mod(n); got != n%d {
				t.Fatalf("%d mod %d: got %d want %d", n, d, got, n%d)
			}
		}
	}
}

var windowParams = []struct{ size, slide, offset int64 }{
	{10_000_000, 10_000_000, 0},
	{10_000_000, 5_000_000, 0},
	{10_000_000, 3_000_000, 1_000_000},
	{7, 7, -3},
	{1, 1, 0},
	{60_000_000, 60_000_000, 15_000_000},
	{5_000_000, 10_000_000, 0}, // gaps between windows
	{3_600_000_000, 60_000_000, 0},
}

func TestTumblingWindow(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.nullProb > 0 || c.sliced {
			return // plain []int64 input: no nulls or slices at this level
		}
		ts := make([]int64, c.n)
		for i := range ts {
			ts[i] = rng.Int64N(1<<50) - 1<<49
		}
		sel := randSel(rng, c.n, c.withSel)
		var out []int64
		for _, p := range windowParams {
			out = TumblingWindow(ts, sel, p.size, p.offset, out)
			for i, r := range live(sel, c.n) {
				v := ts[r]
				want := v - floorMod(v-p.offset, p.size)
				if out[i] != want {
					t.Fatalf("ts=%d size=%d offset=%d: got %d want %d", v, p.size, p.offset, out[i], want)
				}
			}
		}
	})
}

func TestSlidingWindow(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.nullProb > 0 || c.sliced || c.n > 1024 {
			return
		}
		ts := make([]int64, c.n)
		for i := range ts {
			ts[i] = rng.Int64N(1<<40) - 1<<39
		}
		sel := randSel(rng, c.n, c.withSel)
		var rows []int32
		var starts []int64
		for _, p := range windowParams {
			rows, starts = SlidingWindow(ts, sel, p.size, p.slide, p.offset, rows, starts)
			var wantRows []int32
			var wantStarts []int64
			for _, r := range live(sel, c.n) {
				v := ts[r]
				// Every start ≡ offset (mod slide) with start <= v < start+size,
				// latest first.
				last := v - floorMod(v-p.offset, p.slide)
				for s := last; s > v-p.size; s -= p.slide {
					wantRows = append(wantRows, r)
					wantStarts = append(wantStarts, s)
				}
			}
			sameInt32s(t, "rows", rows, wantRows)
			for j := range starts {
				if starts[j] != wantStarts[j] {
					t.Fatalf("window %d: start %d want %d", j, starts[j], wantStarts[j])
				}
			}
		}
	})
}
