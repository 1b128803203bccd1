package exec

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/sinks"
)

// The shuffle: the half of the prepare phase every stateful operator shares.
//
// A stateful operator's prepare (stateful.prepare) runs in an input task,
// batch by batch, and does three things, the first its own and the other
// two through this file:
//
//  1. It evaluates what its state needs — keys, window starts, aggregate
//     arguments — into one record, the keyed record, and decides which of
//     its rows are live (not late, not null where nulls belong nowhere).
//  2. shuffled.dropLate counts the rows it found late and hands them to the
//     late-data sink. shuffled.notLate is the usual test: event time after
//     the task's late watermark.
//  3. shuffled.route splits the live rows of the keyed record among the
//     state partitions by the hash of its key columns.
//
// Selections handed to route and dropLate may be scratch: route copies the
// rows it keeps into selections that last until the end of the trigger.
// Buffers come from the task's scratch (scratch.go), which the query reuses
// from trigger to trigger, so a steady-state trigger allocates no selection
// vectors, hashes or window starts of its own.

// shuffled is what one input task hands to the update phase of one
// stateful operator: per state partition, the keyed batches routed there,
// in order.
type shuffled struct {
	parts   [][]columnar.Batch
	dropped int64
	// side says, for a two-input operator (a stream-stream join), which
	// input each batch of parts came from (0 left, 1 right).
	side [][]int8
}

// release drops the references to the routed records and empties the
// shuffle, keeping its buffers for the next trigger.
func (s *shuffled) release() {
	for p, bs := range s.parts {
		for i, b := range bs {
			b.Release()
			bs[i] = columnar.Batch{}
		}
		s.parts[p] = bs[:0]
		s.side[p] = s.side[p][:0]
	}
	s.dropped = 0
}

// lateRouter receives rows dropped by the watermark when a late-data sink
// is configured.
type lateRouter struct {
	mu sync.Mutex
	w  sinks.BatchWriter
}

// notLate returns the rows of sel (every row when nil) whose event time col
// is after bound. Rows with a null event time are kept when keepNulls
// (they are never late), dropped otherwise. The result is scratch.
func (s *shuffled) notLate(t *task, col arrow.Array, bound int64, sel []int32, keepNulls bool) ([]int32, error) {
	n := liveRows(sel, col.Len())
	kept, err := kernels.CompareScalar(kernels.Gt, col, bound, sel, t.sels.take(n))
	if err != nil {
		return nil, err
	}
	if keepNulls && col.NullN() > 0 {
		nulls := kernels.SelectNull(col, sel, t.sels.take(n))
		kept = kernels.Union(kept, nulls, t.sels.take(len(kept)+len(nulls)))
	}
	return kept, nil
}

// dropLate counts the rows of live (every row of rec when nil) that are not
// in kept as dropped by the watermark, and writes them to the late-data
// sink when there is one (late not nil). live and kept are sorted and kept
// is a subset of live.
func (s *shuffled) dropLate(t *task, rec arrow.RecordBatch, live, kept []int32, late *lateRouter) error {
	n := liveRows(live, int(rec.NumRows()))
	dropped := n - len(kept)
	if dropped == 0 {
		return nil
	}
	s.dropped += int64(dropped)
	if late == nil {
		return nil
	}
	if live == nil {
		live = columnar.Identity(t.sels.take(n), n)
	}
	rows := kernels.Difference(live, kept, t.sels.take(n))
	dense := kernels.Compact(t.mem, columnar.Batch{Rec: rec, Sel: rows})
	defer dense.Release()
	late.mu.Lock()
	defer late.mu.Unlock()
	return late.w.Write(t.ctx, dense)
}

// route splits the live rows sel (every row when nil) of keyed among the p
// state partitions by the hash of keys (columns of keyed; none: everything
// to partition 0) and appends them to the task's side of the shuffle. It
// takes a reference to keyed for each partition it routes rows to.
func (s *shuffled) route(t *task, p int, keyed arrow.RecordBatch, keys []arrow.Array, sel []int32) {
	if len(s.parts) != p {
		s.parts = make([][]columnar.Batch, p)
		s.side = make([][]int8, p)
	}
	if sel != nil && len(sel) == 0 {
		return
	}
	if p == 1 || len(keys) == 0 {
		s.add(0, keyed, t.sels.keep(sel), t.side)
		return
	}
	// a counting sort of the rows by partition: sizes first, then each
	// partition's rows in order, in one piece of the task's arena
	sc := &t.scratch
	sc.hashes = kernels.HashColumns(keys, sel, sc.hashes)
	sc.partOf = grow(sc.partOf, len(sc.hashes))
	sc.counts = grow(sc.counts, p)
	clear(sc.counts)
	for i, h := range sc.hashes {
		part := int32(partitionOf(h, p))
		sc.partOf[i] = part
		sc.counts[part]++
	}
	all := t.sels.take(len(sc.hashes))[:len(sc.hashes)]
	sc.next = grow(sc.next, p)
	off := int32(0)
	for part, c := range sc.counts {
		sc.next[part] = off
		off += c
	}
	for i, part := range sc.partOf {
		all[sc.next[part]] = rowOf(sel, i)
		sc.next[part]++
	}
	off = 0
	for part, c := range sc.counts {
		if c > 0 {
			s.add(part, keyed, all[off:off+c:off+c], t.side)
		}
		off += c
	}
}

func (s *shuffled) add(part int, keyed arrow.RecordBatch, sel []int32, side int8) {
	keyed.Retain()
	s.parts[part] = append(s.parts[part], columnar.Batch{Rec: keyed, Sel: sel})
	s.side[part] = append(s.side[part], side)
}

// rowOf is the row of a batch with selection sel at live position i.
func rowOf(sel []int32, i int) int32 {
	if sel == nil {
		return int32(i)
	}
	return sel[i]
}

// columnsOf returns the columns idx of rec, in buf.
func columnsOf(rec arrow.RecordBatch, idx []int, buf []arrow.Array) []arrow.Array {
	buf = grow(buf, len(idx))
	for i, k := range idx {
		buf[i] = rec.Column(k)
	}
	return buf
}

// liveRows is the number of live rows of a batch of n rows with selection
// sel.
func liveRows(sel []int32, n int) int {
	if sel == nil {
		return n
	}
	return len(sel)
}

// partitionOf maps a key hash to one of p state partitions. It uses the
// high bits so that it stays independent of the hash table's use of the low
// bits.
func partitionOf(h uint64, p int) int {
	return int((h >> 32) * uint64(p) >> 32)
}
