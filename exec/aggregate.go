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
	// keyedSchema is the schema of the keyed records prepare builds: the
	// physical key columns, then the arguments. partialSchema is that of
	// the pane path's records, whose arguments are partial states: update
	// tells them apart by this pointer.
	keyedSchema   *arrow.Schema
	partialSchema *arrow.Schema

	// panes is set when a window aggregates by panes (aggregate_panes.go);
	// paneTables holds the tasks' pane tables. tumblingPanes marks a
	// tumbling window's panes (pre-aggregation), which prepare skips while
	// they do not pay (panesBypass).
	panes         bool
	tumblingPanes bool
	bypass        panesBypass
	paneTables    *sync.Pool
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
	a.keyedSchema = keyedSchema(append(append([]arrow.DataType(nil), a.keyTypes...), a.argTypes...))
	a.dropLate = mode != sinks.Complete && (a.eventKey >= 0 || (a.window != nil && a.window.eventTimeCol))
	a.parts = make([]*agg.Table, partitions)
	for p := range a.parts {
		t, err := agg.NewTable(a.keyTypes, a.argTypes, a.specs)
		if err != nil {
			return nil, err
		}
		a.parts[p] = t
	}
	a.usePanes()
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
		spec := agg.Spec{Func: aggFunc(ag.Func), Arg: len(args), Name: plan.OutputName(e), Checked: compilingChecked,
			RSD: ag.RSD, IgnoreNulls: ag.IgnoreNulls}
		if ag.Func == plan.AggCollectList && ag.Distinct {
			spec.Func = agg.CollectSet // collect_list(DISTINCT x)
		}
		if ag.Func == plan.AggCountAll {
			spec.Arg = -1
		} else {
			arg := ag.Arg
			t, _ := plan.TypeOf(arg, in)
			// the functions below see the value as it is: Spark hashes an
			// int in 4 bytes, first/collect keep the input type
			keepType := ag.Func == plan.AggApproxCountDistinct || ag.Func == plan.AggFirst || ag.Func == plan.AggLast ||
				ag.Func == plan.AggCollectList || ag.Func == plan.AggCollectSet
			if t.ID() == arrow.INT32 && !keepType {
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

// aggFuncs maps the plan's aggregate functions to agg's.
var aggFuncs = map[plan.AggFunc]agg.Func{
	plan.AggCount:         agg.Count,
	plan.AggCountAll:      agg.CountAll,
	plan.AggSum:           agg.Sum,
	plan.AggMin:           agg.Min,
	plan.AggMax:           agg.Max,
	plan.AggAvg:           agg.Avg,
	plan.AggCountDistinct: agg.CountDistinct,

	plan.AggApproxCountDistinct: agg.ApproxCountDistinct,
	plan.AggFirst:               agg.First,
	plan.AggLast:                agg.Last,
	plan.AggCollectList:         agg.CollectList,
	plan.AggCollectSet:          agg.CollectSet,
}

func aggFunc(f plan.AggFunc) agg.Func { return aggFuncs[f] }

// prepare evaluates keys and arguments of one input batch, assigns windows,
// drops (and counts) late rows and routes the rest to state partitions
// (shuffle.go). It takes over b.
func (a *aggOperator) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	if a.panes && a.bypass.usePanes(a.tumblingPanes) {
		return a.preparePanes(t, b, out, late)
	}
	// gather lists the input rows (with repeats for sliding windows) that
	// make up the keyed batch; nil means every row of b.Rec as is. keep is
	// the selection over the keyed batch; starts the window starts of the
	// keyed rows.
	var gather, keep []int32
	var starts []int64
	var err error
	switch {
	case a.window != nil:
		if gather, keep, starts, err = a.assignWindows(t, b, out, late); err != nil {
			return err
		}
	case a.eventKey >= 0 && a.dropLate && t.watermarkUs != noWatermark:
		tsArr, err := a.keys[a.eventKey].value(t.mem, b.Rec)
		if err != nil {
			return err
		}
		cmpCol := tsArr
		if st, ok := tsArr.(*array.Struct); ok {
			cmpCol = st.Field(1) // a window is late when its end is
		}
		// a null event-time key is late too
		keep, err = out.notLate(t, cmpCol, t.watermarkUs, b.Sel, false)
		tsArr.Release()
		if err != nil {
			return err
		}
		if err := out.dropLate(t, b.Rec, b.Sel, keep, late); err != nil {
			return err
		}
	default:
		keep = b.Sel
	}
	rows := int(b.Rec.NumRows())
	switch {
	case gather != nil:
		rows = len(gather)
	case a.window != nil:
		rows = len(starts)
	}
	if rows == 0 || (keep != nil && len(keep) == 0) {
		return nil
	}
	keyed, err := a.keyedRecord(t, b.Rec, gather, starts, rows)
	if err != nil {
		return err
	}
	defer keyed.Release()
	out.route(t, len(a.parts), keyed, keyed.Columns()[:a.nPhys], keep)
	return nil
}

// assignWindows computes the window starts of b's rows (several per row
// for a sliding window), dropping late rows: it returns the rows of b that
// make up the keyed batch (gather; nil: every row as is), the selection
// over the keyed batch (keep) and the window start of each keyed row.
func (a *aggOperator) assignWindows(t *task, b columnar.Batch, out *shuffled, late *lateRouter) (gather, keep []int32, starts []int64, err error) {
	w := a.window
	tsArr, err := w.time.value(t.mem, b.Rec)
	if err != nil {
		return nil, nil, nil, err
	}
	defer tsArr.Release()
	ts, ok := tsArr.(*array.Timestamp)
	if !ok {
		return nil, nil, nil, fmt.Errorf("window(): time column is %s", tsArr.DataType())
	}
	live := b.Sel
	if ts.NullN() > 0 {
		// rows with a null event time belong to no window
		live = kernels.SelectNotNull(ts, b.Sel, t.sels.take(b.NumRows()))
	}
	raw := timestampValues(ts)
	dropping := a.dropLate && t.watermarkUs != noWatermark
	if dropping {
		// a row is late when even the last window holding it has closed
		t.lasts = kernels.TumblingWindow(raw, live, w.slide, w.offset, t.lasts)
		kept := t.sels.take(len(t.lasts))
		for i, s := range t.lasts {
			if s+w.size > t.watermarkUs {
				kept = append(kept, rowOf(live, i))
			}
		}
		if err := out.dropLate(t, b.Rec, live, kept, late); err != nil {
			return nil, nil, nil, err
		}
		live = kept
	}
	if w.slide == w.size {
		t.starts = kernels.TumblingWindow(raw, live, w.size, w.offset, t.starts)
		return live, nil, t.starts, nil
	}
	k := int((w.size + w.slide - 1) / w.slide)
	gather, t.starts = kernels.SlidingWindow(raw, live, w.size, w.slide, w.offset, t.sels.take(liveRows(live, len(raw))*k), t.starts)
	if dropping {
		// drop the expansions into windows that have already closed
		keep = t.sels.take(len(t.starts))
		for i, s := range t.starts {
			if s+w.size > t.watermarkUs {
				keep = append(keep, int32(i))
			}
		}
	}
	return gather, keep, t.starts, nil
}

// keyedRecord evaluates the keys and arguments of rec's rows gather (all
// when nil) into the keyed record: the physical key columns, then the
// arguments. starts are the window starts of the rows.
func (a *aggOperator) keyedRecord(t *task, rec arrow.RecordBatch, gather []int32, starts []int64, rows int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, a.nPhys+len(a.args))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	take := func(c arrow.Array) arrow.Array {
		if gather == nil {
			c.Retain()
			return c
		}
		return kernels.Take(t.mem, c, gather)
	}
	for i, k := range a.keys {
		if k == nil {
			cols = append(cols, timestampArray(t.mem, starts))
			continue
		}
		v, err := k.value(t.mem, rec)
		if err != nil {
			return nil, fmt.Errorf("groupBy %s: %w", a.keyNames[i], err)
		}
		if st, ok := v.(*array.Struct); ok && a.structKey[i] {
			cols = append(cols, take(st.Field(0)), take(st.Field(1)))
		} else {
			cols = append(cols, take(v))
		}
		v.Release()
	}
	for i, e := range a.args {
		v, err := e.value(t.mem, rec)
		if err != nil {
			return nil, fmt.Errorf("agg %s: %w", a.specs[i].Name, err)
		}
		cols = append(cols, take(v))
		v.Release()
	}
	return array.NewRecordBatch(a.keyedSchemaOf(cols), cols, int64(rows)), nil
}

// keyedSchemaOf returns the schema of a keyed record with columns cols:
// the one built with the operator when their types are as planned.
func (a *aggOperator) keyedSchemaOf(cols []arrow.Array) *arrow.Schema {
	if s := a.keyedSchema; s.NumFields() == len(cols) {
		same := true
		for i, c := range cols {
			same = same && arrow.TypeEqual(s.Field(i).Type, c.DataType())
		}
		if same {
			return s
		}
	}
	types := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		types[i] = c.DataType()
	}
	return keyedSchema(types)
}

// keyedSchema is the schema of keyed records: columns c0, c1, ... of the
// given types.
func keyedSchema(types []arrow.DataType) *arrow.Schema {
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
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
			update := tab.Update
			if b.Rec.Schema() == a.partialSchema {
				update = tab.Merge // partial states of panes
			}
			if err := update(cols[:nk], cols[nk:], b.Sel); err != nil {
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
	// the watermark closes the groups whose key column col is below
	// lessThan (and not null)
	var closedBy *evictRange
	closed := func() []uint32 {
		if watermarkUs == noWatermark {
			return nil
		}
		if a.window != nil && a.window.eventTimeCol {
			closedBy = &evictRange{a.physOf[a.window.index], watermarkUs - a.window.size + 1}
		} else if a.eventKey >= 0 {
			col := a.physOf[a.eventKey]
			if a.structKey[a.eventKey] {
				col++ // a window closes with its end
			}
			closedBy = &evictRange{col, watermarkUs + 1}
		} else {
			return nil
		}
		return tab.GroupsWhere(closedBy.col, closedBy.lessThan)
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
	if len(evict) == 0 {
		closedBy = nil
	}
	if err := a.recordChanges(p, dirty, evict, closedBy); err != nil {
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

// timestampValues views a timestamp array's values as int64 without a copy.
func timestampValues(ts *array.Timestamp) []int64 {
	v := ts.TimestampValues()
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&v[0])), len(v))
}

// timestampArray returns a timestamp array (µs, no nulls) of v.
func timestampArray(mem memory.Allocator, v []int64) arrow.Array {
	return shiftedTimestamps(mem, v, 0)
}

// shiftedTimestamps returns a timestamp array (µs, no nulls) of v plus d.
// It fills one buffer rather than going through a builder: it runs for
// every batch of a windowed aggregation.
func shiftedTimestamps(mem memory.Allocator, v []int64, d int64) arrow.Array {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(len(v) * 8)
	out := arrow.Int64Traits.CastFromBytes(buf.Bytes())
	for i, x := range v {
		out[i] = x + d
	}
	data := array.NewData(columnar.Timestamp, len(v), []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.NewTimestampData(data)
}

// windowStruct builds struct<start, end> from window starts.
func windowStruct(mem memory.Allocator, starts *array.Timestamp, size int64) arrow.Array {
	end := shiftedTimestamps(mem, timestampValues(starts), size)
	defer end.Release()
	data := array.NewData(plan.WindowType, starts.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{starts.Data(), end.Data()}, 0, 0)
	defer data.Release()
	return array.NewStructData(data)
}
