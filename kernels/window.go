package kernels

import "math/bits"

// divisor divides unsigned 64-bit integers by a fixed d with a multiply and
// shifts instead of a hardware divide (Granlund & Montgomery, "Division by
// invariant integers using multiplication", figure 4.1). Window assignment
// divides every row by the same window size, and a 64-bit DIV costs tens of
// cycles where this costs a few.
type divisor struct {
	d        uint64
	m        uint64
	sh1, sh2 uint
}

func newDivisor(d uint64) divisor {
	l := uint(bits.Len64(d - 1)) // ceil(log2 d); 0 for d == 1
	var hi uint64
	if l < 64 {
		hi = uint64(1)<<l - d
	} else {
		hi = -d // 2^64 - d
	}
	m, _ := bits.Div64(hi, 0, d)
	dv := divisor{d: d, m: m + 1}
	if l > 0 {
		dv.sh1, dv.sh2 = 1, l-1
	}
	return dv
}

// mod returns n mod d.
func (v divisor) mod(n uint64) uint64 {
	t, _ := bits.Mul64(v.m, n)
	q := (t + (n-t)>>v.sh1) >> v.sh2
	return n - q*v.d
}

// windowBias is a multiple of size, added to ts-offset so that the
// remainder is computed on a non-negative number; that gives floor
// semantics for timestamps before the epoch (or before offset).
func windowBias(size int64) uint64 {
	return uint64((int64(1) << 62) / size * size)
}

// TumblingWindow writes the start of the tumbling window of each live row
// (ts[sel[i]], or ts[i] when sel is nil) to out[i]:
//
//	start = ts - floorMod(ts - offset, size)
//
// the same as Spark's window(ts, size, size, offset). size must be > 0;
// timestamps must lie within ±2^62 of offset.
func TumblingWindow(ts []int64, sel []int32, size, offset int64, out []int64) []int64 {
	dv := newDivisor(uint64(size))
	bias := windowBias(size) - uint64(offset)
	if sel == nil {
		out = growInt64(out, len(ts))
		out = out[:len(ts)]
		for i, t := range ts {
			out[i] = t - int64(dv.mod(uint64(t)+bias))
		}
		return out
	}
	out = growInt64(out, len(sel))
	for i, r := range sel {
		t := ts[r]
		out[i] = t - int64(dv.mod(uint64(t)+bias))
	}
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
	dv := newDivisor(uint64(slide))
	bias := windowBias(slide) - uint64(offset)
	n := 0
	if sel == nil {
		for i, t := range ts {
			last := t - int64(dv.mod(uint64(t)+bias))
			n = expandWindows(int32(i), t, last, size, slide, k, n, outRows, outStarts)
		}
	} else {
		for _, r := range sel {
			t := ts[r]
			last := t - int64(dv.mod(uint64(t)+bias))
			n = expandWindows(r, t, last, size, slide, k, n, outRows, outStarts)
		}
	}
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
