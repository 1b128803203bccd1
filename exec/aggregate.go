package exec

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
)

// aggOperator is the stateful hash aggregation. A trigger runs it in two
// phases: prepare (in each input task, in parallel) evaluates keys and
// arguments, assigns windows, drops late rows and splits the rows by key hash
// into state partitions; update (one task per state partition, in parallel)
// feeds each partition's rows to its hash table in a fixed order (input task,
// then batch), so the result never depends on goroutine scheduling.
type aggOperator struct {
	node   *plan.Aggregate
	inSch  *arrow.Schema
	keys   []evaluator // nil at the window key
	args   []evaluator // nil for count(*)
	window *windowKey

	// eventKey is the index of a key that is itself an event-time column
	// (not a window), or -1.
	eventKey int
	// dropLate says whether late rows are dropped (Append and Update with
	// an event-time key); Complete mode keeps everything.
	dropLate bool

	keyTypes []arrow.DataType
	argTypes []arrow.DataType
	specs    []agg.Spec
	keyNames []string

	parts []*agg.Table
	mode  sinks.OutputMode
	// hiddenKey is set for a global aggregate (no keys): one constant key
	// that is not output.
	hiddenKey bool
	// A window column of an upstream aggregation (struct<start, end>) used
	// as a key is held as two timestamp key columns: physOf[i] is the first
	// physical key column of key i, structKey[i] marks such keys, nPhys
	// counts the physical key columns.
	physOf    []int
	structKey []bool
	nPhys     int

	// durable is set when a checkpoint persists the state; changes then
	// collects each partition's changes of the running batch.
	durable bool
	changes []partChanges
}

// windowKey describes the window() grouping key.
type windowKey struct {
	index        int // position among the keys
	time         evaluator
	size, slide  int64 // µs
	offset       int64
	eventTimeCol bool // the time column carries a watermark
}

func newAggOperator(n *plan.Aggregate, mode sinks.OutputMode, partitions int) (*aggOperator, error) {
	in := n.Input.Schema()
	a := &aggOperator{node: n, inSch: in, eventKey: -1, mode: mode}
	for i, k := range n.Keys {
		a.keyNames = append(a.keyNames, plan.OutputName(k))
		switch kk := plan.Unalias(k).(type) {
		case plan.Window:
			ev, err := compileExpr(kk.Time, in)
			if err != nil {
				return nil, err
			}
			w := &windowKey{index: i, time: ev, size: kk.Size.Microseconds(), slide: kk.Slide.Microseconds(), offset: kk.Offset.Microseconds()}
			if c, ok := kk.Time.(plan.ColumnRef); ok {
				idx, _ := columnar.FieldIndex(in, c.Name)
				_, w.eventTimeCol = plan.WatermarkDelay(in.Field(idx))
			}
			a.window = w
			a.keys = append(a.keys, nil)
			a.keyTypes = append(a.keyTypes, columnar.Timestamp)
		default:
			ev, err := compileExpr(k, in)
			if err != nil {
				return nil, err
			}
			t, _ := plan.TypeOf(k, in)
			if c, ok := kk.(plan.ColumnRef); ok {
				idx, _ := columnar.FieldIndex(in, c.Name)
				if _, ok := plan.WatermarkDelay(in.Field(idx)); ok {
					a.eventKey = i
				}
			}
			a.keys = append(a.keys, ev)
			if arrow.TypeEqual(t, plan.WindowType) {
				a.structKey = growBools(a.structKey, i)
				a.structKey[i] = true
				a.keyTypes = append(a.keyTypes, columnar.Timestamp, columnar.Timestamp)
				continue
			}
			a.keyTypes = append(a.keyTypes, t)
		}
	}
	a.structKey = growBools(a.structKey, len(n.Keys)-1)
	a.physOf = make([]int, len(n.Keys))
	for i := range n.Keys {
		a.physOf[i] = a.nPhys
		a.nPhys++
		if a.structKey[i] {
			a.nPhys++
		}
	}
	var err error
	if a.args, a.argTypes, a.specs, err = compileAggs(n.Aggs, in); err != nil {
		return nil, err
	}
	if len(n.Keys) == 0 {
		// a global aggregate: one group under a constant hidden key
		a.hiddenKey = true
		a.keys = []evaluator{litEval{v: int64(0), typ: arrow.PrimitiveTypes.Int64}}
		a.keyTypes = []arrow.DataType{arrow.PrimitiveTypes.Int64}
		a.keyNames = []string{"__global"}
		a.physOf, a.structKey, a.nPhys = []int{0}, []bool{false}, 1
	}
	a.dropLate = mode != sinks.Complete && (a.eventKey >= 0 || (a.window != nil && a.window.eventTimeCol))
	a.parts = make([]*agg.Table, partitions)
	for p := range a.parts {
		t, err := agg.NewTable(a.keyTypes, a.argTypes, a.specs)
		if err != nil {
			return nil, err
		}
		a.parts[p] = t
	}
	return a, nil
}

// compileAggs compiles the aggregate functions of an aggregation: one
// evaluator per argument (int32 arguments widened to int64) and one agg.Spec
// per function, whose Arg indexes the arguments (-1 for count(*)).
func compileAggs(aggs []plan.Expr, in *arrow.Schema) ([]evaluator, []arrow.DataType, []agg.Spec, error) {
	var args []evaluator
	var types []arrow.DataType
	var specs []agg.Spec
	for _, e := range aggs {
		ag := plan.Unalias(e).(plan.Agg)
		spec := agg.Spec{Func: aggFunc(ag.Func), Arg: len(args), Name: plan.OutputName(e), Checked: compilingChecked}
		if ag.Func == plan.AggCountAll {
			spec.Arg = -1
		} else {
			arg := ag.Arg
			t, _ := plan.TypeOf(arg, in)
			if t.ID() == arrow.INT32 {
				arg, t = plan.Cast{E: arg, To: arrow.PrimitiveTypes.Int64}, arrow.PrimitiveTypes.Int64
			}
			ev, err := compileExpr(arg, in)
			if err != nil {
				return nil, nil, nil, err
			}
			args = append(args, ev)
			types = append(types, t)
		}
		specs = append(specs, spec)
	}
	return args, types, specs, nil
}

// growBools returns s grown with false to hold index i.
func growBools(s []bool, i int) []bool {
	for len(s) <= i {
		s = append(s, false)
	}
	return s
}

func aggFunc(f plan.AggFunc) agg.Func {
	switch f {
	case plan.AggCount:
		return agg.Count
	case plan.AggCountAll:
		return agg.CountAll
	case plan.AggSum:
		return agg.Sum
	case plan.AggMin:
		return agg.Min
	case plan.AggMax:
		return agg.Max
	case plan.AggAvg:
		return agg.Avg
	default:
		return agg.CountDistinct
	}
}

// shuffled is what one input task hands to the update phase: per state
// partition, the keyed batches routed there, in order.
type shuffled struct {
	parts   [][]columnar.Batch
	dropped int64
	// side says, for a two-input operator (a stream-stream join), which
	// input each batch of parts came from (0 left, 1 right).
	side [][]int8
}

func (s *shuffled) release() {
	for _, bs := range s.parts {
		for _, b := range bs {
			b.Release()
		}
	}
	s.parts = nil
}

// lateRouter receives rows dropped by the watermark when a late-data sink
// is configured.
type lateRouter struct {
	mu sync.Mutex
	w  sinks.BatchWriter
}

// prepare evaluates keys and arguments of one input batch, assigns windows,
// drops (and counts) late rows and routes the rest to state partitions. It
// takes over b.
func (a *aggOperator) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	defer b.Release()
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	cols := make([]arrow.Array, 0, len(a.keys)+len(a.args))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	// gather lists the input rows (with repeats for sliding windows) that
	// make up the keyed batch; nil means every row of b.Rec as is. keep is
	// the selection over the keyed batch.
	var gather, keep []int32
	var starts []int64
	if w := a.window; w != nil {
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
			live = kernels.SelectNotNull(ts, b.Sel, nil)
		}
		raw := timestampValues(ts)
		if a.dropLate && t.watermarkUs != noWatermark {
			// a row is late when even the last window holding it has closed
			last := kernels.TumblingWindow(raw, live, w.slide, w.offset, nil)
			kept := make([]int32, 0, len(last))
			var lateRows []int32
			for i, s := range last {
				r := rowOf(live, i)
				if s+w.size <= t.watermarkUs {
					lateRows = append(lateRows, r)
					continue
				}
				kept = append(kept, r)
			}
			out.dropped += int64(len(lateRows))
			if err := a.routeLate(t, b.Rec, lateRows, late); err != nil {
				return err
			}
			live = kept
		}
		if w.slide == w.size {
			starts = kernels.TumblingWindow(raw, live, w.size, w.offset, nil)
			gather = live
		} else {
			gather, starts = kernels.SlidingWindow(raw, live, w.size, w.slide, w.offset, nil, nil)
		}
		keep = nil
		if a.dropLate && t.watermarkUs != noWatermark && w.slide != w.size {
			// drop the expansions into windows that have already closed
			keep = make([]int32, 0, len(starts))
			for i, s := range starts {
				if s+w.size > t.watermarkUs {
					keep = append(keep, int32(i))
				}
			}
		}
	} else if a.eventKey >= 0 && a.dropLate && t.watermarkUs != noWatermark {
		tsArr, err := a.keys[a.eventKey].value(t.mem, b.Rec)
		if err != nil {
			return err
		}
		cmpCol := tsArr
		if st, ok := tsArr.(*array.Struct); ok {
			cmpCol = st.Field(1) // a window is late when its end is
		}
		kept, err := kernels.CompareScalar(kernels.Gt, cmpCol, t.watermarkUs, b.Sel, nil)
		tsArr.Release()
		if err != nil {
			return err
		}
		if kept == nil {
			kept = []int32{}
		}
		dropped := n - len(kept)
		if dropped > 0 {
			out.dropped += int64(dropped)
			all := b.Sel
			if all == nil {
				all = columnar.Identity(nil, int(b.Rec.NumRows()))
			}
			if err := a.routeLate(t, b.Rec, kernels.Difference(all, kept, nil), late); err != nil {
				return err
			}
		}
		gather, keep = nil, kept
	} else {
		gather, keep = nil, b.Sel
	}

	for i, k := range a.keys {
		var c arrow.Array
		if k == nil {
			c = timestampArray(t.mem, starts)
		} else {
			v, err := k.value(t.mem, b.Rec)
			if err != nil {
				return fmt.Errorf("groupBy %s: %w", a.keyNames[i], err)
			}
			if st, ok := v.(*array.Struct); ok && a.structKey[i] {
				for f := 0; f < 2; f++ {
					fc := st.Field(f)
					if gather != nil {
						fc = kernels.Take(t.mem, fc, gather)
					} else {
						fc.Retain()
					}
					cols = append(cols, fc)
				}
				v.Release()
				continue
			}
			c = v
			if gather != nil {
				c = kernels.Take(t.mem, v, gather)
				v.Release()
			}
		}
		cols = append(cols, c)
	}
	for i, e := range a.args {
		v, err := e.value(t.mem, b.Rec)
		if err != nil {
			return fmt.Errorf("agg %s: %w", a.specs[i].Name, err)
		}
		c := v
		if gather != nil {
			c = kernels.Take(t.mem, v, gather)
			v.Release()
		}
		cols = append(cols, c)
	}
	rows := int(b.Rec.NumRows())
	switch {
	case gather != nil:
		rows = len(gather)
	case a.window != nil:
		rows = len(starts)
	}
	if rows == 0 {
		return nil
	}
	if keep != nil && len(keep) == 0 {
		return nil
	}
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.DataType(), Nullable: true}
	}
	keyed := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(rows))
	defer keyed.Release()
	a.route(keyed, keep, out)
	return nil
}

func rowOf(sel []int32, i int) int32 {
	if sel == nil {
		return int32(i)
	}
	return sel[i]
}

// route splits the live rows of keyed among the state partitions by the
// hash of their keys.
func (a *aggOperator) route(keyed arrow.RecordBatch, sel []int32, out *shuffled) {
	p := len(a.parts)
	if out.parts == nil {
		out.parts = make([][]columnar.Batch, p)
	}
	if p == 1 {
		keyed.Retain()
		out.parts[0] = append(out.parts[0], columnar.Batch{Rec: keyed, Sel: sel})
		return
	}
	keyCols := keyed.Columns()[:a.nPhys]
	hashes := kernels.HashColumns(keyCols, sel, nil)
	psel := make([][]int32, p)
	for i, h := range hashes {
		part := partitionOf(h, p)
		psel[part] = append(psel[part], rowOf(sel, i))
	}
	for part, s := range psel {
		if len(s) == 0 {
			continue
		}
		keyed.Retain()
		out.parts[part] = append(out.parts[part], columnar.Batch{Rec: keyed, Sel: s})
	}
}

// partitionOf maps a key hash to one of p state partitions. It uses the
// high bits so that it stays independent of the hash table's use of the low
// bits.
func partitionOf(h uint64, p int) int {
	return int((h >> 32) * uint64(p) >> 32)
}

func (a *aggOperator) routeLate(t *task, rec arrow.RecordBatch, rows []int32, late *lateRouter) error {
	if late == nil || len(rows) == 0 {
		return nil
	}
	return routeLateRows(t, rec, rows, late)
}

// routeLateRows writes rows of rec to the late-data sink.
func routeLateRows(t *task, rec arrow.RecordBatch, rows []int32, late *lateRouter) error {
	b := columnar.Batch{Rec: rec, Sel: rows}
	dense := kernels.Compact(t.mem, b)
	defer dense.Release()
	late.mu.Lock()
	defer late.mu.Unlock()
	return late.w.Write(t.ctx, dense)
}

// update feeds partition p's batches (from every input task, in task order)
// to its table.
func (a *aggOperator) update(p int, inputs []*shuffled) error {
	tab := a.parts[p]
	nk := a.nPhys
	for _, in := range inputs {
		if in.parts == nil {
			continue
		}
		for _, b := range in.parts[p] {
			cols := b.Rec.Columns()
			if err := tab.Update(cols[:nk], cols[nk:], b.Sel); err != nil {
				return fmt.Errorf("aggregate partition %d: %w", p, err)
			}
		}
	}
	return nil
}

// emit returns partition p's output rows for this trigger according to the
// output mode, and evicts state the watermark has closed.
func (a *aggOperator) emit(mem memory.Allocator, p int, watermarkUs int64) ([]arrow.RecordBatch, int64, int64, error) {
	tab := a.parts[p]
	var groups, evict []uint32
	closed := func() []uint32 {
		if watermarkUs == noWatermark {
			return nil
		}
		if a.window != nil && a.window.eventTimeCol {
			return tab.GroupsWhere(a.physOf[a.window.index], watermarkUs-a.window.size+1)
		}
		if a.eventKey >= 0 {
			col := a.physOf[a.eventKey]
			if a.structKey[a.eventKey] {
				col++ // a window closes with its end
			}
			return tab.GroupsWhere(col, watermarkUs+1)
		}
		return nil
	}
	dirty := tab.TakeDirty()
	switch a.mode {
	case sinks.Complete:
		groups = tab.AllGroups()
	case sinks.Update:
		groups = dirty
		evict = closed()
	case sinks.Append:
		groups = closed()
		evict = groups
	}
	if err := a.recordChanges(p, dirty, evict); err != nil {
		return nil, 0, 0, err
	}
	var rec arrow.RecordBatch
	if len(groups) > 0 {
		raw := tab.Emit(mem, groups, a.keyNames)
		var err error
		rec, err = a.finish(mem, raw)
		raw.Release()
		if err != nil {
			return nil, 0, 0, err
		}
	}
	if len(evict) > 0 {
		tab.Remove(evict)
	}
	if rec == nil {
		return nil, int64(len(dirty)), int64(len(evict)), nil
	}
	return []arrow.RecordBatch{rec}, int64(len(dirty)), int64(len(evict)), nil
}

// finish turns a table's raw output (window keys as start timestamps) into
// rows of the aggregate's schema (window keys as struct<start, end>).
func (a *aggOperator) finish(mem memory.Allocator, raw arrow.RecordBatch) (arrow.RecordBatch, error) {
	out := a.node.Schema()
	cols := make([]arrow.Array, out.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	nk := len(a.node.Keys)
	for i := range cols {
		var c arrow.Array
		switch {
		case i < nk:
			c = raw.Column(a.physOf[i])
		default:
			c = raw.Column(a.nPhys + i - nk)
		}
		want := out.Field(i).Type
		switch {
		case i < nk && a.structKey[i]:
			cols[i] = windowStructFrom(c.(*array.Timestamp), raw.Column(a.physOf[i]+1).(*array.Timestamp))
		case a.window != nil && i == a.window.index:
			cols[i] = windowStruct(mem, c.(*array.Timestamp), a.window.size)
		case arrow.TypeEqual(c.DataType(), want):
			c.Retain()
			cols[i] = c
		default:
			cast, err := kernels.Cast(mem, c, want)
			if err != nil {
				return nil, fmt.Errorf("aggregate output %s: %w", out.Field(i).Name, err)
			}
			cols[i] = cast
		}
	}
	return array.NewRecordBatch(out, cols, raw.NumRows()), nil
}

// release: the hash tables live on the Go heap.
func (a *aggOperator) release() {}

func (a *aggOperator) name() string               { return "stateStoreSave" }
func (a *aggOperator) inputSchema() *arrow.Schema { return a.inSch }
func (a *aggOperator) numPartitions() int         { return len(a.parts) }

// outputWatermark passes the input watermark on.
func (a *aggOperator) outputWatermark(inUs int64) (int64, bool) { return inUs, true }

func (a *aggOperator) closesByWatermark() bool {
	return a.mode != sinks.Complete // Spark's StateStoreSaveExec: Append and Update
}

// stateRows returns the number of groups held over all partitions.
func (a *aggOperator) stateRows() (rows, bytes int64) {
	for _, t := range a.parts {
		rows += int64(t.Len())
		bytes += t.MemoryUsage()
	}
	return rows, bytes
}

// timestampValues views a timestamp array's values as int64 without a copy.
func timestampValues(ts *array.Timestamp) []int64 {
	v := ts.TimestampValues()
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&v[0])), len(v))
}

func timestampArray(mem memory.Allocator, v []int64) arrow.Array {
	b := array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer b.Release()
	b.Reserve(len(v))
	for _, x := range v {
		b.UnsafeAppend(arrow.Timestamp(x))
	}
	return b.NewArray()
}

// windowStruct builds struct<start, end> from window starts.
func windowStruct(mem memory.Allocator, starts *array.Timestamp, size int64) arrow.Array {
	sv := starts.TimestampValues()
	eb := array.NewTimestampBuilder(mem, columnar.Timestamp)
	defer eb.Release()
	eb.Reserve(len(sv))
	for _, s := range sv {
		eb.UnsafeAppend(s + arrow.Timestamp(size))
	}
	end := eb.NewArray()
	defer end.Release()
	data := array.NewData(plan.WindowType, starts.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{starts.Data(), end.Data()}, 0, 0)
	defer data.Release()
	return array.NewStructData(data)
}
