package kernels

import (
	"math/bits"
	"sync"
)

var startScratch = sync.Pool{New: func() any { return new([]int64) }}

// divisor divides non-negative integers below 2^63 by a fixed d >= 2 with
// a multiply and a shift instead of a hardware divide (Granlund &
// Montgomery, "Division by invariant integers using multiplication",
// theorem 4.2 with N = 63: m = floor(2^(63+l)/d) + 1 fits in 64 bits, and
// q = hi64(m*n) >> (l-1)). Window assignment divides every row by the same
// size; a 64-bit DIV costs tens of cycles where this costs about three.
type divisor struct {
	d  uint64
	m  uint64
	sh uint
}

func newDivisor(d uint64) divisor {
	l := uint(bits.Len64(d - 1)) // ceil(log2 d) >= 1 for d >= 2
	m, _ := bits.Div64(uint64(1)<<(l-1), 0, d)
	return divisor{d: d, m: m + 1, sh: l - 1}
}

// div returns n / d for n < 2^63.
func (v divisor) div(n uint64) uint64 {
	hi, _ := bits.Mul64(v.m, n)
	return hi >> (v.sh & 63)
}

// mod returns n mod d for n < 2^63.
func (v divisor) mod(n uint64) uint64 { return n - v.div(n)*v.d }

// windowBias is a multiple of size near 2^61. Adding it to ts-offset makes
// the dividend non-negative (which gives floor semantics for times before
// the epoch or offset) and keeps it below 2^63 for |ts-offset| < 2^61 µs
// (about 73,000 years).
func windowBias(size int64) uint64 {
	return uint64((int64(1) << 61) / size * size)
}

// windowStarts writes the start of the window of size d (and offset) that
// contains each live ts to out; it is the shared loop of both window kinds.
func windowStarts(ts []int64, sel []int32, size, offset int64, out []int64) {
	if size == 1 {
		if sel == nil {
			copy(out, ts)
			return
		}
		for i, r := range sel {
			out[i] = ts[r]
		}
		return
	}
	dv := newDivisor(uint64(size))
	// start = floor((ts-offset+B)/size)*size - B + offset; fold the constants.
	bias := windowBias(size) - uint64(offset)
	if sel == nil {
		out = out[:len(ts)]
		for i, t := range ts {
			out[i] = int64(dv.div(uint64(t)+bias)*dv.d - bias)
		}
		return
	}
	out = out[:len(sel)]
	for i, r := range sel {
		out[i] = int64(dv.div(uint64(ts[r])+bias)*dv.d - bias)
	}
}

// TumblingWindow writes the start of the tumbling window of each live row
// (ts[sel[i]], or ts[i] when sel is nil) to out[i]:
//
//	start = ts - floorMod(ts - offset, size)
//
// the same as Spark's window(ts, size, size, offset). size must be > 0;
// timestamps must lie within ±2^62 of offset.
func TumblingWindow(ts []int64, sel []int32, size, offset int64, out []int64) []int64 {
	out = growInt64(out, liveCount(sel, len(ts)))
	windowStarts(ts, sel, size, offset, out)
	return out
}

// SlidingWindow expands each live row into the sliding windows
// [start, start+size) that contain it, where start - offset is a multiple of
// slide. For output j, outRows[j] is the source row index and outStarts[j]
// the window start. Rows appear in input order; the windows of one row
// appear latest start first (as Spark's expansion does). A row belongs to at
// most ceil(size/slide) windows; size and slide must be > 0 and need not
// divide each other.
func SlidingWindow(ts []int64, sel []int32, size, slide, offset int64, outRows []int32, outStarts []int64) ([]int32, []int64) {
	k := int((size + slide - 1) / slide)
	live := liveCount(sel, len(ts))
	outRows = growInt32(outRows, live*k)
	outStarts = growInt64(outStarts, live*k)
	// lasts holds each live row's latest window start (reusing outStarts'
	// tail would alias the output, so the starts go to a pooled scratch).
	sp := startScratch.Get().(*[]int64)
	lasts := growInt64(*sp, live)
	windowStarts(ts, sel, slide, offset, lasts)
	n := 0
	if sel == nil {
		for i, t := range ts {
			n = expandWindows(int32(i), t, lasts[i], size, slide, k, n, outRows, outStarts)
		}
	} else {
		for i, r := range sel {
			n = expandWindows(r, ts[r], lasts[i], size, slide, k, n, outRows, outStarts)
		}
	}
	*sp = lasts
	startScratch.Put(sp)
	return outRows[:n], outStarts[:n]
}

// expandWindows writes the k candidate windows of one row at position n
// and keeps those that contain t; it returns the new length.
func expandWindows(row int32, t, last, size, slide int64, k, n int, outRows []int32, outStarts []int64) int {
	s := last
	for j := 0; j < k; j++ {
		outRows[n] = row
		outStarts[n] = s
		n += b2i(t < s+size)
		s -= slide
	}
	return n
}
