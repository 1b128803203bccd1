package exec_test

import (
	"fmt"
	"strconv"
)

// Shared pieces of the naive oracles: the watermark sequence of a trigger
// sequence as Spark defines it, and aggregate values. The oracles compute
// from plain Go values and never call engine code.

// wmSeq returns the watermarks of a trigger sequence, one ProcessAllAvailable
// per trigger: W[i] is the watermark trigger i's data batch runs with (and
// the one its late rows are judged by, the previous batch's), W[i+1] the one
// the trigger ends with (a no-data batch closes with it when it moved).
// delays[j] is input j's watermark delay in µs, or -1 when input j has no
// watermark. The watermark of a batch is the minimum over watermarked
// inputs of (max event time seen before it − delay), an input without rows
// yet counting as 0, rounded down to whole milliseconds, never moving back.
// tcol is the event-time column of the rows.
func wmSeq(trigs [][][][]any, tcol int, delays []int64) []int64 {
	w := make([]int64, len(trigs)+1)
	maxT := make([]int64, len(delays))
	seen := make([]bool, len(delays))
	for i, tr := range trigs {
		for j, rows := range tr {
			for _, r := range rows {
				if t, ok := r[tcol].(int64); ok {
					if !seen[j] || t > maxT[j] {
						maxT[j] = t
					}
					seen[j] = true
				}
			}
		}
		cand, any := int64(-1), false
		for j, d := range delays {
			if d < 0 {
				continue
			}
			v := int64(0)
			if seen[j] {
				v = maxT[j] - d
			}
			if !any || v < cand {
				cand, any = v, true
			}
		}
		w[i+1] = w[i]
		if any {
			cand = floorDiv(cand, 1000) * 1000
			if cand > w[i+1] {
				w[i+1] = cand
			}
		}
	}
	return w
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// lateRows returns, per trigger, the rows of input 0 that isLate says are
// late for the watermark the trigger's data batch ran with (the late-data
// sink gets them), and their number.
func lateRows(trigs [][][][]any, w []int64, isLate func(r []any, w int64) bool) ([][][]any, []int64) {
	rows := make([][][]any, len(trigs))
	counts := make([]int64, len(trigs))
	for i, tr := range trigs {
		for _, r := range tr[0] {
			if isLate(r, w[i]) {
				rows[i] = append(rows[i], r)
				counts[i]++
			}
		}
	}
	return rows, counts
}

// acc is the naive accumulator of count(*), count(v), sum(v), min(v),
// max(v), avg(v) over int64 values.
type acc struct {
	n, c, s, mn, mx int64
}

func (a *acc) add(v any) {
	a.n++
	x, ok := v.(int64)
	if !ok {
		return
	}
	if a.c == 0 || x < a.mn {
		a.mn = x
	}
	if a.c == 0 || x > a.mx {
		a.mx = x
	}
	a.c++
	a.s += x
}

// values returns n, c, s, mn, mx, avg with nulls where no value was seen.
func (a *acc) values() []any {
	if a.c == 0 {
		return []any{a.n, int64(0), nil, nil, nil, nil}
	}
	return []any{a.n, a.c, a.s, a.mn, a.mx, float64(a.s) / float64(a.c)}
}

// keyOf renders a grouping key as a map key: nil, int64, string and
// []any (a window) are told apart by a tag byte, so nil is distinct from
// every value.
func keyOf(vs ...any) string {
	b := make([]byte, 0, 32)
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case nil:
			b = append(b, 'n')
		case int64:
			b = append(b, 'i')
			b = strconv.AppendInt(b, v, 10)
		case string:
			b = append(b, 's')
			b = strconv.AppendInt(b, int64(len(v)), 10)
			b = append(b, ':')
			b = append(b, v...)
		case []any:
			b = append(b, '[')
			for _, x := range v {
				add(x)
			}
			b = append(b, ']')
		default:
			b = append(b, 'o')
			b = fmt.Append(b, v)
		}
		b = append(b, ',')
	}
	for _, v := range vs {
		add(v)
	}
	return string(b)
}
