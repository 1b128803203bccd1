package exec

import (
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/join"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// Dominance pruning of window-join-back plans (Nexmark q7: raw bids joined
// with their window's maximum price on (window, price = max_price)).
//
// A left row can only match the right row of its group, whose value is
// the aggregate's final maximum M over the rows the aggregate accepted. A
// left row whose value is below the value of another left row of its group
// that the aggregate also accepted is below M, so it never matches: the
// join drops it before probing and buffering, and keeps only the rows at
// the running maximum of their group (ties all kept). Left rows already
// buffered when a higher value arrives are dropped lazily: when the left
// buffer has doubled since the last time (and holds at least
// minRetainRows), the partition keeps only its rows that no running
// extreme dominates (join.Buffer.Retain), so the buffer stays within about
// twice the rows at their group's extreme even when every batch raises
// it. Pruning runs twice on arrival: in each input task, among the rows of
// one batch, before the shuffle holds them (the batch's survivors are
// copied densely, so the shuffle no longer retains the whole batch: this
// is what bounds a trigger's memory), and in each state partition against
// the partition's running extremes, which persist across batches and
// triggers.
//
// Soundness needs every left row that raises a running maximum to be a row
// the aggregate counts, with the same group and value. The plan shape
// (plan.FindExtremeJoinBack) makes the left rows a subset of the
// aggregate's input rows, with the aggregate's own key and argument
// expressions. Lateness: both are joined on, or grouped by, the same
// watermarked tumbling window, and drop a row as late when that window's
// end is at or below their input watermark of the batch before; the left
// side reaches the aggregate's input through stateless operators only, and
// an aggregation's output watermark is its input's, so watermark
// propagation (watermark.go) gives the join the aggregate's input
// watermark. Hence the join requires a window join (windowJoin) on exactly
// one window key. The aggregate's rows are final because every stage
// feeding another runs in Append mode (buildStage).
//
// The running maxima are a cache, not state: they are not checkpointed,
// and after a restart they start empty, so pruning resumes with the next
// rows; the buffers' layout and the operator's fingerprint are unchanged
// (a buffer merely holds fewer rows), so checkpoints written with or
// without pruning load either way (docs/ARCHITECTURE.md, "Dominance
// pruning").

// dominance locates the value and group columns of the left side's buffer
// records.
type dominance struct {
	value      int   // the value column (price)
	time       int   // the event-time column (the window's end)
	groups     []int // the group columns (the window's start and end)
	groupTypes []arrow.DataType
	max        bool
	// scratch holds the *join.Extremes of input tasks' batch-local
	// pruning; pruned counts the rows pruned since the last report.
	scratch sync.Pool
	pruned  atomic.Int64
}

// dominancePruning switches the pruning on; tests switch it off to run
// the same plans without it.
var dominancePruning = true

// findDominance returns the pruning of j's left side, or nil when the
// join is not a window-join-back of a maximum or minimum.
func (j *streamJoin) findDominance() *dominance {
	if !dominancePruning || !j.windowJoin || len(j.sides[0].structKeys) != 1 {
		return nil
	}
	eb, ok := plan.FindExtremeJoinBack(j.node)
	if !ok {
		return nil
	}
	left := &j.sides[0]
	d := &dominance{value: left.keys[eb.Value], time: left.bufTime, max: eb.Max}
	for i, k := range left.keys {
		if i == eb.Value {
			continue
		}
		d.groups = append(d.groups, k)
		d.groupTypes = append(d.groupTypes, left.bufSchema.Field(k).Type)
	}
	return d
}

// keep returns the live rows of b (a left batch of buffer records) at
// their group's running extreme, after raising it with them.
func (d *dominance) keep(jp *joinPartition, b columnar.Batch) ([]int32, error) {
	cols := make([]arrow.Array, len(d.groups))
	for i, k := range d.groups {
		cols[i] = b.Rec.Column(k)
	}
	return jp.ext.Keep(cols, b.Rec.Column(d.value), b.Rec.Column(d.time), b.Sel)
}

// prune returns the live rows sel of rec (a left batch of buffer records)
// that no other live row of the same group dominates: a dense copy when
// they are few (so that the shuffle does not hold the whole batch), else
// rec itself, retained, with a selection. The caller releases the record.
func (d *dominance) prune(t *task, rec arrow.RecordBatch, sel []int32) (arrow.RecordBatch, []int32, error) {
	ext, _ := d.scratch.Get().(*join.Extremes)
	if ext == nil {
		var err error
		if ext, err = join.NewExtremes(d.groupTypes, d.max); err != nil {
			return nil, nil, err
		}
	}
	defer func() {
		ext.Reset()
		d.scratch.Put(ext)
	}()
	cols := make([]arrow.Array, len(d.groups))
	for i, k := range d.groups {
		cols[i] = rec.Column(k)
	}
	kept, err := ext.Keep(cols, rec.Column(d.value), rec.Column(d.time), sel)
	if err != nil {
		return nil, nil, err
	}
	live := liveRows(sel, int(rec.NumRows()))
	d.pruned.Add(int64(live - len(kept)))
	if len(kept) > live/4 {
		// little to gain from a copy (groups of one or two rows)
		rec.Retain()
		return rec, t.sels.keep(kept), nil
	}
	return kernels.Compact(t.mem, columnar.Batch{Rec: rec, Sel: kept}), nil, nil
}

// customMetrics reports the left rows dominance pruning dropped in the
// batch: numRowsPrunedByDominance (nil without pruning).
func (j *streamJoin) customMetrics() map[string]int64 {
	if j.dom == nil {
		return nil
	}
	n := j.dom.pruned.Swap(0)
	for _, jp := range j.parts {
		n += jp.pruned
		jp.pruned = 0
	}
	return map[string]int64{"numRowsPrunedByDominance": n}
}

// minRetainRows is the left buffer size below which dominated rows are not
// looked for (a variable for tests).
var minRetainRows = 1024

// retain drops from jp's left buffer the rows that a running extreme
// dominates, and sets the size at which to look again. Rows buffered
// before a restart are compared with the extremes seen since, which the
// aggregate counts as well: a row below one is dominated all the same.
func (d *dominance) retain(mem memory.Allocator, jp *joinPartition) error {
	buf := jp.bufs[0]
	n := buf.Rows()
	rows := columnar.Identity(nil, n)
	cols := buf.GatherColumns(mem, rows, append(append([]int(nil), d.groups...), d.value))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	keep, err := jp.ext.NotDominated(cols[:len(d.groups)], cols[len(d.groups)])
	if err != nil {
		return err
	}
	jp.pruned += int64(n - len(keep))
	buf.Retain(keep)
	jp.retainAt = max(minRetainRows, 2*buf.Rows())
	return nil
}
