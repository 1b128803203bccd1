package exec

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	"github.com/millrace/millrace/sources"
)

// Config describes a query to start.
type Config struct {
	Plan    plan.Node
	Sink    sinks.Sink
	Mode    sinks.OutputMode
	Trigger Trigger
	Name    string
	// CheckpointDir makes the query exactly-once across restarts.
	CheckpointDir string
	// Parallelism is the number of worker goroutines (default GOMAXPROCS).
	Parallelism int
	// StatePartitions is the number of state partitions of stateful
	// operators (default 16); fixed for the life of a checkpoint.
	StatePartitions int
	// Allocator allocates every Arrow buffer of the query (default: a
	// columnar.Recycler of RecycleLimit bytes over the Go heap).
	Allocator memory.Allocator
	// MinDeltasForSnapshot is how many delta blobs a state partition writes
	// at least before it writes a snapshot (default 10, as Spark).
	MinDeltasForSnapshot int
	// LateSink, if set, receives the rows dropped by the watermark.
	LateSink sinks.Sink
	// ReadLimit bounds each trigger's reading (sources have their own
	// limits too; the tighter wins).
	ReadLimit sources.ReadLimit
	// AdaptiveReadLimit sizes each trigger so that processing it takes
	// about the trigger interval: the row limit follows the measured
	// processing rate (within ReadLimit.MaxRows when set). The chosen limit
	// is reported in progress (sources[].metrics.adaptiveMaxRows).
	AdaptiveReadLimit bool
	// Listeners receive lifecycle and progress events.
	Listeners []Listener
	// Clock gives processing time (default time.Now); tests fix it.
	Clock func() time.Time
	// RecentProgressSize is how many progress events RecentProgress keeps
	// (default 100, as Spark).
	RecentProgressSize int
	// DeadLetterSink, if set, receives malformed input records (with their
	// raw text and the error) from sources that can route them, instead of
	// the query failing.
	DeadLetterSink sinks.Sink
	// WatermarkIdleTimeout, when positive, lets an input that has had no
	// rows for this long (processing time) stop holding the query's
	// watermark back, until rows reach it again (Flink's idleness). By
	// default an idle input holds the watermark for ever, as in Spark.
	WatermarkIdleTimeout time.Duration
	// MaxEventTimeAhead, when positive, bounds event times: a row whose
	// event time is more than this ahead of its batch's processing time
	// goes to the dead-letter sink (when the query has one) or fails the
	// query, instead of moving the watermark into the future.
	MaxEventTimeAhead time.Duration
	// CheckOverflow makes integer overflow an error (Spark's ANSI mode) in
	// sums and in + − × of integer expressions; by default they wrap, as in
	// Spark without ANSI mode.
	CheckOverflow bool
	// Logger receives one info line per batch and the warnings an
	// operator must know of (logs.go; default slog.Default()).
	Logger *slog.Logger
	// WatermarkJumpWarning is how far the watermark may move in one batch
	// before the query warns that one wrong event time may have pushed it
	// ahead (default max(10 × the largest watermark delay, 1 h)).
	WatermarkJumpWarning time.Duration
	// BacklogWarnBatches is how many batches in a row a source's backlog
	// may grow before the query warns that it falls behind (default 3).
	BacklogWarnBatches int
	// ProgressLog, if set, receives each progress event as one line of
	// JSON (a file opened for appending; writes are not synced).
	ProgressLog io.Writer
	// CoreHourPrice is the price of one core for an hour, for the cost
	// report (Progress.Cost); 0 reports no prices.
	CoreHourPrice float64
	// CostHeadroom is the spare capacity the cost report sizes cores with
	// (0.25: 25 % above the need; 0 gives DefaultCostHeadroom, negative
	// none).
	CostHeadroom float64
	// CostInputRate is the input rate (rows/s) the cost report sizes cores
	// for; 0 uses the observed rate.
	CostInputRate float64
	// IgnoreSinkMismatch starts a checkpointed query even when the sink's
	// output and the checkpoint do not belong together (a table deleted or
	// replaced under a checkpoint with committed batches, a checkpoint
	// deleted and recreated under a table holding its old output), which
	// is otherwise refused with sinks.ErrSinkMismatch. Output may then be
	// lost or duplicated, as in Spark. The new binding is recorded, so the
	// option is needed once.
	IgnoreSinkMismatch bool
	// FaultInjection, for tests, is called at each step of each batch
	// (Step* constants); an error it returns fails the query there, as a
	// crash would.
	FaultInjection func(step string, batchID int64) error
}

// ErrStopped is returned by AwaitTermination for a query stopped by Stop.
var ErrStopped = errors.New("query stopped")

// RecycleLimit bounds the released buffers a query keeps for reuse: a few
// batches' worth.
const RecycleLimit = 64 << 20

// compiled is the physical form of a plan.
type compiled struct {
	scans []*plan.Scan
	// routes lists, per scan index, where its batches go: through a chain
	// of stateless operators into a stage's input, or to the sink. A stream
	// used twice has two routes.
	routes map[int][]route
	// stages are the stateful operators in dependency order (inputs
	// first); the last one feeds the sink.
	stages     []*stage
	built      map[plan.Node]*stage // the stage of each stateful node
	state      stateful             // the last stage's operator; nil for a stateless query
	post       chain                // ops above the last stateful operator
	watermarks []watermarkInfo
	outSchema  *arrow.Schema
	// operatorDeadLetters collects records operators reject (FromJSON),
	// when the query has a dead-letter sink.
	operatorDeadLetters *deadLetters
	// now is the running batch's timestamp in µs (current_timestamp()).
	now *atomic.Int64
	// mem allocates static tables; staticJoins are the stream-static joins.
	mem         memory.Allocator
	staticJoins []*staticJoinOp
	// maxAheadUs bounds event times (Config.MaxEventTimeAhead), 0 for none.
	maxAheadUs int64
	// sort is the final ORDER BY/LIMIT of a query in Complete mode, nil
	// for none (exec/sort.go).
	sort *sortSpec
}

// Query is a running streaming query.
type Query struct {
	cfg   Config
	id    string
	runID string
	c     *compiled
	mem   memory.Allocator
	clock func() time.Time

	cancel context.CancelFunc
	done   chan struct{}
	// wake cuts a trigger interval short (ProcessAllAvailable uses it).
	wake chan struct{}

	mu       sync.Mutex
	cond     *sync.Cond
	err      error
	progress []*Progress
	summary  Summary
	// costTotals adds up the batches' cost reports (CostTotals).
	costTotals CostTotals
	status     Status
	idleCount  int64
	stopped    bool

	// driver state, owned by the run goroutine
	batchID     int64
	starts      []sources.Offset
	wm          *watermarkTracker
	lastBatchWM int64 // watermark the last batch ran with
	lastTrigger time.Time
	// lastWallStart is when the last batch began on the real clock.
	lastWallStart time.Time
	ckpt          *checkpointer
	crashStep     string
	crashBatch    int64
	faultMu       sync.Mutex
	adaptive      adaptiveLimit
	deadLetters   []*deadLetters // per source, with a dead-letter sink
	// at is what the driver goroutine runs, for the error a panic there
	// becomes.
	at driverStep
	// cost keeps the figures of the cost reports across batches.
	cost costTracker
	// freeTasks are tasks of earlier batches, with their scratch buffers,
	// for newTask to reuse.
	freeTasks []*task
}

// Start analyzes cfg, compiles its plan, recovers from the checkpoint if
// there is one, and starts running triggers in a goroutine. Analysis errors
// are returned here, never raised mid-stream.
func Start(ctx context.Context, cfg Config) (*Query, error) {
	q, err := newQuery(ctx, cfg)
	if err != nil {
		return nil, err
	}
	q.start(ctx)
	return q, nil
}

// start runs the driver loop in a goroutine of its own, which outlives
// ctx's cancellation (Stop ends it).
func (q *Query) start(ctx context.Context) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	q.cancel = cancel
	go q.run(runCtx)
}

// newQuery is Start without the driver goroutine: tests and benchmarks
// drive its triggers one by one.
func newQuery(ctx context.Context, cfg Config) (*Query, error) {
	if cfg.Plan == nil {
		return nil, fmt.Errorf("start: the query has no input")
	}
	if cfg.Sink == nil {
		return nil, fmt.Errorf("start: the query has no sink")
	}
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = runtime.GOMAXPROCS(0)
	}
	if cfg.StatePartitions <= 0 {
		cfg.StatePartitions = 16
	}
	if cfg.Allocator == nil {
		// buffers released by one batch are reused by the next instead
		// of zeroed afresh and left to the GC (columnar.Recycler)
		cfg.Allocator = columnar.NewRecycler(RecycleLimit)
	}
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.MinDeltasForSnapshot <= 0 {
		cfg.MinDeltasForSnapshot = DefaultMinDeltasForSnapshot
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RecentProgressSize <= 0 {
		cfg.RecentProgressSize = 100
	}
	if cfg.BacklogWarnBatches <= 0 {
		cfg.BacklogWarnBatches = 3
	}
	switch {
	case cfg.CostHeadroom == 0:
		cfg.CostHeadroom = DefaultCostHeadroom
	case cfg.CostHeadroom < 0:
		cfg.CostHeadroom = 0
	}
	if cfg.ProgressLog != nil {
		cfg.Listeners = append(append([]Listener(nil), cfg.Listeners...), NewProgressLog(cfg.ProgressLog))
	}
	c, err := compile(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	started := false
	defer func() {
		if !started {
			c.release()
		}
	}()
	q := &Query{cfg: cfg, c: c, mem: cfg.Allocator, clock: cfg.Clock, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	q.cond = sync.NewCond(&q.mu)
	q.summary = Summary{FirstBatchID: -1, LastBatchID: -1}
	q.crashStep, q.crashBatch = parseCrashEnv()
	q.id, q.runID = newUUID(), newUUID()
	q.wm = newWatermarkTracker(c.watermarks, cfg.WatermarkIdleTimeout, cfg.Logger)
	q.wm.jumpWarn = cfg.WatermarkJumpWarning
	q.starts = make([]sources.Offset, len(c.scans))
	for i, s := range c.scans {
		off, err := s.Source.InitialOffset(ctx)
		if err != nil {
			return nil, fmt.Errorf("start: source %d (%s): initial offset: %w", i, s.Source.Name(), err)
		}
		q.starts[i] = off
	}
	if err := q.installDeadLetters(); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	if cfg.CheckpointDir != "" {
		for i, s := range c.scans {
			if nr, ok := s.Source.(sources.NotReplayable); ok {
				cfg.Logger.Warn("a checkpoint cannot make this source exactly once", "source", i, "name", s.Source.Name(), "reason", nr.NotReplayable())
			}
		}
		ck, err := openCheckpointer(q)
		if err != nil {
			return nil, fmt.Errorf("start: %w", err)
		}
		if err := ck.bindSink(ctx); err != nil {
			_ = ck.close()
			return nil, fmt.Errorf("start: %w", err)
		}
		q.ckpt = ck
	}
	if cfg.Trigger.Kind == TriggerAvailableNow {
		for i, s := range c.scans {
			if an, ok := s.Source.(sources.AvailableNow); ok {
				if err := an.PrepareAvailableNow(ctx); err != nil {
					if q.ckpt != nil {
						_ = q.ckpt.close() // releases the checkpoint's lock
					}
					return nil, fmt.Errorf("start: source %d (%s): %w", i, s.Source.Name(), err)
				}
			}
		}
	}
	started = true
	return q, nil
}

// compile analyzes the parts of a query that depend on its output mode and
// builds the operators. ctx bounds what building reads (the static sides
// of joins).
func compile(ctx context.Context, cfg Config) (_ *compiled, err error) {
	c := &compiled{scans: plan.Scans(cfg.Plan), outSchema: cfg.Plan.Schema(), now: new(atomic.Int64), mem: cfg.Allocator}
	defer func() {
		if err != nil {
			c.release() // static tables built before the error
		}
	}()
	compileMu.Lock()
	compilingNow, compilingChecked = c.now, cfg.CheckOverflow
	defer func() {
		compilingNow, compilingChecked = nil, false
		compileMu.Unlock()
	}()
	if cfg.DeadLetterSink != nil {
		c.operatorDeadLetters = &deadLetters{}
	}
	c.maxAheadUs = cfg.MaxEventTimeAhead.Microseconds()
	// A stream used in several places of the plan is one Scan: its source
	// is read once per batch and its batches fan out to every use.
	seen := map[*plan.Scan]bool{}
	var unique []*plan.Scan
	for _, s := range c.scans {
		if !seen[s] {
			seen[s] = true
			s.Index = len(unique) // sources are numbered in plan order, the order of the offsets log
			unique = append(unique, s)
		}
	}
	c.scans = unique
	c.routes = map[int][]route{}
	rootChains := map[int][]chain{}
	root := cfg.Plan
	srt, sorted := root.(*plan.Sort)
	if sorted {
		root = srt.Input // sorted after the post chain, in forward
	}
	top, err := c.compileChain(ctx, root, rootChains, &c.post)
	if err != nil {
		return nil, err
	}
	if sorted {
		_, aggregated := top.(*plan.Aggregate)
		if c.sort, err = checkSort(srt, cfg.Mode, cfg.Mode == sinks.Complete, aggregated); err != nil {
			return nil, err
		}
	}
	if top == nil {
		if cfg.Mode == sinks.Complete {
			return nil, fmt.Errorf("invalid streaming output mode: complete. This output mode is not supported for no streaming aggregations on streaming DataFrames/DataSets (Spark's STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION): complete output mode is not supported when there are no streaming aggregations; use Append")
		}
		for k, chs := range rootChains {
			for _, ch := range chs {
				c.routes[k] = append(c.routes[k], route{ch: ch})
			}
		}
	} else {
		final, err := c.buildStage(ctx, top, cfg, cfg.Mode)
		if err != nil {
			return nil, err
		}
		c.state = final.op
		for i, st := range c.stages {
			st.id = i
		}
		c.linkStages()
	}
	if cfg.LateSink == nil { // a late-data sink gets whole input rows
		pruneSources(c, cfg.Plan)
	}
	pushFilters(c, cfg.Plan)
	if mc, ok := cfg.Sink.(sinks.ModeChecker); ok {
		if err := mc.CheckMode(cfg.Mode); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func hasSession(n *plan.Aggregate) bool {
	for _, k := range n.Keys {
		if _, ok := plan.Unalias(k).(plan.Session); ok {
			return true
		}
	}
	return false
}

// release frees what the compiled query holds (static join tables).
func (c *compiled) release() {
	for _, o := range c.staticJoins {
		o.release()
	}
	for _, st := range c.stages {
		if st.op != nil {
			st.op.release()
		}
	}
}

// buildStage compiles the stateful node n, and the stages and chains below
// it, appending the stages to c.stages in dependency order (inputs first).
// mode is the output mode the operator runs in: the query's for the last
// stage, Append for the others (a downstream operator needs rows that will
// not change).
func (c *compiled) buildStage(ctx context.Context, n plan.Node, cfg Config, mode sinks.OutputMode) (*stage, error) {
	// A stateful node used twice (an aggregation whose output feeds two
	// operators) is one stage with two consumers.
	if st, ok := c.built[n]; ok {
		return st, nil
	}
	st := &stage{}
	inputs := n.Children()
	if j, ok := n.(*plan.Join); ok {
		var err error
		if inputs, err = joinInputs(j); err != nil {
			return nil, err
		}
	}
	for side, in := range inputs {
		chains := map[int][]chain{}
		var edge chain
		up, err := c.compileChain(ctx, in, chains, &edge)
		if err != nil {
			return nil, err
		}
		if up != nil {
			if len(chains) > 0 {
				return nil, fmt.Errorf("%s: an input mixing a stateful operator's output with a source is not supported", n.Describe())
			}
			upSt, err := c.buildStage(ctx, up, cfg, sinks.Append)
			if err != nil {
				return nil, err
			}
			upSt.outs = append(upSt.outs, stageOut{post: edge, next: st, side: int8(side)})
			continue
		}
		for k, chs := range chains {
			for _, ch := range chs {
				c.routes[k] = append(c.routes[k], route{ch: ch, stage: st, side: int8(side)})
			}
		}
	}
	op, err := newStateful(n, cfg, mode)
	if err != nil {
		return nil, err
	}
	st.op = op
	c.stages = append(c.stages, st)
	if c.built == nil {
		c.built = map[plan.Node]*stage{}
	}
	c.built[n] = st
	return st, nil
}

// joinInputs returns the two inputs of join j, a side whose rows cannot be
// emitted without a match filtered to the rows whose keys are all
// non-null, as Spark's optimizer does: such rows never produce output, and
// filtered before the watermark they do not move it.
func joinInputs(j *plan.Join) ([]plan.Node, error) {
	ins := []plan.Node{j.Left, j.Right}
	keys := [][]string{j.LeftKeys, j.RightKeys}
	for side := range ins {
		if j.EmitsUnmatched(side) {
			continue
		}
		var err error
		if ins[side], err = plan.NotNullKeys(ins[side], keys[side]); err != nil {
			return nil, fmt.Errorf("%s: %w", j.Describe(), err)
		}
	}
	return ins, nil
}

// route is one way a scan's batches go: through ch, then into stage's input
// side, or to the sink when stage is nil.
type route struct {
	ch    chain
	stage *stage
	side  int8
}

// newStateful builds the operator of a stateful node running in mode.
func newStateful(n plan.Node, cfg Config, mode sinks.OutputMode) (stateful, error) {
	switch n := n.(type) {
	case *plan.Aggregate:
		if hasSession(n) {
			if mode != sinks.Append {
				return nil, fmt.Errorf("%s output mode is not supported for session windows: use Append (Spark supports Append and Complete; Millrace only Append so far)", mode)
			}
			return newSessionOperator(n, cfg.StatePartitions, cfg.Allocator)
		}
		a, err := newAggOperator(n, mode, cfg.StatePartitions)
		if err != nil {
			return nil, err
		}
		if err := checkAggMode(a, n, mode); err != nil {
			return nil, err
		}
		return a, nil
	case *plan.Join:
		// Spark: inner and semi joins write each row once, in Update mode
		// as in Append; an outer join's rows need Append.
		switch {
		case mode == sinks.Complete:
			return nil, fmt.Errorf("%s output mode is not supported for stream-stream joins: use Append", mode)
		case mode == sinks.Update && n.How != plan.InnerJoin && n.How != plan.LeftSemiJoin:
			return nil, fmt.Errorf("%s join between two streaming DataFrames/Datasets is not supported in Update output mode, only in Append output mode (Spark's rule)", sparkJoinName[n.How])
		}
		return newStreamJoin(n, cfg.StatePartitions, cfg.Allocator)
	case *plan.Deduplicate:
		if mode == sinks.Complete {
			return nil, fmt.Errorf("complete output mode is not supported for dropDuplicates: use Append")
		}
		return newDedupOperator(n, cfg.StatePartitions, cfg.Allocator)
	}
	return nil, fmt.Errorf("internal: %s is not a stateful operator", n.Describe())
}

// checkAggMode applies Spark's rules for aggregations in Append mode.
func checkAggMode(a *aggOperator, n *plan.Aggregate, mode sinks.OutputMode) error {
	if mode != sinks.Append {
		return nil
	}
	if a.window == nil && a.eventKey < 0 {
		return fmt.Errorf("invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets (Spark's STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION): append output mode is not supported for an aggregation without a watermark: add WithWatermark on the event-time column and group by a window over it (or by the column), or use Update or Complete mode")
	}
	if a.window != nil && !a.window.eventTimeCol {
		w := plan.Unalias(n.Keys[a.window.index]).(plan.Window)
		return fmt.Errorf("invalid streaming output mode: append. This output mode is not supported for streaming aggregations without watermark on streaming DataFrames/DataSets (Spark's STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION): append output mode needs a watermark on the window's time column %s: call WithWatermark(%q, delay) before GroupBy, or use Update or Complete mode", w.Time, w.Time.String())
	}
	return nil
}

// ID is the query's id, stable across restarts from the same checkpoint.
func (q *Query) ID() string { return q.id }

// RunID is unique to this run of the query.
func (q *Query) RunID() string { return q.runID }

// Name is the query's name.
func (q *Query) Name() string { return q.cfg.Name }

// Explain prints the query's logical plan.
func (q *Query) Explain() string { return plan.Explain(q.cfg.Plan) }

// Stop stops the query after aborting the running trigger (which will run
// again, whole, on restart) and waits for it to end.
func (q *Query) Stop() error {
	q.mu.Lock()
	q.stopped = true
	q.mu.Unlock()
	q.cancel()
	<-q.done
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil && !errors.Is(q.err, ErrStopped) {
		return q.err
	}
	return nil
}

// AwaitTermination blocks until the query ends, by Stop (returning nil), by
// finishing a Once or AvailableNow trigger (nil), or by failing (the error).
func (q *Query) AwaitTermination(ctx context.Context) error {
	select {
	case <-q.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if errors.Is(q.err, ErrStopped) {
		return nil
	}
	return q.err
}

// IsActive reports whether the query is still running.
func (q *Query) IsActive() bool {
	select {
	case <-q.done:
		return false
	default:
		return true
	}
}

// Exception returns the error that ended the query, if any.
func (q *Query) Exception() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if errors.Is(q.err, ErrStopped) {
		return nil
	}
	return q.err
}

// LastProgress returns the most recent progress event, or nil.
func (q *Query) LastProgress() *Progress {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.progress) == 0 {
		return nil
	}
	return q.progress[len(q.progress)-1]
}

// Summary returns the totals of every batch this run of the query has
// reported. LastProgress is Spark's: the latest batch, which after an
// AvailableNow or Once run that closed windows is the no-data batch that
// closed them (numInputRows 0); Summary answers "what did this run do".
func (q *Query) Summary() Summary {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.summary
}

// RecentProgress returns the most recent progress events, oldest first.
func (q *Query) RecentProgress() []*Progress {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]*Progress(nil), q.progress...)
}

// Status returns what the query is doing now.
func (q *Query) Status() Status {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.status
}

// AddListener registers a listener for progress events from now on.
func (q *Query) AddListener(l Listener) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.cfg.Listeners = append(q.cfg.Listeners, l)
}

// ProcessAllAvailable blocks until every record available in the sources
// when it was called has been processed (and the no-data batches it caused
// have run), or the query ends. For tests, as in Spark.
func (q *Query) ProcessAllAvailable(ctx context.Context) error {
	q.mu.Lock()
	target := q.idleCount + 2
	for q.idleCount < target && q.err == nil {
		if ctx.Err() != nil {
			q.mu.Unlock()
			return ctx.Err()
		}
		select {
		case q.wake <- struct{}{}:
		default:
		}
		q.cond.Wait()
	}
	err := q.err
	q.mu.Unlock()
	if errors.Is(err, ErrStopped) {
		return nil
	}
	return err
}

func (q *Query) setStatus(msg string, data, active bool) {
	q.mu.Lock()
	q.status = Status{Message: msg, IsDataAvailable: data, IsTriggerActive: active}
	q.mu.Unlock()
}

func (q *Query) listeners() []Listener {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Listener(nil), q.cfg.Listeners...)
}

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
