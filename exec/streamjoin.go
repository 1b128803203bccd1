package exec

import (
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/join"
	"github.com/millrace/millrace/plan"
)

// streamJoin is a stream-stream equi-join, optionally bounded by an
// event-time range (right time − left time in [lower, upper]). Each state
// partition buffers both sides (join.Buffer). A trigger first probes the
// right buffer with the new left rows and buffers them, then probes the left
// buffer (new rows included) with the new right rows and buffers those, so
// every pair matches exactly once. Matches are emitted at once (Append
// mode). The global watermark bounds the state: a left row can match no
// future right row once its time + upper is at or below the watermark (right
// rows at or below it are late), and a right row once its time − lower is;
// such rows are evicted and, for outer joins, emitted with nulls if they
// never matched. Without a bound on one side, that side is kept for ever
// (allowed for inner joins only, as in Spark).
type streamJoin struct {
	node         *plan.Join
	mem          memory.Allocator
	lower, upper int64
	schema       *arrow.Schema
	sides        [2]joinSide
	parts        []*joinPartition
	durable      bool
	// windowJoin: joined on watermarked window keys, a row matches only
	// rows of its own window and leaves when the window ends.
	windowJoin bool
	// dom, when set, prunes the left rows dominated by their group's
	// running extreme (streamjoin_prune.go).
	dom *dominance
}

// joinSide describes one input of the join.
type joinSide struct {
	schema  *arrow.Schema
	keys    []int
	timeCol int  // the event-time column of the range condition, or -1
	late    bool // rows at or below the watermark are dropped
	outCols []int
	// bufSchema is what the side's buffer holds: the side's schema, plus a
	// constant time column when the join has no time range (a buffer keys
	// its rows by time; without a range every row has time 0 and is never
	// evicted).
	bufSchema *arrow.Schema
	bufTime   int
	// structKeys are the window key columns, expanded into start and end
	// columns after the side's own; windowKey says a watermarked window
	// key serves as the event time (its end).
	structKeys []int
	windowKey  bool
	bufFields  []arrow.Field
}

type joinPartition struct {
	bufs [2]*join.Buffer
	out  []arrow.RecordBatch
	seq  uint64 // numbers the changelog entries of this partition
	// m and matched are probe scratch, reused batch after batch (a
	// partition is updated by one goroutine at a time).
	m       join.Matches
	matched []int32
	keys    []arrow.Array
	// ext is the running extremes of dominance pruning (nil without).
	ext    *join.Extremes
	pruned int64 // left rows pruned in the running batch
	// retainAt is the left buffer's size at which dominated rows are
	// dropped from it next (streamjoin_prune.go).
	retainAt int
}

func newStreamJoin(n *plan.Join, partitions int, mem memory.Allocator) (*streamJoin, error) {
	j := &streamJoin{node: n, mem: mem, lower: n.Lower, upper: n.Upper, schema: n.Schema()}
	for s, in := range []plan.Node{n.Left, n.Right} {
		sch := in.Schema()
		side := joinSide{schema: sch, timeCol: -1}
		keys := n.LeftKeys
		timeName := n.TimeLeft
		if s == 1 {
			keys, timeName = n.RightKeys, n.TimeRight
		}
		for _, k := range keys {
			i, err := columnar.FieldIndex(sch, k)
			if err != nil {
				return nil, err
			}
			side.keys = append(side.keys, i)
		}
		if timeName != "" {
			side.timeCol, _ = columnar.FieldIndex(sch, timeName)
			_, side.late = plan.WatermarkDelay(sch.Field(side.timeCol))
		}
		for i, f := range sch.Fields() {
			if s == 1 && n.Using && contains(n.RightKeys, f.Name) {
				continue
			}
			side.outCols = append(side.outCols, i)
		}
		// Records carry no plan metadata (watermark markers): the buffer's
		// schema is the side's fields without it, plus the start and end of
		// each window key (a struct is keyed by its two timestamps).
		var fields []arrow.Field
		for _, f := range sch.Fields() {
			f.Metadata = arrow.Metadata{}
			fields = append(fields, f)
		}
		side.bufTime = side.timeCol
		for i, k := range side.keys {
			f := sch.Field(k)
			if !arrow.TypeEqual(f.Type, plan.WindowType) {
				continue
			}
			side.structKeys = append(side.structKeys, k)
			start := len(fields)
			fields = append(fields,
				arrow.Field{Name: fmt.Sprintf("__millrace_key%d_start", i), Type: columnar.Timestamp},
				arrow.Field{Name: fmt.Sprintf("__millrace_key%d_end", i), Type: columnar.Timestamp})
			side.keys[i] = start
			side.keys = append(side.keys, start+1)
			if _, ok := plan.WatermarkDelay(f); ok && side.timeCol < 0 && !side.windowKey {
				// a window key with a watermark can bound the state: rows
				// match only rows of the same window, which closes at its end
				side.bufTime, side.windowKey = start+1, true
			}
		}
		side.bufFields = fields
		j.sides[s] = side
	}
	if j.sides[0].windowKey && j.sides[1].windowKey && n.TimeLeft == "" {
		// joined on their windows: a row matches rows of its own window
		j.lower, j.upper, j.windowJoin = 0, 0, true
		for s := range j.sides {
			j.sides[s].timeCol, j.sides[s].late = j.sides[s].bufTime, true
		}
	} else {
		for s := range j.sides {
			if j.sides[s].windowKey {
				j.sides[s].windowKey, j.sides[s].bufTime = false, -1
			}
		}
	}
	for s := range j.sides {
		side := &j.sides[s]
		if side.bufTime < 0 {
			// a constant time: without a range, rows are never evicted
			side.bufFields = append(side.bufFields, arrow.Field{Name: "__millrace_join_time", Type: arrow.PrimitiveTypes.Int64})
			side.bufTime = len(side.bufFields) - 1
		}
		side.bufSchema = arrow.NewSchema(side.bufFields, nil)
	}
	if err := j.check(); err != nil {
		return nil, err
	}
	j.dom = j.findDominance()
	for p := 0; p < partitions; p++ {
		jp := &joinPartition{}
		for s := range jp.bufs {
			b, err := join.NewBuffer(mem, j.sides[s].bufSchema, j.sides[s].keys, j.sides[s].bufTime)
			if err != nil {
				return nil, err
			}
			jp.bufs[s] = b
		}
		if j.dom != nil {
			ext, err := join.NewExtremes(j.dom.groupTypes, j.dom.max)
			if err != nil {
				return nil, err
			}
			jp.ext, jp.retainAt = ext, minRetainRows
		}
		j.parts = append(j.parts, jp)
	}
	return j, nil
}

// check applies Spark's rules: outer and semi joins must be able to decide
// that a row will never match, which takes a watermark on both time columns
// and a bound on the right side of the range.
func (j *streamJoin) check() error {
	n := j.node
	if n.How == plan.LeftAntiJoin {
		return fmt.Errorf("LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported (Spark's rule): a left anti join needs a static right side")
	}
	needLeft := n.How == plan.LeftOuterJoin || n.How == plan.FullOuterJoin || n.How == plan.LeftSemiJoin
	needRight := n.How == plan.RightOuterJoin || n.How == plan.FullOuterJoin
	if !needLeft && !needRight {
		return nil
	}
	if n.TimeLeft == "" || !j.sides[0].late || !j.sides[1].late {
		return fmt.Errorf("stream-stream %s join between two streaming DataFrame/Datasets is not supported without a watermark in the join keys, or a watermark on the nullable side and an appropriate range condition (Spark's rule): a %s stream-stream join needs watermarks on both sides and a time-range condition between their event times (e.g. right.time Between(left.time, left.time + 1h)): without them a row's missing match is never final", sparkJoinName[n.How], n.How)
	}
	if needLeft && j.upper == plan.NoUpper {
		return fmt.Errorf("a %s stream-stream join needs an upper bound on %s - %s", n.How, n.TimeRight, n.TimeLeft)
	}
	if needRight && j.lower == plan.NoLower {
		return fmt.Errorf("a %s stream-stream join needs a lower bound on %s - %s", n.How, n.TimeRight, n.TimeLeft)
	}
	return nil
}

// sparkJoinName is a join type as Spark's messages name it.
var sparkJoinName = map[plan.JoinType]string{plan.InnerJoin: "Inner", plan.LeftOuterJoin: "LeftOuter",
	plan.RightOuterJoin: "RightOuter", plan.FullOuterJoin: "FullOuter", plan.LeftSemiJoin: "LeftSemi", plan.LeftAntiJoin: "LeftAnti"}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

func (j *streamJoin) name() string               { return "symmetricHashJoin" }
func (j *streamJoin) inputSchema() *arrow.Schema { return j.sides[0].schema }
func (j *streamJoin) numPartitions() int         { return len(j.parts) }
func (j *streamJoin) enableDurability()          { j.durable = true }

func (j *streamJoin) closesByWatermark() bool {
	_, ok := j.stateWatermarks(0)
	return ok[0] || ok[1]
}

// stateWatermarks returns, for the input watermark wUs, the event time at
// or below which each side's buffered rows can match no future row (ok
// false for a side whose state is never cleaned). These are Spark's state
// watermarks (StreamingJoinHelper.getStateValueWatermark), to the
// millisecond, so that rows leave — and outer joins emit them — in the
// same batch as in Spark: for rt <= lt + upper the left side's is
// trunc_ms(w − upper) − 1 ms, for rt >= lt + lower the right side's is
// trunc_ms(w + lower) − 1 ms (no − 1 ms for a strict < or >). Spark
// derives them only when both sides' times carry a watermark. Joined on
// window keys, a side's rows leave when their window ends at or before w.
func (j *streamJoin) stateWatermarks(wUs int64) (bound [2]int64, ok [2]bool) {
	if j.windowJoin {
		return [2]int64{wUs, wUs}, [2]bool{true, true}
	}
	if !j.sides[0].late || !j.sides[1].late {
		return bound, ok
	}
	if j.upper != plan.NoUpper {
		upper, inclusive := j.upper, !j.node.UpperStrict
		if !inclusive {
			upper++ // the strict bound as written
		}
		bound[0], ok[0] = sparkStateWatermark(satSub(wUs, upper), inclusive), true
	}
	if j.lower != plan.NoLower {
		lower, inclusive := j.lower, !j.node.LowerStrict
		if !inclusive {
			lower--
		}
		bound[1], ok[1] = sparkStateWatermark(satAdd(wUs, lower), inclusive), true
	}
	return bound, ok
}

// sparkStateWatermark is Spark's rounding of a state watermark: the value
// truncated to milliseconds, less one for an inclusive condition; in µs.
func sparkStateWatermark(us int64, inclusive bool) int64 {
	if us == plan.NoLower || us == plan.NoUpper {
		return us
	}
	ms := us / 1000 // Spark converts with toLong: towards zero, as Go's division
	if inclusive {
		ms--
	}
	return ms * 1000
}

// outputWatermark is the smaller state watermark (Spark's
// produceOutputWatermark): a joined row is never older than the rows
// still buffered, so a downstream operator can close what is older.
func (j *streamJoin) outputWatermark(inUs int64) (int64, bool) {
	bound, ok := j.stateWatermarks(inUs)
	switch {
	case ok[0] && ok[1]:
		return min(bound[0], bound[1]), true
	case ok[0]:
		return bound[0], true
	case ok[1]:
		return bound[1], true
	}
	return 0, false
}

func (j *streamJoin) fingerprint() operatorFingerprint {
	op := operatorFingerprint{Operator: "streamJoin " + j.node.How.String()}
	for i := range j.node.LeftKeys {
		idx, _ := columnar.FieldIndex(j.sides[0].schema, j.node.LeftKeys[i])
		f := j.sides[0].schema.Field(idx)
		op.Keys = append(op.Keys, fmt.Sprintf("%s = %s: %s", j.node.LeftKeys[i], j.node.RightKeys[i], columnar.TypeName(f.Type)))
	}
	op.Aggs = []string{fmt.Sprintf("left %s", columnar.FieldNames(j.sides[0].schema)), fmt.Sprintf("right %s", columnar.FieldNames(j.sides[1].schema))}
	return op
}

// prepare drops late rows of the task's side and routes the rest by key.
func (j *streamJoin) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	defer b.Release()
	side := &j.sides[t.side]
	sel := b.Sel
	// the buffer's record: the side's columns, the window keys' start and
	// end, and the constant time column when the buffer needs one
	cols := append([]arrow.Array(nil), b.Rec.Columns()...)
	for _, k := range side.structKeys {
		st := b.Rec.Column(k).(*array.Struct)
		cols = append(cols, st.Field(0), st.Field(1))
	}
	if len(cols) < side.bufSchema.NumFields() {
		zeros := constZeros(t.mem, int(b.Rec.NumRows()))
		defer zeros.Release()
		cols = append(cols, zeros)
	}
	rec := array.NewRecordBatch(side.bufSchema, cols, b.Rec.NumRows())
	defer rec.Release()
	if side.late && t.watermarkUs != noWatermark {
		// a row without event time is never late; the late-data sink
		// takes the left side's late rows
		kept, err := out.notLate(t, rec.Column(side.timeCol), t.watermarkUs, b.Sel, true)
		if err != nil {
			return err
		}
		if t.side != 0 {
			late = nil
		}
		if err := out.dropLate(t, b.Rec, b.Sel, kept, late); err != nil {
			return err
		}
		sel = kept
	}
	if t.side == 0 && j.dom != nil {
		// drop the rows dominated within the batch before the shuffle
		// holds them, keeping a dense copy when few are left
		pruned, kept, err := j.dom.prune(t, rec, sel)
		if err != nil {
			return err
		}
		defer pruned.Release()
		rec, sel = pruned, kept
	}
	t.keys = columnsOf(rec, side.keys, t.keys)
	out.route(t, len(j.parts), rec, t.keys, sel)
	return nil
}

func constZeros(mem memory.Allocator, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(make([]int64, n), nil)
	return b.NewArray()
}

// update probes and buffers partition p's new rows: left rows first, then
// right rows.
func (j *streamJoin) update(p int, inputs []*shuffled) error {
	jp := j.parts[p]
	for side := int8(0); side < 2; side++ {
		for _, in := range inputs {
			if in.parts == nil {
				continue
			}
			for k, b := range in.parts[p] {
				if in.side[p][k] != side {
					continue
				}
				if err := j.probeAndAdd(jp, int(side), b); err != nil {
					return fmt.Errorf("join partition %d: %w", p, err)
				}
			}
		}
	}
	if jp.ext != nil && jp.bufs[0].Rows() >= jp.retainAt {
		if err := j.dom.retain(j.mem, jp); err != nil {
			return fmt.Errorf("join partition %d: %w", p, err)
		}
	}
	return nil
}

func (j *streamJoin) probeAndAdd(jp *joinPartition, side int, b columnar.Batch) error {
	me, other := &j.sides[side], jp.bufs[1-side]
	if side == 0 && jp.ext != nil {
		// dominated rows can match nothing: neither probe nor buffer them
		kept, err := j.dom.keep(jp, b)
		if err != nil {
			return err
		}
		jp.pruned += int64(liveRows(b.Sel, int(b.Rec.NumRows())) - len(kept))
		b.Sel = kept
	}
	jp.keys = columnsOf(b.Rec, me.keys, jp.keys)
	keys := jp.keys
	// other.time - mine must lie in the range seen from this side
	lower, upper := j.lower, j.upper
	if side == 1 { // left.time ∈ [right.time − upper, right.time − lower]
		lower, upper = neg(j.upper), neg(j.lower)
	}
	times := b.Rec.Column(me.bufTime)
	if me.timeCol < 0 {
		lower, upper = plan.NoLower, plan.NoUpper
	}
	m := &jp.m
	if err := other.Probe(keys, times, b.Sel, lower, upper, m); err != nil {
		return err
	}
	jp.matched = m.DistinctProbeRows(jp.matched)
	matched := jp.matched
	switch {
	case j.node.How == plan.LeftSemiJoin && side == 0:
		if len(matched) > 0 {
			cols := join.TakeRows(j.mem, b.Rec, j.sides[0].outCols, matched)
			jp.out = append(jp.out, join.Assemble(j.schema, len(matched), cols))
		}
	case j.node.How == plan.LeftSemiJoin:
		if len(m.FirstMatched) > 0 {
			cols := other.GatherColumns(j.mem, m.FirstMatched, j.sides[0].outCols)
			jp.out = append(jp.out, join.Assemble(j.schema, len(m.FirstMatched), cols))
		}
	case m.Len() > 0:
		pairs := m.Len()
		var left, right []arrow.Array
		if side == 0 {
			left = join.TakeRows(j.mem, b.Rec, j.sides[0].outCols, m.ProbeRows)
			right = other.GatherColumns(j.mem, m.BuildRows, j.sides[1].outCols)
		} else {
			left = other.GatherColumns(j.mem, m.BuildRows, j.sides[0].outCols)
			right = join.TakeRows(j.mem, b.Rec, j.sides[1].outCols, m.ProbeRows)
		}
		jp.out = append(jp.out, join.Assemble(j.schema, pairs, left, right))
	}
	_, err := jp.bufs[side].Add(b.Rec, b.Sel, matched)
	return err
}

func neg(v int64) int64 {
	switch v {
	case plan.NoLower:
		return plan.NoUpper
	case plan.NoUpper:
		return plan.NoLower
	}
	return -v
}

// emit hands over the batch's matches and evicts the rows the watermark
// closed, emitting unmatched ones with nulls for outer joins.
func (j *streamJoin) emit(mem memory.Allocator, p int, watermarkUs int64) ([]arrow.RecordBatch, int64, int64, error) {
	jp := j.parts[p]
	out := jp.out
	jp.out = nil
	var removed int64
	if watermarkUs == noWatermark {
		return out, 0, 0, nil
	}
	bounds, ok := j.stateWatermarks(watermarkUs)
	for side := 0; side < 2; side++ {
		if !ok[side] || bounds[side] == plan.NoLower {
			continue
		}
		rec, matched := jp.bufs[side].Evict(satAdd(bounds[side], 1)) // rows at or below the bound
		if side == 0 && jp.ext != nil {
			jp.ext.Evict(satAdd(bounds[side], 1))
		}
		if rec == nil {
			continue
		}
		removed += rec.NumRows()
		if r := j.unmatched(side, rec, matched); r != nil {
			out = append(out, r)
		}
		rec.Release()
	}
	return out, 0, removed, nil
}

// unmatched returns the evicted rows of side that never matched, with nulls
// for the other side, when the join type emits them.
func (j *streamJoin) unmatched(side int, rec arrow.RecordBatch, matched []bool) arrow.RecordBatch {
	how := j.node.How
	emits := (side == 0 && (how == plan.LeftOuterJoin || how == plan.FullOuterJoin)) ||
		(side == 1 && (how == plan.RightOuterJoin || how == plan.FullOuterJoin))
	if !emits {
		return nil
	}
	var rows []int32
	for i, m := range matched {
		if !m {
			rows = append(rows, int32(i))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	mine := join.TakeRows(j.mem, rec, j.sides[side].outCols, rows)
	var otherTypes []arrow.DataType
	for _, c := range j.sides[1-side].outCols {
		otherTypes = append(otherTypes, j.sides[1-side].schema.Field(c).Type)
	}
	nulls := join.NullColumns(j.mem, otherTypes, len(rows))
	if side == 0 {
		return join.Assemble(j.schema, len(rows), mine, nulls)
	}
	return join.Assemble(j.schema, len(rows), nulls, mine)
}

func satSub(a, b int64) int64 {
	if b > 0 && a < plan.NoLower+b {
		return plan.NoLower
	}
	if b < 0 && a > plan.NoUpper+b {
		return plan.NoUpper
	}
	return a - b
}

func satAdd(a, b int64) int64 { return satSub(a, -b) }

func (j *streamJoin) partitionRows(p int) (int64, int64) {
	jp := j.parts[p]
	bytes := jp.bufs[0].MemoryUsage() + jp.bufs[1].MemoryUsage()
	if jp.ext != nil {
		bytes += jp.ext.MemoryUsage()
	}
	return int64(jp.bufs[0].Rows() + jp.bufs[1].Rows()), bytes
}

func (j *streamJoin) release() {
	for _, jp := range j.parts {
		for _, r := range jp.out {
			r.Release()
		}
		jp.out = nil
		for _, b := range jp.bufs {
			b.Release()
		}
	}
}

// Durable form: per side, the buffer's own encodings: "<side>s" a snapshot,
// "<side>c" + sequence number the changes of one batch.

func joinStateKey(side int, kind byte, seq uint64) []byte {
	k := []byte{byte('L' + side*('R'-'L')), kind}
	if kind == 'c' {
		k = binary.BigEndian.AppendUint64(k, seq)
	}
	return k
}

func (j *streamJoin) takeChanges(p int) partChanges {
	jp := j.parts[p]
	var ch partChanges
	for side, b := range jp.bufs {
		data, err := b.Changes()
		if err != nil {
			continue // a snapshot follows when changes cannot be encoded
		}
		ch.putKeys = append(ch.putKeys, joinStateKey(side, 'c', jp.seq))
		ch.putVals = append(ch.putVals, data)
	}
	jp.seq++
	return ch
}

func (j *streamJoin) snapshot(p int) ([][]byte, [][]byte, error) {
	jp := j.parts[p]
	var keys, vals [][]byte
	for side, b := range jp.bufs {
		data, err := b.Snapshot()
		if err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, joinStateKey(side, 's', 0)), append(vals, data)
	}
	return keys, vals, nil
}

func (j *streamJoin) load(p int, keys, vals [][]byte) error {
	jp := j.parts[p]
	type entry struct {
		seq  uint64
		data []byte
	}
	for side, b := range jp.bufs {
		prefix := byte('L' + side*('R'-'L'))
		var changes []entry
		for i, k := range keys {
			if len(k) < 2 || k[0] != prefix {
				continue
			}
			switch k[1] {
			case 's':
				if err := b.Load(vals[i]); err != nil {
					return err
				}
			case 'c':
				seq := binary.BigEndian.Uint64(k[2:])
				changes = append(changes, entry{seq, vals[i]})
				jp.seq = max(jp.seq, seq+1)
			}
		}
		sort.Slice(changes, func(a, c int) bool { return changes[a].seq < changes[c].seq })
		for _, c := range changes {
			if err := b.ApplyChanges(c.data); err != nil {
				return err
			}
		}
	}
	return nil
}
