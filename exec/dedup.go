package exec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// dedupOperator is dropDuplicates and dropDuplicatesWithinWatermark. Each
// state partition keeps a hash table of the keys seen and, per key, the
// event time after which it may be forgotten. A row passes when its key is
// new: within a batch the first row of a key wins, because group ids are
// handed out in row order, so a row is first exactly when its group id is
// the next new id.
type dedupOperator struct {
	node   *plan.Deduplicate
	inSch  *arrow.Schema
	keyIdx []int
	// tsIdx is the event-time column, or -1.
	tsIdx int
	// expires says whether keys expire: within-watermark, or an event-time
	// column among the keys.
	expires bool
	delayUs int64

	keyTypes []arrow.DataType
	parts    []*dedupPartition
	durable  bool
	mem      memory.Allocator
}

type dedupPartition struct {
	ht     *agg.HashTable
	expiry []int64 // per group: forget the key once the watermark reaches it
	out    []arrow.RecordBatch
	// changes of the running batch, for the durable store
	changes partChanges
	newFrom int // first group id created in this batch
}

func newDedupOperator(n *plan.Deduplicate, partitions int, mem memory.Allocator) (*dedupOperator, error) {
	s := n.Input.Schema()
	d := &dedupOperator{node: n, inSch: s, tsIdx: -1, mem: mem}
	for _, k := range n.Keys {
		i, err := columnar.FieldIndex(s, k)
		if err != nil {
			return nil, err
		}
		d.keyIdx = append(d.keyIdx, i)
		d.keyTypes = append(d.keyTypes, s.Field(i).Type)
	}
	if n.EventTime != "" {
		d.tsIdx, _ = columnar.FieldIndex(s, n.EventTime)
		delay, _ := plan.WatermarkDelay(s.Field(d.tsIdx))
		d.delayUs = delay.Microseconds()
		inKeys := false
		for _, i := range d.keyIdx {
			inKeys = inKeys || i == d.tsIdx
		}
		d.expires = n.WithinWatermark || inKeys
		if !n.WithinWatermark {
			d.delayUs = 0 // the key holds the event time itself
		}
	}
	for p := 0; p < partitions; p++ {
		ht, err := agg.NewHashTable(d.keyTypes)
		if err != nil {
			return nil, fmt.Errorf("dropDuplicates: %w", err)
		}
		d.parts = append(d.parts, &dedupPartition{ht: ht})
	}
	return d, nil
}

// release frees output not yet handed over (a failed batch).
func (d *dedupOperator) release() {
	for _, dp := range d.parts {
		for _, r := range dp.out {
			r.Release()
		}
		dp.out = nil
	}
}

func (d *dedupOperator) name() string {
	if d.node.WithinWatermark {
		return "dedupeWithinWatermark"
	}
	return "dedupe"
}
func (d *dedupOperator) inputSchema() *arrow.Schema { return d.inSch }
func (d *dedupOperator) numPartitions() int         { return len(d.parts) }

// outputWatermark passes the input watermark on.
func (d *dedupOperator) outputWatermark(inUs int64) (int64, bool) { return inUs, true }

func (d *dedupOperator) closesByWatermark() bool { return true } // its late rows move with it
func (d *dedupOperator) enableDurability()       { d.durable = true }

func (d *dedupOperator) fingerprint() operatorFingerprint {
	op := operatorFingerprint{Operator: d.name()}
	for i, k := range d.node.Keys {
		op.Keys = append(op.Keys, fmt.Sprintf("%s: %s", k, columnar.TypeName(d.keyTypes[i])))
	}
	return op
}

// prepare drops late rows and routes the rest by key. Rows are late on a
// watermarked input whatever the keys, as in Spark (its
// StreamingDeduplicateExec filters by the input's event-time column); only
// forgetting keys needs the event time among them (or within-watermark).
func (d *dedupOperator) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	sel := b.Sel
	if d.tsIdx >= 0 && t.watermarkUs != noWatermark {
		// a row without event time is never late
		kept, err := out.notLate(t, b.Rec.Column(d.tsIdx), t.watermarkUs, b.Sel, true)
		if err != nil {
			return err
		}
		if err := out.dropLate(t, b.Rec, b.Sel, kept, late); err != nil {
			return err
		}
		sel = kept
	}
	t.keys = columnsOf(b.Rec, d.keyIdx, t.keys)
	out.route(t, len(d.parts), b.Rec, t.keys, sel)
	return nil
}

// update keeps the first row of every new key in partition p.
func (d *dedupOperator) update(p int, inputs []*shuffled) error {
	dp := d.parts[p]
	dp.newFrom = dp.ht.Len()
	var groups []uint32
	for _, in := range inputs {
		if in.parts == nil {
			continue
		}
		for _, b := range in.parts[p] {
			keys := columnsOf(b.Rec, d.keyIdx, nil)
			next := uint32(dp.ht.Len())
			var err error
			groups, err = dp.ht.Lookup(keys, b.Sel, groups, true)
			if err != nil {
				return fmt.Errorf("dropDuplicates partition %d: %w", p, err)
			}
			var ts []int64
			var tsArr *array.Timestamp
			if d.tsIdx >= 0 {
				tsArr = b.Rec.Column(d.tsIdx).(*array.Timestamp)
				ts = timestampValues(tsArr)
			}
			first := make([]int32, 0, len(groups))
			for i, g := range groups {
				if g != next {
					continue
				}
				next++
				r := rowOf(b.Sel, i)
				first = append(first, r)
				exp := d.expiryOf(ts, tsArr, r)
				dp.expiry = append(dp.expiry, exp)
			}
			if len(first) > 0 {
				dp.out = append(dp.out, kernels.Compact(d.mem, columnar.Batch{Rec: b.Rec, Sel: first}))
			}
		}
	}
	return nil
}

// expiryOf is the event time at which the key of row r may be forgotten.
// Without event time a key is never forgotten. A null event time counts as
// time 0 within the watermark, as in Spark (its state reads the null as 0),
// so such a key expires at the first watermark past the delay; among
// dropDuplicates' keys a null time never compares true with the watermark
// in Spark either, so that key is never forgotten.
func (d *dedupOperator) expiryOf(ts []int64, tsArr *array.Timestamp, r int32) int64 {
	switch {
	case ts == nil:
		return math.MaxInt64
	case tsArr.IsValid(int(r)):
		return ts[r] + d.delayUs
	case d.node.WithinWatermark:
		return d.delayUs
	}
	return math.MaxInt64
}

// emit returns the rows that passed and forgets keys the watermark closed.
func (d *dedupOperator) emit(mem memory.Allocator, p int, watermarkUs int64) ([]arrow.RecordBatch, int64, int64, error) {
	dp := d.parts[p]
	out := dp.out
	dp.out = nil
	added := int64(dp.ht.Len() - dp.newFrom)
	if d.durable && added > 0 {
		groups := make([]uint32, 0, added)
		for g := dp.newFrom; g < dp.ht.Len(); g++ {
			groups = append(groups, uint32(g))
		}
		keys, err := d.encodeKeys(dp, groups)
		if err != nil {
			return nil, 0, 0, err
		}
		dp.changes.putKeys = append(dp.changes.putKeys, keys...)
		for _, g := range groups {
			dp.changes.putVals = append(dp.changes.putVals, binary.BigEndian.AppendUint64(nil, uint64(dp.expiry[g])))
		}
	}
	var removed int64
	if d.expires { // at watermark 0 too: a key that expires at 0 goes, as in Spark
		keep := make([]bool, dp.ht.Len())
		var gone []uint32
		for g, e := range dp.expiry {
			keep[g] = e > watermarkUs
			if !keep[g] {
				gone = append(gone, uint32(g))
			}
		}
		if len(gone) > 0 {
			if d.durable {
				keys, err := d.encodeKeys(dp, gone)
				if err != nil {
					return nil, 0, 0, err
				}
				dp.changes.delKeys = append(dp.changes.delKeys, keys...)
			}
			dp.ht.Compact(keep)
			kept := dp.expiry[:0]
			for g, e := range dp.expiry {
				if keep[g] {
					kept = append(kept, e)
				}
			}
			dp.expiry = kept
			removed = int64(len(gone))
		}
	}
	return out, added, removed, nil
}

func (d *dedupOperator) encodeKeys(dp *dedupPartition, groups []uint32) ([][]byte, error) {
	return encodeGroupKeys(dp.ht, groups)
}

func (d *dedupOperator) takeChanges(p int) partChanges {
	return d.parts[p].changes.take()
}

func (d *dedupOperator) snapshot(p int) ([][]byte, [][]byte, error) {
	dp := d.parts[p]
	n := dp.ht.Len()
	if n == 0 {
		return nil, nil, nil
	}
	groups := make([]uint32, n)
	for g := range groups {
		groups[g] = uint32(g)
	}
	keys, err := d.encodeKeys(dp, groups)
	if err != nil {
		return nil, nil, err
	}
	vals := make([][]byte, n)
	for g := range vals {
		vals[g] = binary.BigEndian.AppendUint64(nil, uint64(dp.expiry[g]))
	}
	return keys, vals, nil
}

func (d *dedupOperator) load(p int, keys, vals [][]byte) error {
	dp := d.parts[p]
	dp.ht.Reset()
	dp.expiry = dp.expiry[:0]
	if len(keys) == 0 {
		return nil
	}
	for _, v := range vals {
		if len(v) != 8 {
			return fmt.Errorf("bad dropDuplicates state value of %d bytes", len(v))
		}
		dp.expiry = append(dp.expiry, int64(binary.BigEndian.Uint64(v)))
	}
	return withDecodedKeys(keys, d.keyTypes, func(cols []arrow.Array) error {
		_, err := dp.ht.Lookup(cols, nil, nil, true)
		return err
	})
}

func (d *dedupOperator) partitionRows(p int) (int64, int64) {
	dp := d.parts[p]
	return int64(dp.ht.Len()), dp.ht.MemoryUsage() + int64(cap(dp.expiry))*8
}
