package kafka

import "math/bits"

// rateLimit advances each partition of from towards until by at most limit
// records in total, in proportion to each partition's lag: partition i gets
// floor(limit·lag_i/total), and the records left over go one each to the
// partitions with the largest remainders (ties: the earlier in keys order).
// keys lists the partitions in a fixed order; from and until hold every key,
// with until ≥ from.
func rateLimit(keys []tp, from, until offsets, limit int64) offsets {
	var total uint64
	for _, k := range keys {
		total += uint64(until[k] - from[k])
	}
	out := make(offsets, len(keys))
	if limit <= 0 || uint64(limit) >= total {
		for _, k := range keys {
			out[k] = until[k]
		}
		return out
	}
	rems := make([]uint64, len(keys))
	var given uint64
	for i, k := range keys {
		lag := uint64(until[k] - from[k])
		hi, lo := bits.Mul64(uint64(limit), lag)
		q, r := bits.Div64(hi, lo, total) // hi < total since limit < total
		out[k] = from[k] + int64(q)
		rems[i] = r
		given += q
	}
	for left := uint64(limit) - given; left > 0; left-- {
		best := -1
		for i := range keys {
			if rems[i] > 0 && (best < 0 || rems[i] > rems[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out[keys[best]]++
		rems[best] = 0
	}
	return out
}
