package join

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/kernels"
)

// Evict removes the buffered rows whose event time is below before (and
// every row that cannot match) and returns them, in arrival order, as a
// record of the buffer's schema with their matched flags: an outer join
// emits the unmatched ones with nulls for the other side. rec is nil when
// no row was evicted; otherwise the caller releases it.
//
// Row numbers are renumbered densely (survivors keep their relative order),
// so row numbers held across an Evict are invalid. Chunks that lose every
// row are released, chunks that lose some are copied down to their
// survivors, others are kept as they are.
func (b *Buffer) Evict(before int64) (rec arrow.RecordBatch, matched []bool) {
	if before > b.evictBound {
		b.evictBound = before
	}
	if b.minTime >= before || len(b.times) == 0 {
		return nil, nil
	}
	var gone, keep []int32
	for r, t := range b.times {
		if t < before {
			gone = append(gone, int32(r))
		} else {
			keep = append(keep, int32(r))
		}
	}
	rec = b.Gather(b.mem, gone)
	matched = make([]bool, len(gone))
	for i, r := range gone {
		matched[i] = b.matched[r]
	}
	b.compact(keep)
	return rec, matched
}

// compact keeps the rows keep (ascending) and rebuilds the index.
func (b *Buffer) compact(keep []int32) {
	// Chunks: drop, keep or copy down.
	var chunks []arrow.RecordBatch
	starts := []int32{0}
	remap := make([]uint32, len(b.chunks)) // old chunk -> new chunk
	k := 0
	for c, rec := range b.chunks {
		lo, hi := b.chunkStart[c], b.chunkStart[c+1]
		j := k
		for j < len(keep) && keep[j] < hi {
			j++
		}
		switch n := j - k; {
		case n == 0:
			rec.Release()
		case int32(n) == hi-lo:
			remap[c] = uint32(len(chunks))
			chunks = append(chunks, rec)
			starts = append(starts, starts[len(starts)-1]+int32(n))
		default:
			local := make([]int32, n)
			for i, r := range keep[k:j] {
				local[i] = r - lo
			}
			cols := make([]arrow.Array, rec.NumCols())
			for i := range cols {
				cols[i] = kernels.Take(b.mem, rec.Column(i), local)
			}
			remap[c] = uint32(len(chunks))
			chunks = append(chunks, Assemble(b.schema, n, cols))
			starts = append(starts, starts[len(starts)-1]+int32(n))
			rec.Release()
		}
		k = j
	}
	b.chunks, b.chunkStart = chunks, starts

	// Per-row arrays, in place (keep is ascending, so writes trail reads).
	for i, r := range keep {
		b.times[i] = b.times[r]
		b.key[i] = b.key[r]
		b.matched[i] = b.matched[r]
		b.ids[i] = b.ids[r]
		b.chunkOf[i] = remap[b.chunkOf[r]]
		b.next[i] = -1
	}
	b.truncateRows(len(keep))

	// Keys: drop the key ids left without rows once they are a quarter of
	// the table, so that the slot array tracks the live keys.
	nk := b.ht.Len()
	live := make([]bool, nk)
	for _, g := range b.key {
		if g != agg.NoGroup {
			live[g] = true
		}
	}
	nlive := 0
	for _, l := range live {
		if l {
			nlive++
		}
	}
	if nk-nlive > nk/4 {
		newID := make([]uint32, nk)
		id := uint32(0)
		for g, l := range live {
			newID[g] = id
			if l {
				id++
			}
		}
		b.ht.Compact(live)
		for i, g := range b.key {
			if g != agg.NoGroup {
				b.key[i] = newID[g]
			}
		}
		nk = int(id)
		b.first, b.last = b.first[:nk], b.last[:nk]
	}
	for g := range b.first {
		b.first[g], b.last[g] = -1, -1
	}
	b.liveKeys = 0
	b.minTime = math.MaxInt64
	b.link(0, len(b.times))
}

// Retain keeps only the buffered rows keep (ascending row numbers) and
// drops the others without returning them: rows the caller knows can never
// match (exec's dominance pruning). Row numbers are renumbered as by Evict.
// The changelog does not record the removal: a state restored from
// snapshots and changes taken before it still holds the dropped rows,
// which is harmless only because they can never match; a caller whose
// dropped rows could match or be emitted unmatched must use Evict.
func (b *Buffer) Retain(keep []int32) {
	if len(keep) == len(b.times) {
		return
	}
	b.compact(keep)
}
