package join

// Matches is the output of a probe: pair i joins probe row ProbeRows[i] with
// build (or buffered) row BuildRows[i]. ProbeRows are record row indices of
// the probe batch (sel[j], or j when the selection is nil), in probe order; a
// probe row with k matches appears k times in a row, its build rows in build
// (arrival) order. BuildRows[i] == -1 marks an unmatched probe row of a left
// outer probe. A probe overwrites both slices (reusing their backing arrays),
// so a caller that keeps one Matches per operator allocates nothing in steady
// state.
type Matches struct {
	ProbeRows []int32
	BuildRows []int32
	// FirstMatched lists, for Buffer.Probe only, the buffered rows that had
	// never matched before this probe and matched in it, each once, in the
	// order they were first met. Left semi joins emit these rows.
	FirstMatched []int32
}

// Len returns the number of pairs.
func (m *Matches) Len() int { return len(m.ProbeRows) }

// Reset empties the matches, keeping their memory.
func (m *Matches) Reset() {
	m.ProbeRows = m.ProbeRows[:0]
	m.BuildRows = m.BuildRows[:0]
	m.FirstMatched = m.FirstMatched[:0]
}

// DistinctProbeRows appends to out[:0] the probe rows that have at least one
// match (BuildRows >= 0), each once, in probe order: the selection of a left
// semi join. The result is never nil.
func (m *Matches) DistinctProbeRows(out []int32) []int32 {
	out = out[:0]
	if out == nil {
		out = make([]int32, 0, 16)
	}
	last := int32(-1)
	for i, p := range m.ProbeRows {
		if m.BuildRows[i] < 0 || p == last {
			continue
		}
		out = append(out, p)
		last = p
	}
	return out
}

func growI32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, max(n, 2*cap(b)))
	}
	return b[:n]
}
