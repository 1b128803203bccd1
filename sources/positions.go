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
