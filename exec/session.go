package exec

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/plan"
)

// sessionOperator is an aggregation grouped by a session window (and other
// keys). Sessions merge as rows arrive, across triggers, and a late row can
// bridge two sessions, so the operator buffers the rows of open sessions
// (their keys, event time and aggregate arguments) and, each trigger,
// derives the sessions of every key from them: rows sorted by time, a new
// session whenever a row is more than gap after the current session's last
// row (a row exactly gap after it extends the session, as in Spark). A session whose end (last row + gap) the watermark has passed is
// closed: its rows are aggregated, emitted (Append mode) and dropped from
// the buffer. Rows whose own session [t, t+gap) is already closed are late.
type sessionOperator struct {
	node     *plan.Aggregate
	inSch    *arrow.Schema
	keyIdx   int         // position of the session key among the keys
	keys     []evaluator // the other keys
	keyTypes []arrow.DataType
	keyNames []string
	time     evaluator
	gapUs    int64
	args     []evaluator
	argTypes []arrow.DataType
	specs    []agg.Spec
	mem      memory.Allocator
	durable  bool
	parts    []*sessionPartition
	// layout of buffered records: keys..., time, args...
	bufSchema *arrow.Schema
}

type sessionPartition struct {
	recs    []arrow.RecordBatch
	live    []int // live rows per record; a record is released at 0
	rows    []bufferedRow
	seq     uint64
	changes partChanges
	// ht numbers the distinct other-key tuples (nil without other keys:
	// every row has key id 0)
	ht *agg.HashTable
}

type bufferedRow struct {
	rec, row int32
	ts       int64
	seq      uint64
	kid      uint32 // key id in the partition's hash table
	key      string // encoded other keys (only when the state is durable)
}

func newSessionOperator(n *plan.Aggregate, partitions int, mem memory.Allocator) (*sessionOperator, error) {
	in := n.Input.Schema()
	s := &sessionOperator{node: n, inSch: in, mem: mem}
	var fields []arrow.Field
	for i, k := range n.Keys {
		if sess, ok := plan.Unalias(k).(plan.Session); ok {
			s.keyIdx = i
			ev, err := compileExpr(sess.Time, in)
			if err != nil {
				return nil, err
			}
			s.time, s.gapUs = ev, sess.Gap.Microseconds()
			c, ok := sess.Time.(plan.ColumnRef)
			if !ok {
				return nil, fmt.Errorf("session_window needs a column as its time, got %s", sess.Time)
			}
			idx, _ := columnar.FieldIndex(in, c.Name)
			if _, ok := plan.WatermarkDelay(in.Field(idx)); !ok {
				return nil, fmt.Errorf("session windows need a watermark on %s: call WithWatermark(%q, delay) before GroupBy", c.Name, c.Name)
			}
			continue
		}
		ev, err := compileExpr(k, in)
		if err != nil {
			return nil, err
		}
		t, _ := plan.TypeOf(k, in)
		s.keys = append(s.keys, ev)
		s.keyTypes = append(s.keyTypes, t)
		s.keyNames = append(s.keyNames, plan.OutputName(k))
		fields = append(fields, arrow.Field{Name: plan.OutputName(k), Type: t, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "__time", Type: columnar.Timestamp})
	var err error
	if s.args, s.argTypes, s.specs, err = compileAggs(n.Aggs, in); err != nil {
		return nil, err
	}
	for i, t := range s.argTypes {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("__arg%d", i+1), Type: t, Nullable: true})
	}
	s.bufSchema = arrow.NewSchema(fields, nil)
	for p := 0; p < partitions; p++ {
		s.parts = append(s.parts, &sessionPartition{})
	}
	return s, nil
}

func (s *sessionOperator) name() string               { return "sessionWindowStateStoreSave" }
func (s *sessionOperator) inputSchema() *arrow.Schema { return s.inSch }
func (s *sessionOperator) numPartitions() int         { return len(s.parts) }

// outputWatermark passes the input watermark on.
func (s *sessionOperator) outputWatermark(inUs int64) (int64, bool) { return inUs, true }

func (s *sessionOperator) closesByWatermark() bool { return true }
func (s *sessionOperator) enableDurability()       { s.durable = true }

func (s *sessionOperator) fingerprint() operatorFingerprint {
	op := operatorFingerprint{Operator: "sessionAggregate"}
	for i, k := range s.node.Keys {
		t, _ := plan.TypeOf(k, s.inSch)
		op.Keys = append(op.Keys, fmt.Sprintf("%s: %s", plan.Unalias(s.node.Keys[i]), columnar.TypeName(t)))
	}
	for _, e := range s.node.Aggs {
		ag := plan.Unalias(e).(plan.Agg)
		t, _ := plan.TypeOf(ag, s.inSch)
		op.Aggs = append(op.Aggs, fmt.Sprintf("%s: %s", ag, columnar.TypeName(t)))
	}
	return op
}

// prepare evaluates keys, time and arguments, drops late rows and routes
// the rest by the other keys.
func (s *sessionOperator) prepare(t *task, b columnar.Batch, out *shuffled, late *lateRouter) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	tsArr, err := s.time.value(t.mem, b.Rec)
	if err != nil {
		return err
	}
	defer tsArr.Release()
	// rows without event time belong to no session
	sel := kernels.SelectNotNull(tsArr, b.Sel, t.sels.take(b.NumRows()))
	if t.watermarkUs != noWatermark {
		kept, err := out.notLate(t, tsArr, t.watermarkUs-s.gapUs, sel, false)
		if err != nil {
			return err
		}
		if err := out.dropLate(t, b.Rec, sel, kept, late); err != nil {
			return err
		}
		sel = kept
	}
	if len(sel) == 0 {
		return nil
	}
	// the buffered record: the other keys, the time, the arguments
	cols, err := appendValues(t.mem, b.Rec, s.keys, make([]arrow.Array, 0, s.bufSchema.NumFields()))
	if err == nil {
		tsArr.Retain()
		cols, err = appendValues(t.mem, b.Rec, s.args, append(cols, tsArr))
	}
	if err != nil {
		columnar.ReleaseAll(cols)
		return err
	}
	rec := array.NewRecordBatch(s.bufSchema, cols, b.Rec.NumRows())
	columnar.ReleaseAll(cols)
	defer rec.Release()
	out.route(t, len(s.parts), rec, rec.Columns()[:len(s.keys)], sel)
	return nil
}

// update buffers the rows routed to partition p.
func (s *sessionOperator) update(p int, inputs []*shuffled) error {
	sp := s.parts[p]
	nk := len(s.keys)
	for _, in := range inputs {
		if in.parts == nil {
			continue
		}
		for _, b := range in.parts[p] {
			var keys [][]byte
			var err error
			if s.durable {
				if keys, err = columnar.EncodeKeys(nil, b.Rec.Columns()[:nk], b.Sel); err != nil {
					return err
				}
			}
			kids, err := s.keyIDs(sp, b.Rec.Columns()[:nk], b.Sel)
			if err != nil {
				return err
			}
			ts := timestampValues(b.Rec.Column(nk).(*array.Timestamp))
			b.Rec.Retain()
			ri := int32(len(sp.recs))
			sp.recs = append(sp.recs, b.Rec)
			sp.live = append(sp.live, len(b.Sel))
			var vals [][]byte
			if s.durable {
				if vals, err = columnar.EncodeKeys(nil, b.Rec.Columns()[nk+1:], b.Sel); err != nil {
					return err
				}
			}
			for i, r := range b.Sel {
				row := bufferedRow{rec: ri, row: r, ts: ts[r], seq: sp.seq, kid: kids[i]}
				if s.durable {
					row.key = string(keys[i])
				}
				sp.seq++
				sp.rows = append(sp.rows, row)
				if s.durable {
					k, v := s.encodeRow(row, vals[i])
					sp.changes.putKeys = append(sp.changes.putKeys, k)
					sp.changes.putVals = append(sp.changes.putVals, v)
				}
			}
		}
	}
	return nil
}

// emit closes the sessions the watermark has passed: aggregates and emits
// them and forgets their rows.
func (s *sessionOperator) emit(mem memory.Allocator, p int, watermarkUs int64) ([]arrow.RecordBatch, int64, int64, error) {
	sp := s.parts[p]
	if len(sp.rows) == 0 || watermarkUs == noWatermark {
		return nil, 0, 0, nil
	}
	// Only keys whose earliest row's own session [t, t+gap) has ended can
	// have a closed session; the others are skipped.
	nk := 1
	if sp.ht != nil {
		nk = sp.ht.Len()
	}
	minTS := make([]int64, nk)
	for i := range minTS {
		minTS[i] = math.MaxInt64
	}
	for _, r := range sp.rows {
		minTS[r.kid] = min(minTS[r.kid], r.ts)
	}
	// candidate rows grouped by key id (a counting sort), in arrival order
	count := make([]int, nk+1)
	for _, r := range sp.rows {
		if minTS[r.kid] <= watermarkUs-s.gapUs {
			count[r.kid+1]++
		}
	}
	for k := 1; k <= nk; k++ {
		count[k] += count[k-1]
	}
	idx := make([]int, count[nk])
	fill := append([]int(nil), count[:nk]...)
	for i, r := range sp.rows {
		if minTS[r.kid] <= watermarkUs-s.gapUs {
			idx[fill[r.kid]] = i
			fill[r.kid]++
		}
	}
	var closed []closedRow
	for k := 0; k < nk; k++ {
		rows := idx[count[k]:count[k+1]]
		if len(rows) == 0 {
			continue
		}
		sort.Slice(rows, func(a, b int) bool {
			ra, rb := &sp.rows[rows[a]], &sp.rows[rows[b]]
			if ra.ts != rb.ts {
				return ra.ts < rb.ts
			}
			return ra.seq < rb.seq
		})
		for lo := 0; lo < len(rows); {
			start := sp.rows[rows[lo]].ts
			end := start + s.gapUs
			hi := lo + 1
			// A row exactly one gap after the session's last row still
			// extends it: Spark merges sessions whose bounds touch.
			for hi < len(rows) && sp.rows[rows[hi]].ts <= end {
				end = max(end, sp.rows[rows[hi]].ts+s.gapUs)
				hi++
			}
			if end > watermarkUs {
				break // later sessions of the key end later still
			}
			for _, i := range rows[lo:hi] {
				closed = append(closed, closedRow{i: i, rec: sp.rows[i].rec, row: sp.rows[i].row, start: start, end: end})
			}
			lo = hi
		}
	}
	if len(closed) == 0 {
		return nil, 0, 0, nil
	}
	rec, err := s.aggregate(mem, sp, closed)
	if err != nil {
		return nil, 0, 0, err
	}
	gone := make([]int, len(closed))
	for j, c := range closed {
		gone[j] = c.i
	}
	removed := s.forget(sp, gone)
	return []arrow.RecordBatch{rec}, 0, removed, nil
}

// closedRow is a buffered row of a closed session, with the session's
// bounds.
type closedRow struct {
	i          int // index in the partition's rows
	rec, row   int32
	start, end int64
}

// aggregate computes the aggregates of the closed sessions whose rows are
// given and returns them in output schema.
func (s *sessionOperator) aggregate(mem memory.Allocator, sp *sessionPartition, closed []closedRow) (arrow.RecordBatch, error) {
	nk := len(s.keys)
	// gather the rows record by record, in row order, then concatenate
	sort.Slice(closed, func(a, b int) bool {
		if closed[a].rec != closed[b].rec {
			return closed[a].rec < closed[b].rec
		}
		return closed[a].row < closed[b].row
	})
	var parts []arrow.RecordBatch
	st := make([]int64, len(closed))
	en := make([]int64, len(closed))
	for lo := 0; lo < len(closed); {
		hi := lo
		sel := make([]int32, 0, 16)
		for hi < len(closed) && closed[hi].rec == closed[lo].rec {
			sel = append(sel, closed[hi].row)
			st[hi], en[hi] = closed[hi].start, closed[hi].end
			hi++
		}
		parts = append(parts, kernels.Compact(mem, columnar.Batch{Rec: sp.recs[closed[lo].rec], Sel: sel}))
		lo = hi
	}
	defer func() {
		for _, r := range parts {
			r.Release()
		}
	}()
	cols := make([]arrow.Array, s.bufSchema.NumFields())
	for c := range cols {
		arrs := make([]arrow.Array, len(parts))
		for i, r := range parts {
			arrs[i] = r.Column(c)
		}
		cat, err := array.Concatenate(arrs, mem)
		if err != nil {
			return nil, err
		}
		cols[c] = cat
	}
	startArr, endArr := timestampArray(mem, st), timestampArray(mem, en)
	defer func() {
		for _, c := range cols {
			c.Release()
		}
		startArr.Release()
		endArr.Release()
	}()
	keyTypes := append([]arrow.DataType{columnar.Timestamp, columnar.Timestamp}, s.keyTypes...)
	tab, err := agg.NewTable(keyTypes, s.argTypes, s.specs)
	if err != nil {
		return nil, err
	}
	keyCols := append([]arrow.Array{startArr, endArr}, cols[:nk]...)
	if err := tab.Update(keyCols, cols[nk+1:], nil); err != nil {
		return nil, err
	}
	raw := tab.Emit(mem, tab.AllGroups(), nil)
	defer raw.Release()
	out := s.node.Schema()
	outCols := make([]arrow.Array, out.NumFields())
	win := windowStructFrom(raw.Column(0).(*array.Timestamp), raw.Column(1).(*array.Timestamp))
	other := 0
	for i := range s.node.Keys {
		if i == s.keyIdx {
			outCols[i] = win
			continue
		}
		c := raw.Column(2 + other)
		c.Retain()
		outCols[i] = c
		other++
	}
	for j := range s.node.Aggs {
		c := raw.Column(2 + nk + j)
		want := out.Field(len(s.node.Keys) + j).Type
		if !arrow.TypeEqual(c.DataType(), want) {
			cast, err := kernels.Cast(mem, c, want)
			if err != nil {
				return nil, err
			}
			outCols[len(s.node.Keys)+j] = cast
			continue
		}
		c.Retain()
		outCols[len(s.node.Keys)+j] = c
	}
	rec := array.NewRecordBatch(out, outCols, raw.NumRows())
	for _, c := range outCols {
		c.Release()
	}
	return rec, nil
}

// forget drops buffered rows (by index) and releases records left empty.
func (s *sessionOperator) forget(sp *sessionPartition, rows []int) int64 {
	gone := make([]bool, len(sp.rows))
	for _, i := range rows {
		gone[i] = true
	}
	kept := sp.rows[:0]
	for i, r := range sp.rows {
		if !gone[i] {
			kept = append(kept, r)
			continue
		}
		if s.durable {
			sp.changes.delKeys = append(sp.changes.delKeys, seqKey(r.seq))
		}
		sp.live[r.rec]--
		if sp.live[r.rec] == 0 {
			sp.recs[r.rec].Release()
			sp.recs[r.rec] = nil
		}
	}
	sp.rows = kept
	s.compactRecords(sp)
	if sp.ht != nil && sp.ht.Len() > 4096 && sp.ht.Len() > 4*len(sp.rows) {
		s.rebuildKeys(sp) // forget keys without buffered rows
	}
	return int64(len(rows))
}

// keyIDs returns the key id of each live row of a batch's key columns.
func (s *sessionOperator) keyIDs(sp *sessionPartition, keys []arrow.Array, sel []int32) ([]uint32, error) {
	if len(keys) == 0 {
		n := len(sel)
		return make([]uint32, n), nil
	}
	if sp.ht == nil {
		ht, err := agg.NewHashTable(s.keyTypes)
		if err != nil {
			return nil, err
		}
		sp.ht = ht
	}
	return sp.ht.Lookup(keys, sel, nil, true)
}

// rebuildKeys renumbers the keys of the buffered rows in a new table.
func (s *sessionOperator) rebuildKeys(sp *sessionPartition) {
	ht, err := agg.NewHashTable(s.keyTypes)
	if err != nil {
		return
	}
	nk := len(s.keys)
	byRec := make([][]int, len(sp.recs))
	for i, r := range sp.rows {
		byRec[r.rec] = append(byRec[r.rec], i)
	}
	for ri, rows := range byRec {
		if len(rows) == 0 {
			continue
		}
		sel := make([]int32, len(rows))
		for j, i := range rows {
			sel[j] = sp.rows[i].row
		}
		// Lookup wants an increasing selection: rows of a record are
		// buffered in row order
		sort.Slice(rows, func(a, b int) bool { return sp.rows[rows[a]].row < sp.rows[rows[b]].row })
		for j, i := range rows {
			sel[j] = sp.rows[i].row
		}
		kids, err := ht.Lookup(sp.recs[ri].Columns()[:nk], sel, nil, true)
		if err != nil {
			return
		}
		for j, i := range rows {
			sp.rows[i].kid = kids[j]
		}
	}
	sp.ht = ht
}

// compactRecords drops released records from the list.
func (s *sessionOperator) compactRecords(sp *sessionPartition) {
	remap := make([]int32, len(sp.recs))
	var recs []arrow.RecordBatch
	var live []int
	for i, r := range sp.recs {
		if r == nil {
			continue
		}
		remap[i] = int32(len(recs))
		recs = append(recs, r)
		live = append(live, sp.live[i])
	}
	for i := range sp.rows {
		sp.rows[i].rec = remap[sp.rows[i].rec]
	}
	sp.recs, sp.live = recs, live
}

func (s *sessionOperator) partitionRows(p int) (int64, int64) {
	sp := s.parts[p]
	// the buffered records' Arrow buffers, each once, the row index and
	// the encoded keys
	bytes := recordBytes(sp.recs...) + int64(cap(sp.rows))*int64(unsafe.Sizeof(bufferedRow{})) + int64(cap(sp.live))*8
	for i := range sp.rows {
		bytes += int64(len(sp.rows[i].key))
	}
	if sp.ht != nil {
		bytes += sp.ht.MemoryUsage()
	}
	return int64(len(sp.rows)), bytes
}

// Durable form: one state row per buffered row, key = its sequence number,
// value = uvarint length of the encoded keys, the keys, the event time
// (8 bytes) and the encoded arguments.

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func (s *sessionOperator) encodeRow(r bufferedRow, args []byte) ([]byte, []byte) {
	v := binary.AppendUvarint(nil, uint64(len(r.key)))
	v = append(v, r.key...)
	v = binary.BigEndian.AppendUint64(v, uint64(r.ts))
	return seqKey(r.seq), append(v, args...)
}

func (s *sessionOperator) takeChanges(p int) partChanges {
	return s.parts[p].changes.take()
}

func (s *sessionOperator) snapshot(p int) ([][]byte, [][]byte, error) {
	sp := s.parts[p]
	nk := len(s.keys)
	var keys, vals [][]byte
	for _, r := range sp.rows {
		args, err := columnar.EncodeKeys(nil, sp.recs[r.rec].Columns()[nk+1:], []int32{r.row})
		if err != nil {
			return nil, nil, err
		}
		k, v := s.encodeRow(r, args[0])
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals, nil
}

func (s *sessionOperator) release() {
	for _, sp := range s.parts {
		sp.release()
	}
}

func (sp *sessionPartition) release() {
	for _, r := range sp.recs {
		if r != nil {
			r.Release()
		}
	}
	sp.recs, sp.live, sp.rows = nil, nil, nil
}

func (s *sessionOperator) load(p int, keys, vals [][]byte) error {
	s.parts[p].release()
	sp := &sessionPartition{}
	s.parts[p] = sp
	if len(keys) == 0 {
		return nil
	}
	nk := len(s.keys)
	keyEnc := make([][]byte, len(vals))
	argEnc := make([][]byte, len(vals))
	ts := make([]int64, len(vals))
	for i, v := range vals {
		n, k := binary.Uvarint(v)
		if k <= 0 || len(v) < k+int(n)+8 {
			return fmt.Errorf("bad session state row")
		}
		keyEnc[i] = v[k : k+int(n)]
		ts[i] = int64(binary.BigEndian.Uint64(v[k+int(n):]))
		argEnc[i] = v[k+int(n)+8:]
		sp.seq = max(sp.seq, binary.BigEndian.Uint64(keys[i])+1)
	}
	kcols, err := columnar.DecodeKeys(s.mem, keyEnc, s.keyTypes)
	if err != nil {
		return err
	}
	acols, err := columnar.DecodeKeys(s.mem, argEnc, s.argTypes)
	if err != nil {
		return err
	}
	tsArr := timestampArray(s.mem, ts)
	cols := append(append(kcols, tsArr), acols...)
	rec := array.NewRecordBatch(s.bufSchema, cols, int64(len(vals)))
	for _, c := range cols {
		c.Release()
	}
	sp.recs = []arrow.RecordBatch{rec}
	sp.live = []int{len(vals)}
	kids, err := s.keyIDs(sp, rec.Columns()[:nk], nil)
	if err != nil {
		return err
	}
	for i := range vals {
		sp.rows = append(sp.rows, bufferedRow{rec: 0, row: int32(i), ts: ts[i], seq: binary.BigEndian.Uint64(keys[i]), kid: kids[i], key: string(keyEnc[i])})
	}
	return nil
}

// windowStructFrom builds struct<start, end> from start and end columns.
func windowStructFrom(starts, ends *array.Timestamp) arrow.Array {
	data := array.NewData(plan.WindowType, starts.Len(), []*memory.Buffer{nil}, []arrow.ArrayData{starts.Data(), ends.Data()}, 0, 0)
	defer data.Release()
	return array.NewStructData(data)
}
