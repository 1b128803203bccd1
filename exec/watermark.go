package exec

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/sources"
)

// watermarkTracker computes each batch's watermark from the event times the
// batches before it saw, as Spark's WatermarkTracker does with its default
// "min" policy: every watermark operator (a WithWatermark of some input)
// has its own watermark, max(event time seen) − delay, and the query's is
// the minimum over operators. An operator that has seen no data yet counts
// as 0 (Spark's rule), so the query's watermark does not move until every
// input has seen data. The watermark never moves backwards and is kept in
// whole milliseconds, as Spark records it.
//
// Flink's remedy for an input that goes quiet is an option: with an idle
// timeout, an operator that has seen no rows for that long (by the
// batches' processing time) stops holding the minimum back until rows
// reach it again. Idleness is judged when a batch is planned, and the
// watermark a batch runs with is recorded in its offsets entry, so a
// re-run batch uses the same value whatever the clock says then.
type watermarkTracker struct {
	ops []watermarkInfo
	// per operator: the maximum event time seen (µs), whether any was
	// seen, and the processing time (ms) of the last batch it saw rows in
	seen     []int64
	hasSeen  []bool
	lastData []int64
	// idleMs is the idle timeout (0: inputs are never idle).
	idleMs int64
	// current is the watermark of the next batch (µs).
	current int64
	log     *slog.Logger
	// jumpWarn is Config.WatermarkJumpWarning (0: the default).
	jumpWarn time.Duration
}

// notYet is lastData before the first trigger: the clock is read only by
// triggers (a test clock may count its calls), so an operator's idle time
// starts at the first trigger after the start.
const notYet = math.MinInt64

func newWatermarkTracker(ops []watermarkInfo, idle time.Duration, log *slog.Logger) *watermarkTracker {
	w := &watermarkTracker{
		ops:      ops,
		seen:     make([]int64, len(ops)),
		hasSeen:  make([]bool, len(ops)),
		lastData: make([]int64, len(ops)),
		idleMs:   idle.Milliseconds(),
		log:      log,
	}
	w.forgetIdleness()
	return w
}

func (w *watermarkTracker) forgetIdleness() {
	for i := range w.lastData {
		w.lastData[i] = notYet
	}
}

// observe folds the event times batch b saw into the operators' maxima.
func (w *watermarkTracker) observe(stats []eventStats, batchMs int64) {
	for i, st := range stats {
		if st.n == 0 {
			continue
		}
		if !w.hasSeen[i] || st.max > w.seen[i] {
			w.seen[i] = st.max
		}
		w.hasSeen[i] = true
		w.lastData[i] = max(w.lastData[i], batchMs)
	}
}

// advance recomputes the watermark at processing time nowMs (the time of
// the batch that just ran, or of the batch being planned) and returns it.
// batchID names the batch in warnings.
func (w *watermarkTracker) advance(nowMs, batchID int64) int64 {
	global, any := int64(0), false
	for i, op := range w.ops {
		if w.idle(i, nowMs) {
			continue
		}
		cand := int64(0) // Spark: an input without data counts as 0
		if w.hasSeen[i] {
			cand = w.seen[i] - op.delayUs
		}
		if !any || cand < global {
			global = cand
		}
		any = true
	}
	// Spark keeps watermarks in milliseconds; so do we, so that a restart
	// from the checkpoint resumes with exactly the same value.
	global = global / 1000 * 1000
	if any && global > w.current {
		w.warnJump(w.current, global, nowMs, batchID)
		w.current = global
	}
	return w.current
}

// idle reports whether operator i has seen no rows for the idle timeout.
func (w *watermarkTracker) idle(i int, nowMs int64) bool {
	if w.lastData[i] == notYet {
		w.lastData[i] = nowMs
	}
	return w.idleMs > 0 && nowMs-w.lastData[i] >= w.idleMs
}

// restore sets the watermark of the next batch after a restart. The event
// times behind it are gone; each operator resumes as if it had seen
// exactly the event time that yields it.
func (w *watermarkTracker) restore(us int64) {
	w.current = us
	w.forgetIdleness()
	if us <= 0 {
		return
	}
	for i, op := range w.ops {
		w.seen[i] = us + op.delayUs
		w.hasSeen[i] = true
	}
}

// operators returns what each operator has seen, for the commit log and
// the state store.
func (w *watermarkTracker) operators() []checkpoint.OperatorWatermark {
	out := make([]checkpoint.OperatorWatermark, len(w.ops))
	for i := range w.ops {
		out[i].LastRowsMs = w.lastData[i]
		if w.hasSeen[i] {
			v := w.seen[i]
			out[i].MaxEventTimeUs = &v
		}
	}
	return out
}

// restoreOperators is restore with what each operator had seen, recorded
// by an earlier run: the query goes on exactly as if it had not stopped.
// Records of another shape (an older checkpoint) fall back to restore.
func (w *watermarkTracker) restoreOperators(ops []checkpoint.OperatorWatermark, us int64) {
	if len(ops) != len(w.ops) {
		w.restore(us)
		return
	}
	w.current = us
	for i, op := range ops {
		w.lastData[i] = op.LastRowsMs
		w.hasSeen[i] = op.MaxEventTimeUs != nil
		w.seen[i] = 0
		if op.MaxEventTimeUs != nil {
			w.seen[i] = *op.MaxEventTimeUs
		}
	}
}

// jumpWarnFloor is the smallest watermark jump worth a warning by default;
// a jump of more than max(this, 10 × delay) is far more than lateness
// explains: event time moves with processing time, and a batch rarely
// spans more than a few delays of it.
const jumpWarnFloor = time.Hour

// jumpThreshold is the jump, in µs, above which advance warns.
func (w *watermarkTracker) jumpThreshold(maxDelay int64) int64 {
	if w.jumpWarn > 0 {
		return w.jumpWarn.Microseconds()
	}
	return max(jumpWarnFloor.Microseconds(), 10*maxDelay)
}

// warnJump logs a warning when the watermark moves far more than the
// delay, or past the processing time: one row dated in the future moves it
// there, and every later row older than it is dropped as late (Spark's
// semantics, which the query keeps; MaxEventTimeAhead bounds such rows).
func (w *watermarkTracker) warnJump(from, to, nowMs, batchID int64) {
	if w.log == nil {
		return
	}
	var maxDelay int64
	for _, op := range w.ops {
		maxDelay = max(maxDelay, op.delayUs)
	}
	nowUs := nowMs * 1000
	jump := to - from
	switch {
	case to > nowUs:
		w.log.Warn(fmt.Sprintf("millrace: the watermark passed the processing time in batch %d: some input has event times in the future; one such row is enough, and every later row older than the watermark is silently dropped as late (bound such rows with MaxEventTimeAhead)", batchID),
			"batch", batchID, "watermark", isoMicros(to), "processingTime", isoMicros(nowUs), "ahead", time.Duration(to-nowUs)*time.Microsecond)
	case from != noWatermark && jump > w.jumpThreshold(maxDelay):
		w.log.Warn(fmt.Sprintf("millrace: the watermark jumped far ahead in batch %d: one wrong (far-future) event time in that batch is enough to do it, and then every later row older than the new watermark is silently dropped as late; check the batch's input (bound such rows with MaxEventTimeAhead)", batchID),
			"batch", batchID, "from", isoMicros(from), "to", isoMicros(to), "jump", time.Duration(jump)*time.Microsecond, "delay", time.Duration(maxDelay)*time.Microsecond, "threshold", time.Duration(w.jumpThreshold(maxDelay))*time.Microsecond)
	}
}

// futureBound takes out the rows whose event time is more than aheadUs
// after their batch's processing time (Config.MaxEventTimeAhead): to the
// dead-letter sink when the query has one, else the query fails naming the
// row. Either way such a row never moves the watermark.
type futureBound struct {
	column  string
	aheadUs int64
	now     *atomic.Int64 // the running batch's processing time, µs
	routed  *deadLetters  // nil: fail
}

// futureBound returns the bound of the event-time column col, or nil when
// the query sets none.
func (c *compiled) futureBound(col string) *futureBound {
	if c.maxAheadUs <= 0 {
		return nil
	}
	return &futureBound{column: col, aheadUs: c.maxAheadUs, now: c.now, routed: c.operatorDeadLetters}
}

func (f *futureBound) apply(b columnar.Batch, col int) (columnar.Batch, error) {
	nowUs := f.now.Load()
	limit := nowUs + f.aheadUs
	ts := b.Rec.Column(col)
	far, err := kernels.CompareScalar(kernels.Gt, ts, limit, b.Sel, nil)
	if err != nil || len(far) == 0 {
		return b, err
	}
	vals := ts.(*array.Timestamp).TimestampValues()
	why := func(r int32) error {
		return fmt.Errorf("event time %s in column %s is more than %s ahead of the batch's processing time %s",
			isoMicros(int64(vals[r])), f.column, time.Duration(f.aheadUs)*time.Microsecond, isoMicros(nowUs))
	}
	if f.routed == nil {
		b.Release()
		return columnar.Batch{}, fmt.Errorf("%w (row %s); fix the producer's clock, raise MaxEventTimeAhead, or give the query a dead-letter sink to route such rows: %w",
			why(far[0]), rowJSON(b.Rec, int(far[0])), sources.ErrBadRecord)
	}
	for _, r := range far {
		f.routed.Add(sources.BadRecord{Source: "column " + f.column, Position: -1, Raw: []byte(rowJSON(b.Rec, int(r))), Err: why(r)})
	}
	all := b.Sel
	if all == nil {
		all = columnar.Identity(nil, int(b.Rec.NumRows()))
	}
	return columnar.Batch{Rec: b.Rec, Sel: kernels.Difference(all, far, nil)}, nil // takes over b's reference
}

// rowJSON renders row r of rec as a JSON object, for messages and the
// dead-letter sink.
func rowJSON(rec arrow.RecordBatch, r int) string {
	m := make(map[string]any, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		m[f.Name] = rec.Column(i).GetOneForMarshal(r)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Sprintf("<row %d: %v>", r, err)
	}
	return string(data)
}

// Watermark propagation through stateful operators, as Spark's
// PropagateWatermarkSimulator: a stage's input watermark is the minimum of
// what reaches it — the query's watermark from a watermarked source input,
// each upstream stage's output watermark (outputWatermark) — never below 0,
// and 0 for every stage while the query's watermark is 0. A stage closes
// and evicts with its input watermark of the running batch, and drops as
// late the rows at or below its input watermark of the batch before (for
// every stage, the first included: rows that became late only with this
// batch's watermark are still counted, as in Spark 3.4+).

// linkStages records which stages feed each stage and which stages a
// watermarked source input feeds directly.
func (c *compiled) linkStages() {
	for _, st := range c.stages {
		for _, o := range st.outs {
			o.next.upstream = append(o.next.upstream, st)
		}
	}
	for _, routes := range c.routes {
		for _, r := range routes {
			if r.stage != nil && hasWatermarkOp(r.ch) {
				r.stage.watermarked = true
			}
		}
	}
}

func hasWatermarkOp(ch chain) bool {
	for _, o := range ch {
		if _, ok := o.(watermarkOp); ok {
			return true
		}
	}
	return false
}

// stageWatermarks returns each stage's input watermark when the query's
// watermark is globalUs.
func (c *compiled) stageWatermarks(globalUs int64) []int64 {
	in := make([]int64, len(c.stages))
	if globalUs == noWatermark {
		return in
	}
	out := make([]int64, len(c.stages))
	has := make([]bool, len(c.stages))
	for i, st := range c.stages { // inputs first
		w, ok := int64(0), false
		if st.watermarked {
			w, ok = globalUs, true
		}
		for _, u := range st.upstream {
			if has[u.id] && (!ok || out[u.id] < w) {
				w, ok = out[u.id], true
			}
		}
		if ok {
			out[i], has[i] = st.op.outputWatermark(w)
		}
		in[i] = max(w, 0)
	}
	return in
}
