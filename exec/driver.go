package exec

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/kernels"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

// idlePoll is how long a ProcessingTime(0) query waits before asking its
// sources again after a trigger found no new data.
const idlePoll = 10 * time.Millisecond

// run is the query's driver loop.
func (q *Query) run(ctx context.Context) {
	for _, l := range q.listeners() {
		l.OnQueryStarted(q.id, q.runID, q.cfg.Name)
	}
	err := q.loop(ctx)
	if q.ckpt != nil {
		// the queued checkpoint writes finish before the query ends
		if cerr := q.ckpt.close(); err == nil {
			err = cerr
		}
	}
	if err == nil || (ctx.Err() != nil && q.isStopped()) {
		err = ErrStopped
	}
	q.mu.Lock()
	q.err = err
	q.status = Status{Message: "Stopped"}
	q.cond.Broadcast()
	q.mu.Unlock()
	q.c.release()
	for _, s := range q.c.scans {
		_ = s.Source.Close()
	}
	var reported error
	if !errors.Is(err, ErrStopped) {
		reported = err
	}
	for _, l := range q.listeners() {
		l.OnQueryTerminated(q.id, q.runID, reported)
	}
	close(q.done)
}

func (q *Query) isStopped() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stopped
}

func (q *Query) loop(ctx context.Context) (err error) {
	defer func() {
		// what runBatch and the tasks did not catch: the driver's own steps
		if r := recover(); r != nil {
			err = fmt.Errorf("batch %d: %w", q.batchID, panicError(q.at.String(), r))
		}
	}()
	if q.ckpt != nil {
		if err := q.ckpt.recover(ctx); err != nil {
			return err
		}
	}
	for {
		if ctx.Err() != nil {
			return nil
		}
		start := q.clock()
		ran, err := q.trigger(ctx, start)
		if err != nil {
			if ctx.Err() != nil && q.isStopped() {
				return nil
			}
			return err
		}
		q.mu.Lock()
		if !ran {
			q.idleCount++
		}
		q.cond.Broadcast() // ProcessAllAvailable waits for triggers
		q.mu.Unlock()
		switch q.cfg.Trigger.Kind {
		case TriggerOnce:
			return nil
		case TriggerAvailableNow:
			if !ran {
				return nil
			}
			continue
		}
		wait := q.cfg.Trigger.Interval - time.Since(start)
		if !ran && wait < idlePoll {
			wait = idlePoll
		}
		if wait > 0 {
			q.setStatus("Waiting for next trigger", false, false)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			case <-q.wake:
			}
		}
	}
}

// trigger plans and runs one batch if there is new data or the watermark
// moved far enough to close state. It reports whether a batch ran.
func (q *Query) trigger(ctx context.Context, start time.Time) (bool, error) {
	q.at = driverStep{}
	q.setStatus("Getting offsets from sources", false, true)
	cpu := newCPUMeter()
	t0 := time.Now()
	limit := q.cfg.ReadLimit
	if q.cfg.AdaptiveReadLimit {
		limit.MaxRows = q.adaptive.limit(q.cfg.ReadLimit.MaxRows)
	}
	if q.cfg.Trigger.Kind == TriggerOnce {
		limit = sources.ReadLimit{}
	}
	ends := make([]sources.Offset, len(q.c.scans))
	hasData := false
	for i, s := range q.c.scans {
		q.at = driverStep{"source", s.Source.Name(), "latest offset"}
		end, err := s.Source.LatestOffset(ctx, q.starts[i], limit)
		if err != nil {
			return false, fmt.Errorf("source %d (%s): latest offset: %w", i, s.Source.Name(), err)
		}
		ends[i] = end
		if end != q.starts[i] {
			hasData = true
		}
	}
	latestMs := time.Since(t0).Milliseconds()
	watermarkUs := q.wm.current
	if q.wm.idleMs > 0 {
		// an input that went idle since the last batch stops holding the
		// watermark back from this batch on
		watermarkUs = q.wm.advance(start.UnixMilli(), q.batchID)
	}
	noData := !hasData && q.wantsNoDataBatch(watermarkUs)
	if !hasData && !noData {
		return false, nil
	}
	b := &batchRun{
		id:              q.batchID,
		starts:          q.starts,
		ends:            ends,
		prevWatermarkUs: max(q.lastBatchWM, 0),
		watermarkUs:     watermarkUs,
		timestampMs:     start.UnixMilli(),
		durations:       map[string]int64{"latestOffset": latestMs},
		triggerAt:       start,
		wallStart:       t0,
		cpu:             cpu,
	}
	q.at = driverStep{}
	if q.ckpt != nil {
		// queued: durable before the sink commit (runBatch syncs there)
		t := time.Now()
		if err := q.ckpt.writeOffsets(b); err != nil {
			return false, err
		}
		b.durations["walCommit"] = time.Since(t).Milliseconds()
	}
	if err := q.execute(ctx, b); err != nil {
		return false, err
	}
	return true, nil
}

// wantsNoDataBatch reports whether the query's watermark moving from the
// last batch's to wUs moves the input watermark of a stateful operator
// that wants a no-data batch then, as Spark decides.
func (q *Query) wantsNoDataBatch(wUs int64) bool {
	if wUs <= q.lastBatchWM {
		return false
	}
	before, after := q.c.stageWatermarks(max(q.lastBatchWM, noWatermark)), q.c.stageWatermarks(wUs)
	for i, st := range q.c.stages {
		if st.op.closesByWatermark() && after[i] > before[i] {
			return true
		}
	}
	return false
}

// batchRun is one micro-batch: its planned range, its fixed watermark and
// timestamp, and what running it produced.
type batchRun struct {
	id          int64
	starts      []sources.Offset
	ends        []sources.Offset
	watermarkUs int64
	timestampMs int64
	triggerAt   time.Time
	// wallStart is when the trigger began on the real clock: durations
	// are real even when Config.Clock is not (tests, simulations).
	wallStart time.Time
	durations map[string]int64

	inputRows  []int64 // per source
	outputRows int64
	dropped    int64
	stats      []eventStats // per watermark operator
	stateOps   []StateOperator
	// prevWatermarkUs is the watermark of the batch before. Per stage,
	// evictUs is the input watermark it closes and evicts with, lateUs the
	// one (of the batch before) at or below which its input rows are late
	// (watermark.go).
	prevWatermarkUs int64
	evictUs, lateUs []int64
	badRecords      []int64 // per source, routed to the dead-letter sink
	// operatorBadRecords were rejected by operators (FromJSON).
	operatorBadRecords int64
	// tasks are the tasks running the batch (newTask).
	tasks []*task
	// cpu splits the batch's process CPU time by phase (cost.go).
	cpu *cpuMeter
	// batchBytes is the largest batch buffer figure seen (memory.go).
	batchBytes int64
}

// execute runs batch b end to end: read, process, sink, state, commit log,
// progress. After a crash anywhere in here, recovery runs b again with the
// same range, watermark and timestamp.
func (q *Query) execute(ctx context.Context, b *batchRun) error {
	q.setStatus("Processing new data", true, true)
	t := time.Now()
	if err := q.runBatch(ctx, b); err != nil {
		return fmt.Errorf("batch %d: %w", b.id, err)
	}
	b.durations["addBatch"] = time.Since(t).Milliseconds()
	if q.cfg.AdaptiveReadLimit {
		var rows int64
		for _, n := range b.inputRows {
			rows += n
		}
		q.adaptive.observe(rows, time.Since(t), q.cfg.Trigger.Interval)
	}
	q.wm.observe(b.stats, b.timestampMs)
	nextWM := q.wm.advance(b.timestampMs, b.id)
	t = time.Now()
	b.cpu.begin()
	q.at = driverStep{"checkpoint", q.cfg.CheckpointDir, "commit"}
	if q.ckpt != nil {
		// The sink has the batch; now the state, then the commit log.
		// A crash between any two steps is repaired by recovery.
		if err := q.fault(StepSinkCommitted, b.id); err != nil {
			return err
		}
		// queued behind the sink commit: the state, then commits/N
		if err := q.ckpt.commitState(b, nextWM); err != nil {
			return err
		}
		for i := range b.stateOps {
			b.stateOps[i].CommitTimeMs = time.Since(t).Milliseconds()
		}
		if err := q.ckpt.commit(b, nextWM); err != nil {
			return err
		}
	} else {
		for i, s := range q.c.scans {
			if err := s.Source.Commit(b.ends[i]); err != nil {
				return fmt.Errorf("batch %d: source %d (%s): commit: %w", b.id, i, s.Source.Name(), err)
			}
		}
	}
	b.durations["commitOffsets"] = time.Since(t).Milliseconds()
	b.cpu.end("checkpoint")
	q.lastBatchWM = b.watermarkUs
	prevStarts := q.starts
	q.starts = b.ends
	q.batchID = b.id + 1
	q.at = driverStep{"listeners", "", "progress"}
	q.report(b, prevStarts)
	return nil
}

// sinkWriter serialises writes of one batch to a sink.
type sinkWriter struct {
	mu   sync.Mutex
	w    sinks.BatchWriter
	skip bool
	rows int64
	sink sinks.Sink
}

func (s *sinkWriter) write(ctx context.Context, t *task, b columnar.Batch) error {
	defer b.Release()
	if b.NumRows() == 0 {
		return nil
	}
	t.at = s
	rec := kernels.Compact(t.mem, b)
	defer rec.Release()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows += rec.NumRows()
	if s.skip {
		return nil
	}
	return s.w.Write(ctx, rec)
}

type inputTask struct {
	src  int
	part sources.InputPartition
}

// batchOutput is where a batch's rows go: the sink's writer and, with a
// late-data sink, its writer.
type batchOutput struct {
	sink  *sinkWriter
	lateW sinks.BatchWriter
	// late routes late rows to lateW; nil without a late-data sink or when
	// it already has the batch.
	late *lateRouter
}

func (o *batchOutput) abort() {
	o.sink.w.Abort()
	if o.lateW != nil {
		o.lateW.Abort()
	}
}

// runBatch runs steps 3 to 5 of a trigger (docs/ARCHITECTURE.md, "One
// trigger") for batch b: read and process its input, run its stateful
// operators, and write its output to the sink.
func (q *Query) runBatch(ctx context.Context, b *batchRun) (err error) {
	c := q.c
	c.now.Store(b.timestampMs * 1000)
	b.evictUs, b.lateUs = c.stageWatermarks(b.watermarkUs), c.stageWatermarks(b.prevWatermarkUs)
	defer q.recycleTasks(b)
	if err := q.refreshStatic(ctx); err != nil {
		return err
	}
	tasks, err := q.planInputs(b)
	if err != nil {
		return err
	}
	out, err := q.beginOutput(ctx, b)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			out.abort()
		}
	}()
	// registered after the abort, so that it runs first: a panic becomes
	// err, and the sinks are aborted
	defer q.recoverDriver(&err)
	b.cpu.begin()
	inputs, err := q.readInputs(ctx, b, tasks, out)
	if err != nil {
		return err
	}
	b.cpu.end("scan")
	if err := q.runStages(ctx, b, inputs, out.sink); err != nil {
		return err
	}
	b.cpu.begin()
	if err := q.commitOutput(ctx, b, out); err != nil {
		return err
	}
	b.cpu.end("sink")
	return nil
}

// refreshStatic rebuilds the static sides of joins whose table changed.
func (q *Query) refreshStatic(ctx context.Context) error {
	q.at = driverStep{"operator", "join with a static table", "refresh the static side"}
	for _, o := range q.c.staticJoins {
		if err := o.startBatch(ctx); err != nil {
			return fmt.Errorf("join: refresh the static side: %w", err)
		}
	}
	return nil
}

// planInputs is step 3's planning: the input partitions of b's range.
func (q *Query) planInputs(b *batchRun) ([]inputTask, error) {
	t0 := time.Now()
	var tasks []inputTask
	for i, s := range q.c.scans {
		if b.starts[i] == b.ends[i] {
			continue
		}
		q.at = driverStep{"source", s.Source.Name(), "plan partitions"}
		parts, err := s.Source.PlanPartitions(b.starts[i], b.ends[i])
		if err != nil {
			return nil, fmt.Errorf("source %d (%s): plan partitions: %w", i, s.Source.Name(), err)
		}
		for _, p := range parts {
			tasks = append(tasks, inputTask{src: i, part: p})
		}
	}
	b.durations["getBatch"] = time.Since(t0).Milliseconds()
	return tasks, nil
}

// beginOutput is step 5's start: Begin(N) on the sink and the late-data
// sink.
func (q *Query) beginOutput(ctx context.Context, b *batchRun) (*batchOutput, error) {
	c := q.c
	q.at = driverStep{"sink", q.cfg.Sink.Name(), "begin"}
	info := sinks.BatchInfo{QueryID: q.id, BatchID: b.id, Mode: q.cfg.Mode, Schema: c.outSchema}
	w, err := q.cfg.Sink.Begin(ctx, info)
	if err != nil {
		return nil, fmt.Errorf("sink %s: begin: %w", q.cfg.Sink.Name(), err)
	}
	out := &batchOutput{sink: &sinkWriter{w: w, skip: w.Skip(), sink: q.cfg.Sink}}
	if q.cfg.LateSink != nil && len(c.stages) == 1 {
		q.at = driverStep{"late-data sink", q.cfg.LateSink.Name(), "begin"}
		lateW, err := q.cfg.LateSink.Begin(ctx, sinks.BatchInfo{QueryID: q.id, BatchID: b.id, Mode: sinks.Append, Schema: c.state.inputSchema()})
		if err != nil {
			w.Abort()
			return nil, fmt.Errorf("late-data sink %s: begin: %w", q.cfg.LateSink.Name(), err)
		}
		out.lateW = lateW
		if !lateW.Skip() {
			out.late = &lateRouter{w: lateW}
		}
	}
	return out, nil
}

// readInputs runs steps 3 and 4's first half on the worker pool: each
// input task reads its partition and hands every record through its
// source's routes (feed). It returns the shuffles of each stage, in task
// order.
func (q *Query) readInputs(ctx context.Context, b *batchRun, tasks []inputTask, out *batchOutput) (map[*stage][]*shuffled, error) {
	c := q.c
	states := make([]*task, len(tasks))
	for i := range states {
		states[i] = q.newTask(ctx, b, b.watermarkUs)
	}
	shuf := make([][]*shuffled, len(tasks)) // per task, per route of its source
	err := parallel(ctx, len(tasks), q.cfg.Parallelism, func(ctx context.Context, i int) (err error) {
		t := states[i]
		t.ctx = ctx
		defer t.recoverPanic(&err)
		src := tasks[i].src
		routes := c.routes[src]
		shuf[i] = make([]*shuffled, len(routes))
		for r, rt := range routes {
			if rt.stage != nil {
				shuf[i][r] = t.shuffle()
			}
		}
		t.at = c.scans[src].Source
		return tasks[i].part.Read(ctx, q.mem, func(rec arrow.RecordBatch) error {
			if th, ok := rec.(sources.Thinned); ok { // rows a pushed row filter dropped are input too
				t.inputRows[src] += th.Read
				rec = th.RecordBatch
			} else {
				t.inputRows[src] += rec.NumRows()
			}
			return q.feed(t, b, routes, shuf[i], rec, out)
		})
	})
	if err != nil {
		return nil, err
	}
	b.inputRows = make([]int64, len(c.scans))
	b.stats = make([]eventStats, len(c.watermarks))
	for _, t := range states {
		for i, n := range t.inputRows {
			b.inputRows[i] += n
		}
		q.mergeStats(b, t)
	}
	inputs := map[*stage][]*shuffled{}
	for i, task := range tasks {
		for r, rt := range c.routes[task.src] {
			if rt.stage != nil {
				inputs[rt.stage] = append(inputs[rt.stage], shuf[i][r])
			}
		}
	}
	return inputs, nil
}

// feed hands one record of task t's source through each of the source's
// routes: the route's stateless chain (step 3), then the prepare phase of
// the stage it feeds (step 4) or the sink. It takes over rec.
func (q *Query) feed(t *task, b *batchRun, routes []route, shuf []*shuffled, rec arrow.RecordBatch, out *batchOutput) error {
	for r, rt := range routes {
		if r < len(routes)-1 {
			rec.Retain() // each route takes over one reference
		}
		batch, err := rt.ch.run(t, columnar.Batch{Rec: rec})
		if err == nil {
			if rt.stage != nil {
				t.side, t.watermarkUs, t.at = rt.side, b.lateUs[rt.stage.id], rt.stage.op
				err = rt.stage.op.prepare(t, batch, shuf[r], out.late)
			} else {
				err = out.sink.write(t.ctx, t, batch)
			}
		}
		if err != nil {
			for range routes[r+1:] {
				rec.Release()
			}
			return err
		}
	}
	return nil
}

// commitOutput is step 5's end, once offsets/N is durable: the dead
// letters, then Commit on the sink and the late-data sink.
func (q *Query) commitOutput(ctx context.Context, b *batchRun, out *batchOutput) error {
	if err := q.fault(StepDataRead, b.id); err != nil {
		return err
	}
	if q.ckpt != nil {
		// offsets/N (and the previous batch's state and commit) are
		// durable before anything of batch N leaves the engine
		q.at = driverStep{"checkpoint", q.cfg.CheckpointDir, "sync"}
		if err := q.ckpt.sync(); err != nil {
			return err
		}
	}
	if q.cfg.DeadLetterSink != nil {
		q.at = driverStep{"dead-letter sink", q.cfg.DeadLetterSink.Name(), "write"}
	}
	if err := q.writeDeadLetters(ctx, b); err != nil {
		return err
	}
	q.at = driverStep{"sink", q.cfg.Sink.Name(), "commit"}
	t := time.Now()
	if err := out.sink.w.Commit(ctx); err != nil {
		return fmt.Errorf("sink %s: commit: %w", q.cfg.Sink.Name(), err)
	}
	// part of addBatch, reported apart: the sink's commit latency (the UI's
	// duration breakdown, millrace_sink_commit_seconds)
	b.durations["sinkCommit"] = time.Since(t).Milliseconds()
	if out.lateW != nil {
		q.at = driverStep{"late-data sink", q.cfg.LateSink.Name(), "commit"}
		if err := out.lateW.Commit(ctx); err != nil {
			return fmt.Errorf("late-data sink %s: commit: %w", q.cfg.LateSink.Name(), err)
		}
	}
	b.outputRows = out.sink.rows
	return nil
}

// newTask returns a task for batch b, one of an earlier batch when there is
// one: its scratch buffers are reused. recycleTasks takes them back once
// the batch is done.
func (q *Query) newTask(ctx context.Context, b *batchRun, wm int64) *task {
	var t *task
	if n := len(q.freeTasks); n > 0 {
		t = q.freeTasks[n-1]
		q.freeTasks = q.freeTasks[:n-1]
		clear(t.wm)
		clear(t.inputRows)
	} else {
		t = &task{mem: q.mem, wm: make([]eventStats, len(q.c.watermarks)), inputRows: make([]int64, len(q.c.scans))}
	}
	t.ctx, t.watermarkUs, t.side, t.at = ctx, wm, 0, nil
	b.tasks = append(b.tasks, t)
	return t
}

// recycleTasks takes back the tasks of batch b: its selections and
// shuffles are dead once the batch is done.
func (q *Query) recycleTasks(b *batchRun) {
	for _, t := range b.tasks {
		for _, s := range t.shuffles[:t.used] {
			s.release()
		}
		t.reset()
		t.ctx = nil
		q.freeTasks = append(q.freeTasks, t)
	}
	b.tasks = b.tasks[:0]
}

// runStages runs the stateful operators in dependency order (step 4's
// second half). Each runs its update and emit phases over the batches
// routed to it; a stage's output goes through the operators after it into
// the next stage (whose late-row filter uses the previous batch's
// watermark, as Spark does for chained stateful operators: rows a stage
// emits because this batch's watermark closed them are not late for the
// next one) or, for the last, to the sink.
func (q *Query) runStages(ctx context.Context, b *batchRun, inputs map[*stage][]*shuffled, out *sinkWriter) error {
	for _, st := range q.c.stages {
		b.batchBytes = max(b.batchBytes, batchBufferBytes(b, inputs))
		b.cpu.begin()
		q.at = driverStep{"operator", st.op.name(), "update and emit"}
		recs, op, err := q.runStage(ctx, b, st, inputs[st])
		for _, s := range inputs[st] {
			s.release()
		}
		delete(inputs, st)
		b.stateOps = append(b.stateOps, op)
		if err != nil {
			columnar.ReleaseAll(recs)
			return err
		}
		if err := q.forward(ctx, b, st, recs, inputs, out); err != nil {
			return err
		}
		b.cpu.end(st.op.name())
	}
	return nil
}

// forward hands a stage's output records (taking them over) to the next
// stage or to the sink.
func (q *Query) forward(ctx context.Context, b *batchRun, st *stage, recs []arrow.RecordBatch, inputs map[*stage][]*shuffled, out *sinkWriter) error {
	defer columnar.ReleaseAll(recs)
	if len(st.outs) == 0 {
		t := q.newTask(ctx, b, b.watermarkUs)
		write := func(b columnar.Batch) error { return out.write(ctx, t, b) }
		if q.c.sort != nil {
			if err := q.sortTo(t, recs, write); err != nil {
				return err
			}
			q.mergeStats(b, t)
			return nil
		}
		if err := q.forwardTo(t, recs, q.c.post, write); err != nil {
			return err
		}
		q.mergeStats(b, t)
		return nil
	}
	for _, o := range st.outs {
		t := q.newTask(ctx, b, b.lateUs[o.next.id])
		t.side = o.side
		sh := t.shuffle()
		inputs[o.next] = append(inputs[o.next], sh)
		next := o.next
		prepare := func(b columnar.Batch) error {
			t.at = next.op
			return next.op.prepare(t, b, sh, nil)
		}
		if err := q.forwardTo(t, recs, o.post, prepare); err != nil {
			return err
		}
		q.mergeStats(b, t)
	}
	return nil
}

// sortTo runs recs through the post chain, then sorts and limits the
// whole result (Complete mode's ORDER BY … LIMIT) and writes it.
func (q *Query) sortTo(t *task, recs []arrow.RecordBatch, write func(columnar.Batch) error) (err error) {
	var outs []arrow.RecordBatch
	defer func() { columnar.ReleaseAll(outs) }()
	collect := func(b columnar.Batch) error {
		defer b.Release()
		outs = append(outs, kernels.Compact(t.mem, b))
		return nil
	}
	if err := q.forwardTo(t, recs, q.c.post, collect); err != nil {
		return err
	}
	defer t.recoverPanic(&err)
	rec, err := q.c.sort.apply(t.mem, q.c.outSchema, outs)
	if err != nil || rec == nil {
		return err
	}
	return write(columnar.Batch{Rec: rec})
}

// forwardTo runs each of recs through post and hands the result to
// deliver: the next stage's prepare phase or the sink.
func (q *Query) forwardTo(t *task, recs []arrow.RecordBatch, post chain, deliver func(columnar.Batch) error) (err error) {
	defer t.recoverPanic(&err)
	for _, r := range recs {
		r.Retain() // every consumer takes its own reference
		batch, err := post.run(t, columnar.Batch{Rec: r})
		if err != nil {
			return err
		}
		if err := deliver(batch); err != nil {
			return err
		}
	}
	return nil
}

func (q *Query) mergeStats(b *batchRun, t *task) {
	for i := range b.stats {
		b.stats[i].merge(t.wm[i])
	}
}

// runStage runs the update and emit phases of one stateful operator and
// returns its output records in partition order.
func (q *Query) runStage(ctx context.Context, b *batchRun, st *stage, shuf []*shuffled) ([]arrow.RecordBatch, StateOperator, error) {
	a := st.op
	t0 := time.Now()
	var dropped int64
	for _, s := range shuf {
		dropped += s.dropped
	}
	b.dropped += dropped
	p := a.numPartitions()
	op := StateOperator{OperatorName: a.name(), NumRowsDroppedByWatermark: dropped, NumShufflePartitions: int64(p), NumStateStoreInstances: int64(p)}
	if err := parallel(ctx, p, q.cfg.Parallelism, func(_ context.Context, i int) (err error) {
		defer recoverStage(&err, a, "update", i)
		return a.update(i, shuf)
	}); err != nil {
		return nil, op, err
	}
	op.AllUpdatesTimeMs = time.Since(t0).Milliseconds()
	t1 := time.Now()
	parts := make([][]arrow.RecordBatch, p)
	updated := make([]int64, p)
	removed := make([]int64, p)
	err := parallel(ctx, p, q.cfg.Parallelism, func(_ context.Context, i int) (err error) {
		defer recoverStage(&err, a, "emit", i)
		r, u, rm, err := a.emit(q.mem, i, b.evictUs[st.id])
		parts[i], updated[i], removed[i] = r, u, rm
		return err
	})
	var recs []arrow.RecordBatch
	for _, rs := range parts {
		recs = append(recs, rs...)
	}
	if err != nil {
		return recs, op, err
	}
	op.NumRowsTotal, op.MemoryUsedBytes = stateRows(a)
	if cm, ok := a.(customMetricser); ok {
		op.CustomMetrics = cm.customMetrics()
	}
	op.AllRemovalsTimeMs = time.Since(t1).Milliseconds()
	for i := range updated {
		op.NumRowsUpdated += updated[i]
		op.NumRowsRemoved += removed[i]
	}
	return recs, op, nil
}

// report builds the progress event of batch b and hands it to listeners.
func (q *Query) report(b *batchRun, prevStarts []sources.Offset) {
	total := time.Since(b.wallStart)
	b.durations["triggerExecution"] = total.Milliseconds()
	p := &Progress{
		ID: q.id, RunID: q.runID, Name: q.cfg.Name,
		Timestamp:     isoTime(b.triggerAt),
		BatchID:       b.id,
		BatchDuration: total.Milliseconds(),
		DurationMs:    b.durations,
		Sink:          SinkProgress{Description: q.cfg.Sink.Name(), NumOutputRows: b.outputRows},
	}
	if m, ok := q.cfg.Sink.(sinks.Metricer); ok {
		p.Sink.Metrics = m.Metrics()
	}
	since := b.triggerAt.Sub(q.lastTrigger)
	if q.lastTrigger.IsZero() {
		since = total
	}
	q.lastTrigger = b.triggerAt
	sinceWall := b.wallStart.Sub(q.lastWallStart)
	if q.lastWallStart.IsZero() {
		sinceWall = total
	}
	q.lastWallStart = b.wallStart
	for i, s := range q.c.scans {
		n := int64(0)
		if b.inputRows != nil {
			n = b.inputRows[i]
		}
		p.NumInputRows += n
		sp := SourceProgress{
			Description:            s.Source.Name(),
			StartOffset:            offsetJSON(string(prevStarts[i])),
			EndOffset:              offsetJSON(string(b.ends[i])),
			LatestOffset:           offsetJSON(string(b.ends[i])),
			NumInputRows:           n,
			InputRowsPerSecond:     rate(n, since),
			ProcessedRowsPerSecond: rate(n, total),
		}
		if d, ok := s.Source.(sources.Describer); ok {
			sp.Metrics = d.Metrics()
		}
		if q.cfg.AdaptiveReadLimit {
			if sp.Metrics == nil {
				sp.Metrics = map[string]string{}
			}
			sp.Metrics["adaptiveMaxRows"] = strconv.FormatInt(q.adaptive.limit(q.cfg.ReadLimit.MaxRows), 10)
		}
		if b.badRecords != nil {
			if sp.Metrics == nil {
				sp.Metrics = map[string]string{}
			}
			sp.Metrics["numDeadLetterRecords"] = strconv.FormatInt(b.badRecords[i], 10)
		}
		p.Sources = append(p.Sources, sp)
	}
	p.InputRowsPerSecond = rate(p.NumInputRows, since)
	p.ProcessedRowsPerSecond = rate(p.NumInputRows, total)
	if len(q.c.watermarks) > 0 {
		p.EventTime = map[string]string{"watermark": isoMicros(b.watermarkUs)}
		var all eventStats
		for _, s := range b.stats {
			all.merge(s)
		}
		if all.n > 0 {
			p.EventTime["min"] = isoMicros(all.min)
			p.EventTime["max"] = isoMicros(all.max)
			p.EventTime["avg"] = isoMicros(int64(all.sum / float64(all.n)))
		}
	}
	if q.cfg.DeadLetterSink != nil {
		p.NumDeadLetterRows = b.operatorBadRecords
		for _, n := range b.badRecords {
			p.NumDeadLetterRows += n
		}
	}
	p.StateOperators = append([]StateOperator{}, b.stateOps...)
	p.BatchBufferBytes = b.batchBytes
	q.observeBacklogs(p)
	cpu, ops := b.cpu.finish()
	p.Cost = q.cost.cost(&q.cfg, p.NumInputRows, total, sinceWall, cpu, ops, p.StateOperators)
	q.logBatch(p, total)
	q.mu.Lock()
	q.summary.add(p)
	q.costTotals.add(p)
	q.progress = append(q.progress, p)
	if len(q.progress) > q.cfg.RecentProgressSize {
		q.progress = q.progress[len(q.progress)-q.cfg.RecentProgressSize:]
	}
	q.mu.Unlock()
	for _, l := range q.listeners() {
		l.OnQueryProgress(p)
	}
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
