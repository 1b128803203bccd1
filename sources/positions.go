package sources

import (
	"encoding/json"
	"fmt"
)

// Generated sources (clicks, the Nexmark generator) number their records
// 0, 1, 2, … and need no storage: their offset is the count of records
// before it, written {"events":N}.

type countOffset struct {
	Events int64 `json:"events"`
}

// EncodeCount returns the offset after the first n records.
func EncodeCount(n int64) Offset {
	b, _ := json.Marshal(countOffset{Events: n})
	return Offset(b)
}

// DecodeCount parses an offset written by EncodeCount; source names the
// source in the error.
func DecodeCount(source string, o Offset) (int64, error) {
	var off countOffset
	if err := json.Unmarshal([]byte(o), &off); err != nil {
		return 0, fmt.Errorf("%s: bad offset %q: %w", source, o, err)
	}
	if off.Events < 0 {
		return 0, fmt.Errorf("%s: bad offset %q: negative event count", source, o)
	}
	return off.Events, nil
}

// SplitRange splits positions [from, to) into at most parts contiguous,
// non-empty ranges of near-equal size, in order.
func SplitRange(from, to int64, parts int) [][2]int64 {
	n, p := to-from, int64(parts)
	var out [][2]int64
	for i := int64(0); i < p; i++ {
		lo, hi := from+n*i/p, from+n*(i+1)/p
		if hi > lo {
			out = append(out, [2]int64{lo, hi})
		}
	}
	return out
}

// DecodeCountRange decodes the range (start, end] of a generated source
// and rejects one that runs backwards; source names the source in errors.
func DecodeCountRange(source string, start, end Offset) (from, to int64, err error) {
	if from, err = DecodeCount(source, start); err != nil {
		return 0, 0, err
	}
	if to, err = DecodeCount(source, end); err != nil {
		return 0, 0, err
	}
	if to < from {
		return 0, 0, fmt.Errorf("%s: end offset %d before start %d", source, to, from)
	}
	return from, to, nil
}

// NextCount returns the end of the next batch of a generated source that
// has read from records of available: available, bounded by from plus each
// positive limit (MaxEventsPerTrigger, ReadLimit.MaxRows).
func NextCount(from, available int64, limits ...int64) int64 {
	end := available
	for _, lim := range limits {
		if lim > 0 {
			end = min(end, from+lim)
		}
	}
	return end
}
