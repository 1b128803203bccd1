package exec

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
)

// Sliding windows by panes (window slicing, as Flink's): when a sliding
// window's size is a multiple of its slide and every aggregate has an exact
// partial state (agg.Combinable), prepare aggregates each input batch by
// pane — the slice [p, p+slide) a row falls in, p its latest window start —
// and key in a small table of its own: one hash update per row instead of
// size/slide. Each pane group then expands into the size/slide windows that
// contain it (latest start first, closed ones skipped, as a row's expansion
// does) carrying its partial states, and the update phase merges those into
// the per-window state (agg.Table.Merge).
//
// The state stays one row per window, as before: the same groups, created in
// the same order (a window's first appearance in the expansion of the
// batch's pane groups, which come in order of their first row, is its first
// appearance in the expansion of the rows), so the output — rows, order,
// values — the state metrics and the checkpoint layout are those of the
// per-row path. Checkpoints written by either path restart with the other;
// the operator's fingerprint does not change. Late rows are judged per row,
// before the panes, exactly as the per-row path does.

// A tumbling window is its own single pane: there the pane path is a
// pre-aggregation of each input batch by window and key before the
// shuffle (Spark's partial aggregate), which pays when a batch holds few
// groups (one Nexmark q7 window: 1.25x) and costs an extra hash update per
// row when nearly every row is a group of its own (window x user: 0.8x).
// So the tumbling pane path watches its reduction and is bypassed while a
// batch's groups are over half its rows, probing again every
// panesReprobe batches. Both paths build the same state in the same
// order, so they may alternate batch by batch and task by task: update
// merges a record of partial states (partialSchema) and updates by a
// record of rows.

// panesReprobe is how many bypassed input batches go by before the pane
// path is tried again.
const panesReprobe = 64

// panesBypass is the tumbling pane path's switch, shared by the tasks.
type panesBypass struct {
	on      atomic.Bool  // bypassing the pane path
	skipped atomic.Int64 // batches bypassed since the last probe
}

// usePanes says whether this input batch goes by panes; sliding windows
// always do.
func (b *panesBypass) usePanes(tumbling bool) bool {
	switch {
	case !tumbling:
		return true
	case alternatePanes.Load(): // tests: every other batch each way
		return b.skipped.Add(1)%2 == 0
	case !b.on.Load():
		return true
	}
	return b.skipped.Add(1)%panesReprobe == 0 // a probe
}

// alternatePanes makes tumbling windows alternate between the two paths
// batch by batch, for tests.
var alternatePanes atomic.Bool

// observe records a batch's reduction by the pane path: groups out of rows.
func (b *panesBypass) observe(groups, rows int) {
	if rows < 1024 {
		return // too small a batch to judge by
	}
	b.on.Store(2*groups > rows)
}

// slidingByPanes turns the pane path on; tests turn it off to compare with
// the per-row path.
var slidingByPanes atomic.Bool

func init() { slidingByPanes.Store(true) }

// usePanes decides, once per operator, whether it aggregates by panes.
func (a *aggOperator) usePanes() {
	w := a.window
	if w == nil || !slidingByPanes.Load() || w.slide > w.size || w.size%w.slide != 0 || !a.parts[0].Combinable() {
		return
	}
	a.panes = true
	a.tumblingPanes = w.slide == w.size
	partial := a.parts[0].PartialTypes()
	// a schema of its own even when the types equal keyedSchema's: update
	// tells partial states from rows by it
	a.partialSchema = keyedSchema(append(append([]arrow.DataType(nil), a.keyTypes...), partial...))
	a.paneTables = &sync.Pool{New: func() any {
		t, err := agg.NewTable(a.keyTypes, a.argTypes, a.specs)
		if err != nil {
			// the same types made a.parts[0]
			panic(fmt.Sprintf("pane table: %v", err))
		}
		return &paneTable{tab: t}
	}}
}

// paneTable is one batch's aggregation by pane and key, reused batch after
// batch by the tasks.
type paneTable struct {
	tab    *agg.Table
	groups []uint32
}

// preparePanes is prepare for the pane path: late rows, then one pane
// update per live row, then the expansion of the pane groups into windows,
// routed to the state partitions as keyed records of partial states.
func (a *aggOperator) preparePanes(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	w := a.window
	tsArr, err := w.time.value(t.mem, b.Rec)
	if err != nil {
		return err
	}
	defer tsArr.Release()
	ts, ok := tsArr.(*array.Timestamp)
	if !ok {
		return fmt.Errorf("window(): time column is %s", tsArr.DataType())
	}
	live := b.Sel
	if ts.NullN() > 0 {
		// rows with a null event time belong to no window
		live = kernels.SelectNotNull(ts, b.Sel, t.sels.take(b.NumRows()))
	}
	// a row's pane starts where its latest window does
	t.lasts = kernels.TumblingWindow(timestampValues(ts), live, w.slide, w.offset, t.lasts)
	panes := t.lasts
	dropping := a.dropLate && t.watermarkUs != noWatermark
	if dropping {
		// a row is late when even the last window holding it has closed
		kept := t.sels.take(len(panes))
		n := 0
		for i, s := range panes {
			if s+w.size > t.watermarkUs {
				kept = append(kept, rowOf(live, i))
				panes[n] = s
				n++
			}
		}
		if err := out.dropLate(t, b.Rec, live, kept, late); err != nil {
			return err
		}
		live, panes = kept, panes[:n]
	}
	if len(panes) == 0 {
		return nil
	}
	rows, err := a.keyedRecord(t, b.Rec, live, panes, len(panes))
	if err != nil {
		return err
	}
	pt := a.paneTables.Get().(*paneTable)
	defer a.paneTables.Put(pt)
	pt.tab.Clear()
	cols := rows.Columns()
	err = pt.tab.Update(cols[:a.nPhys], cols[a.nPhys:], nil)
	rows.Release()
	if err != nil {
		return fmt.Errorf("aggregate by panes: %w", err)
	}
	if a.tumblingPanes {
		a.bypass.observe(pt.tab.Len(), len(panes))
	}
	keyed := a.expandPanes(t, pt, dropping)
	defer keyed.Release()
	out.route(t, len(a.parts), keyed, keyed.Columns()[:a.nPhys], nil)
	return nil
}

// expandPanes returns the keyed record of pt's groups expanded into their
// windows: the physical keys (window start in place of the pane start),
// then the partial states.
func (a *aggOperator) expandPanes(t *task, pt *paneTable, dropping bool) arrow.RecordBatch {
	w := a.window
	ht := pt.tab.HashTable()
	n := pt.tab.Len()
	wcol := a.physOf[w.index]
	k := int(w.size / w.slide)
	gather := t.sels.take(n * k)
	starts := t.starts[:0]
	for g := range n {
		s := ht.KeyInt64(wcol, uint32(g))
		for range k {
			if !dropping || s+w.size > t.watermarkUs {
				gather = append(gather, int32(g))
				starts = append(starts, s)
			}
			s -= w.slide
		}
	}
	t.starts = starts
	pt.groups = pt.groups[:0]
	for g := range n {
		pt.groups = append(pt.groups, uint32(g))
	}
	keys := ht.KeyColumns(t.mem, pt.groups)
	partials := pt.tab.Partials(t.mem, pt.groups)
	cols := make([]arrow.Array, 0, len(keys)+len(partials))
	for i, c := range keys {
		if i == wcol {
			cols = append(cols, timestampArray(t.mem, starts))
			continue
		}
		cols = append(cols, kernels.Take(t.mem, c, gather))
	}
	for _, c := range partials {
		cols = append(cols, kernels.Take(t.mem, c, gather))
	}
	columnar.ReleaseAll(keys)
	columnar.ReleaseAll(partials)
	rec := array.NewRecordBatch(a.partialSchema, cols, int64(len(starts)))
	columnar.ReleaseAll(cols)
	return rec
}
