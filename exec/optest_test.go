package exec_test

// The operator test harness, in the spirit of CockroachDB's colexec
// RunTests: a query is built with package plan over memory sources and run
// with exec.Start, one ProcessAllAvailable per trigger, so the tests drive
// operators only through the entry points the driver exposes (they survive
// a rewrite of the operators' internals). Each trigger's rows are cut into
// Arrow records of a given size (1 to 64K rows), mixed with rows a filter
// removes (so stateful operators see random selection vectors, and rows
// that would move the watermark if they leaked), optionally spread over
// several unioned sources (several input tasks), and the query may be
// stopped and restarted from its checkpoint between triggers. The output
// of every micro-batch is recorded per trigger, with its progress event.
// Naive oracles (one per operator family, oracle_test.go for the shared
// watermark rules) give the expected rows of each trigger and the state
// rows left after it, from the triggers' rows as plain Go values; they are
// themselves checked against Spark's recorded output (spark_oracle_test.go).
// Files: aggregate, sliding windows (aggregate_test.go), session_test.go,
// dedup_test.go, streamjoin_test.go, staticjoin_test.go, chained_test.go,
// large_test.go (64K-row records), datadriven_test.go (testdata/operators).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/plan"
	"github.com/millrace/millrace/sinks"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// batchSizes are the rows per Arrow record the inputs are cut into (issue
// 12's list). The random cases have a few hundred rows, so 1024 and 64K
// both give one record per trigger there; large_test.go fills 64K records.
var batchSizes = []int{1, 2, 3, 7, 1024, 65536}

// t0 is the event-time origin of generated rows (µs), 2023-11-14T22:13:20Z.
const t0 = int64(1_700_000_000_000_000)

// sec is one second in µs.
const sec = int64(1_000_000)

// input describes one memory source: its column prefix ("" or "l"/"r")
// and key type. Every source has columns <p>k (key), <p>t (timestamp),
// <p>v (int64) and, in the records, keep (bool): the harness filters on
// keep before anything else.
type input struct {
	prefix string
	key    arrow.DataType
}

func (in input) schema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: in.prefix + "k", Type: in.key, Nullable: true},
		{Name: in.prefix + "t", Type: columnar.Timestamp, Nullable: true},
		{Name: in.prefix + "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "keep", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
}

// opRun is one run of a query over a trigger sequence.
type opRun struct {
	inputs []input
	// build makes the query over one node per input (the filtered and
	// projected scan: columns <p>k, <p>t, <p>v).
	build func(ins []plan.Node) (plan.Node, error)
	mode  sinks.OutputMode
	// triggers[i][j] are the rows (k, t, v) of input j in trigger i; t is
	// an int64 of µs or nil.
	triggers [][][][]any
	// batchSize is the rows per Arrow record, noise rows included.
	batchSize int
	// noise is the probability of a filtered-out row before each row; rng
	// draws them.
	noise           float64
	rng             *rand.Rand
	statePartitions int
	// static, for stream-static joins, is the table's rows (sk, sv).
	static [][]any
	// staticKey is the static key type.
	staticKey arrow.DataType
	// restart, when positive, checkpoints the query and stops and restarts
	// it before a trigger with this probability, so that every operator's
	// state goes through its checkpoint encoding and recovery.
	restart float64
	// restarted counts the restarts of the last run.
	restarted int
	// late, when set, gives the late rows of each trigger the late-data
	// sink receives and how many rows the operator drops as late (for a
	// join, the right input's too, which the sink does not get).
	late func(trigs [][][][]any) ([][][]any, []int64)
	// lateSink sends late rows to a late-data sink.
	lateSink bool
	// onRestart, when set, runs between the stop and the restart of the
	// query (with restart): a test switches engine settings there, as an
	// upgrade between two runs of a checkpoint would.
	onRestart func()
	// metrics sums the state operators' custom metrics over the last run.
	metrics map[string]int64
	// streams, when above 1, reads each input from that many memory
	// sources, unioned, each row going to one at random: several input
	// tasks then prepare rows for the same state partitions.
	streams int
}

// nstreams is the number of memory sources per input.
func (r *opRun) nstreams() int { return max(r.streams, 1) }

// trigOut is what one trigger produced: the rows of each micro-batch it
// ran (the data batch and a no-data batch when the watermark moved) and
// their progress events.
type trigOut struct {
	batches  [][][]any
	progress []*exec.Progress
	// late are the rows the late-data sink received (opRun.lateSink).
	late [][]any
}

// rows returns every row the trigger's batches wrote.
func (o trigOut) rows() [][]any {
	var out [][]any
	for _, b := range o.batches {
		out = append(out, b...)
	}
	return out
}

// progressLog is a listener that keeps every progress event.
type progressLog struct {
	mu sync.Mutex
	ps []*exec.Progress
}

func (l *progressLog) OnQueryStarted(string, string, string)   {}
func (l *progressLog) OnQueryTerminated(string, string, error) {}
func (l *progressLog) OnQueryProgress(p *exec.Progress) {
	l.mu.Lock()
	l.ps = append(l.ps, p)
	l.mu.Unlock()
}

// since returns the events after the first n and the number of events.
func (l *progressLog) since(n int) ([]*exec.Progress, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*exec.Progress(nil), l.ps[n:]...), len(l.ps)
}

// noiseRow is a row the filter removes: keep false or null, and values
// that would change the result if an operator ignored the selection (an
// event time far ahead moves the watermark, keys collide with real ones).
func noiseRow(rng *rand.Rand, key arrow.DataType) []any {
	var k any = int64(rng.IntN(4))
	if key.ID() == arrow.STRING {
		k = fmt.Sprint("k", rng.IntN(4))
	}
	var keep any = false
	if rng.IntN(3) == 0 {
		keep = nil
	}
	var ts any = t0 + int64(rng.IntN(3600))*sec
	if rng.IntN(3) == 0 {
		ts = nil
	}
	return []any{k, ts, int64(rng.IntN(1000) + 1000), keep}
}

// records cuts rows (k, t, v) into records of size rows each, with noise
// rows mixed in; an empty input gives no record.
func (r *opRun) records(mem memory.Allocator, in input, rows [][]any) ([]arrow.RecordBatch, error) {
	var all [][]any
	for _, row := range rows {
		for r.noise > 0 && r.rng.Float64() < r.noise {
			all = append(all, noiseRow(r.rng, in.key))
		}
		all = append(all, append(append([]any(nil), row...), true))
	}
	var recs []arrow.RecordBatch
	for len(all) > 0 {
		n := min(r.batchSize, len(all))
		rec, err := memsrc.BuildRecord(mem, in.schema(), all[:n])
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
		all = all[n:]
	}
	return recs, nil
}

// scanNode is the plan of one input: Scan → Filter(keep) → Project(k, t, v).
func scanNode(src *memsrc.Source, in input) (plan.Node, error) {
	var n plan.Node = &plan.Scan{Source: src}
	n, err := plan.NewFilter(n, plan.ColumnRef{Name: "keep"})
	if err != nil {
		return nil, err
	}
	return plan.NewProject(n, []plan.Expr{
		plan.ColumnRef{Name: in.prefix + "k"}, plan.ColumnRef{Name: in.prefix + "t"}, plan.ColumnRef{Name: in.prefix + "v"},
	})
}

// run executes r and returns each trigger's output.
func (r *opRun) run(t testing.TB) []trigOut {
	t.Helper()
	x := r.start(t)
	defer x.stop()
	var out []trigOut
	r.metrics = map[string]int64{}
	for _, rows := range r.triggers {
		o := x.trigger(rows)
		for _, p := range o.progress {
			for _, op := range p.StateOperators {
				for k, v := range op.CustomMetrics {
					r.metrics[k] += v
				}
			}
		}
		out = append(out, o)
	}
	r.restarted = x.restarts
	return out
}

// runner runs an opRun one trigger at a time.
type runner struct {
	t     testing.TB
	r     *opRun
	mem   *memory.CheckedAllocator
	srcs  []*memsrc.Source
	plan  plan.Node
	table *memsrc.Table
	q     *exec.Query
	rec   *testutil.Recorder
	plog  *progressLog
	late  *testutil.Recorder
	seenL int
	// history holds every record added to each input, to fill the new
	// sources of a restarted query (a query closes its sources on Stop).
	history  [][]arrow.RecordBatch
	ckptDir  string
	restarts int
	seenB    int
	seenP    int
	ntrigs   int
}

// start builds the sources and the plan; the query starts with the first
// trigger.
func (r *opRun) start(t testing.TB) *runner {
	t.Helper()
	x := &runner{t: t, r: r, mem: memory.NewCheckedAllocator(memory.NewGoAllocator()),
		rec: testutil.NewRecorder(), plog: &progressLog{}, history: make([][]arrow.RecordBatch, len(r.inputs)*r.nstreams())}
	if r.restart > 0 {
		x.ckptDir = checkpointDir(t)
	}
	if r.static != nil {
		sch := arrow.NewSchema([]arrow.Field{
			{Name: "sk", Type: r.staticKey, Nullable: true},
			{Name: "sv", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		}, nil)
		tbl, err := memsrc.NewTableRows(x.mem, sch, r.static...)
		if err != nil {
			t.Fatal(err)
		}
		x.table = tbl
	}
	x.open()
	return x
}

// checkpointDir returns a new directory for a checkpoint, in memory
// (/dev/shm) where there is one: the restart tests test recovery, not the
// disk, and on a busy machine fsyncs made them minutes long.
func checkpointDir(t testing.TB) string {
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "millrace-optest-"); err == nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// open makes the sources, holding every record added so far, and the plan
// over them.
func (x *runner) open() {
	t, r := x.t, x.r
	t.Helper()
	x.srcs = x.srcs[:0]
	nodes := make([]plan.Node, len(r.inputs))
	for i, in := range r.inputs {
		var branches []plan.Node
		for p := 0; p < r.nstreams(); p++ {
			src, err := memsrc.New(in.schema(), memsrc.Options{Allocator: x.mem, Name: fmt.Sprintf("in%s%d", in.prefix, p)})
			if err != nil {
				t.Fatal(err)
			}
			for _, rec := range x.history[len(x.srcs)] {
				if _, err := src.AddBatch(rec); err != nil {
					t.Fatal(err)
				}
			}
			x.srcs = append(x.srcs, src)
			n, err := scanNode(src, in)
			if err != nil {
				t.Fatal(err)
			}
			branches = append(branches, n)
		}
		nodes[i] = branches[0]
		if len(branches) > 1 {
			u, err := plan.NewUnion(branches)
			if err != nil {
				t.Fatal(err)
			}
			nodes[i] = u
		}
	}
	if x.table != nil {
		nodes = append(nodes, &plan.StaticScan{Table: x.table})
	}
	p, err := r.build(nodes)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	x.plan = p
}

// trigger adds rows[j] to input j and runs what they make runnable: the
// data batch and, when the watermark moved, a no-data batch. With
// opRun.restart it may first stop the query and start it again from its
// checkpoint.
func (x *runner) trigger(rows [][][]any) trigOut {
	t, r := x.t, x.r
	t.Helper()
	ctx := context.Background()
	i := x.ntrigs
	x.ntrigs++
	// a run restarts at its last trigger at the latest
	last := x.restarts == 0 && i == len(r.triggers)-1
	if x.q != nil && r.restart > 0 && (last || r.rng.Float64() < r.restart) {
		if err := x.q.Stop(); err != nil {
			t.Fatalf("stop before trigger %d: %v", i, err)
		}
		x.q = nil
		x.restarts++
		if r.onRestart != nil {
			r.onRestart()
		}
		x.open()
	}
	ns := r.nstreams()
	for j, in := range r.inputs {
		parts := make([][][]any, ns)
		if j < len(rows) {
			for _, row := range rows[j] {
				p := r.rng.IntN(ns)
				parts[p] = append(parts[p], row)
			}
		}
		for p, part := range parts {
			recs, err := r.records(x.mem, in, part)
			if err != nil {
				t.Fatalf("trigger %d input %d: %v", i, j, err)
			}
			k := j*ns + p
			for _, rec := range recs {
				x.history[k] = append(x.history[k], rec) // the reference added here
				if _, err := x.srcs[k].AddBatch(rec); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if x.q == nil {
		// The first trigger's rows are there when the query starts, so
		// that the first batch reads all of them (both inputs of a join
		// included).
		parts := r.statePartitions
		if parts == 0 {
			parts = 3
		}
		var lateSink sinks.Sink
		if r.lateSink {
			if x.late == nil {
				x.late = testutil.NewRecorder()
			}
			lateSink = x.late
		}
		q, err := exec.Start(ctx, exec.Config{
			LateSink: lateSink,
			Plan:     x.plan, Sink: x.rec, Mode: r.mode, Allocator: x.mem,
			Trigger:              exec.Trigger{Kind: exec.TriggerProcessingTime, Interval: time.Hour},
			Parallelism:          2,
			StatePartitions:      parts,
			Listeners:            []exec.Listener{x.plog},
			CheckpointDir:        x.ckptDir,
			MinDeltasForSnapshot: 1 + i%3, // restarts read snapshots and deltas
		})
		if err != nil {
			t.Fatalf("start before trigger %d: %v", i, err)
		}
		x.q = q
	}
	if err := x.q.ProcessAllAvailable(ctx); err != nil {
		t.Fatalf("trigger %d: %v", i, err)
	}
	_, batches := x.rec.Batches()
	var o trigOut
	o.batches = batches[x.seenB:]
	x.seenB = len(batches)
	o.progress, x.seenP = x.plog.since(x.seenP)
	if x.late != nil {
		_, lb := x.late.Batches()
		for _, b := range lb[x.seenL:] {
			o.late = append(o.late, b...)
		}
		x.seenL = len(lb)
	}
	return o
}

// stop stops the query, releases the inputs and checks that every Arrow
// buffer was released.
func (x *runner) stop() {
	x.t.Helper()
	if x.q != nil {
		if err := x.q.Stop(); err != nil {
			x.t.Errorf("stop: %v", err)
		}
	}
	for _, s := range x.srcs {
		_ = s.Close()
	}
	for _, recs := range x.history {
		for _, rec := range recs {
			rec.Release()
		}
	}
	if x.table != nil {
		x.table.Release()
	}
	x.mem.AssertSize(x.t, 0)
}

// split cuts rows into n triggers at random points (a trigger may be
// empty), keeping their order.
func split(rng *rand.Rand, rows [][]any, n int) [][][]any {
	cuts := make([]int, n-1)
	for i := range cuts {
		cuts[i] = rng.IntN(len(rows) + 1)
	}
	sortInts(cuts)
	out := make([][][]any, n)
	prev := 0
	for i, c := range cuts {
		out[i] = rows[prev:c]
		prev = c
	}
	out[n-1] = rows[prev:]
	return out
}

func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// oneInput wraps per-trigger rows of a single input as opRun.triggers.
func oneInput(trigs [][][]any) [][][][]any {
	out := make([][][][]any, len(trigs))
	for i, rows := range trigs {
		out[i] = [][][]any{rows}
	}
	return out
}

// genOpts shape generated rows.
type genOpts struct {
	n        int     // rows
	keys     int     // distinct non-null keys
	nullKey  float64 // probability of a null key
	nullTime float64
	nullVal  float64
	spanSec  int64 // event times advance over about this many seconds
	stringK  bool
}

// genRows draws rows (k, t, v) whose event times mostly increase, with
// some out of order, some far behind, some on whole seconds (window
// boundaries) and some with sub-millisecond parts.
func genRows(rng *rand.Rand, o genOpts) [][]any {
	rows := make([][]any, o.n)
	for i := range rows {
		var k any
		if rng.Float64() >= o.nullKey {
			k = int64(rng.IntN(o.keys))
			if o.stringK {
				k = fmt.Sprint("k", k)
			}
		}
		base := t0 + o.spanSec*sec*int64(i)/int64(max(o.n, 1))
		var ts int64
		switch rng.IntN(6) {
		case 0: // out of order, up to 5 s behind
			ts = base - rng.Int64N(5*sec)
		case 1: // far behind
			ts = base - rng.Int64N(30*sec)
		case 2: // a whole second
			ts = base / sec * sec
		case 3: // sub-millisecond
			ts = base + rng.Int64N(1000)
		default: // whole milliseconds
			ts = base/1000*1000 + rng.Int64N(1000)*1000
		}
		var tv any = ts
		if rng.Float64() < o.nullTime {
			tv = nil
		}
		var v any
		if rng.Float64() >= o.nullVal {
			v = int64(rng.IntN(41) - 20)
		}
		rows[i] = []any{k, tv, v}
	}
	return rows
}

// atWatermarks adds to every trigger after the first, for each offset,
// a row of input j at w[i] − offset (w[i]: the watermark the trigger's data
// batch runs with), at a random place, with the key of a random row of the
// input: the boundaries of lateness, which random times seldom hit. Such a
// row is at or below the watermark unless an offset is negative, so it
// leaves the watermarks as they were.
func atWatermarks(rng *rand.Rand, trigs [][][][]any, j int, w []int64, offsets []int64) {
	var keys []any
	for _, tr := range trigs {
		for _, r := range tr[j] {
			keys = append(keys, r[0])
		}
	}
	if len(keys) == 0 {
		return
	}
	for i := 1; i < len(trigs); i++ {
		if w[i] == 0 {
			continue
		}
		for _, off := range offsets {
			rows := trigs[i][j]
			at := rng.IntN(len(rows) + 1)
			row := []any{keys[rng.IntN(len(keys))], w[i] - off, int64(rng.IntN(41) - 20)}
			trigs[i][j] = append(rows[:at:at], append([][]any{row}, rows[at:]...)...)
		}
	}
}

// check compares got and want as multisets and reports the trigger.
func check(t *testing.T, what string, trig int, got, want [][]any) {
	t.Helper()
	if d := testutil.Diff(got, want); d != "" {
		t.Fatalf("%s: trigger %d: %s", what, trig, d)
	}
}

// describe renders a trigger sequence for failure messages.
func describe(trigs [][][][]any) string {
	var b strings.Builder
	for i, tr := range trigs {
		fmt.Fprintf(&b, "trigger %d:", i)
		for j, rows := range tr {
			if len(tr) > 1 {
				fmt.Fprintf(&b, " input %d:", j)
			}
			for _, r := range rows {
				b.WriteString(" " + fmtRow(r))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func fmtRow(r []any) string {
	parts := make([]string, len(r))
	for i, v := range r {
		switch v := v.(type) {
		case nil:
			parts[i] = "null"
		case int64:
			if v > t0/2 {
				parts[i] = fmt.Sprintf("T+%gs", float64(v-t0)/1e6)
			} else {
				parts[i] = fmt.Sprint(v)
			}
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return "(" + strings.Join(parts, ",") + ")"
}

// sizesFor returns the batch sizes to replay over: all of them, or under
// -short the small ones and the default.
func sizesFor() []int {
	if testing.Short() {
		return []int{1, 3, 1024}
	}
	return batchSizes
}

// replay says what to replay a case over: seeds (each its own rows,
// trigger split and noise), batch sizes, and the probability of a restart
// from the checkpoint before a trigger.
type replay struct {
	seeds   uint64
	sizes   []int
	restart float64
}

// everySize replays over every batch size; withRestarts over two, with
// the query restarted from its checkpoint before about half the triggers.
func everySize() replay    { return replay{seeds: 2, sizes: sizesFor()} }
func withRestarts() replay { return replay{seeds: 1, sizes: []int{3, 1024}, restart: 0.5} }

// oracleFn gives the expected rows of each trigger and, unless nil, the
// rows the stateful operator keeps after it.
type oracleFn func(trigs [][][][]any) ([][][]any, []int64)

// rowsOnly is an oracle that does not say what the state holds.
func rowsOnly(f func([][][][]any) [][][]any) oracleFn {
	return func(trigs [][][][]any) ([][][]any, []int64) { return f(trigs), nil }
}

// run runs one subtest per seed and batch size: mk draws the run (inputs,
// query, triggers) and its oracle from rng; the harness sets the batch
// size, noise rows, state partitions and restarts.
func (rp replay) run(t *testing.T, name string, salt uint64, mk func(rng *rand.Rand, seed uint64) (*opRun, oracleFn)) {
	if rp.restart > 0 {
		name += "/restarts"
	}
	restarts := 0
	defer func() {
		if rp.restart > 0 && restarts == 0 && !t.Failed() {
			t.Errorf("%s: no run restarted its query", name)
		}
	}()
	for seed := uint64(1); seed <= rp.seeds; seed++ {
		for _, size := range rp.sizes {
			sub := fmt.Sprintf("%s/seed%d/batch%d", name, seed, size)
			t.Run(sub, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(size)+salt))
				r, oracle := mk(rng, seed)
				r.batchSize, r.noise, r.rng, r.restart = size, 0.3, rng, rp.restart
				r.lateSink = r.late != nil && rng.IntN(2) == 0
				if r.statePartitions == 0 {
					r.statePartitions = 1 + rng.IntN(4)
				}
				got := r.run(t)
				restarts += r.restarted
				want, state := oracle(r.triggers)
				compareOut(t, sub+"\n"+describe(r.triggers), r.mode, got, want)
				compareState(t, sub+"\n"+describe(r.triggers), got, state)
				compareLate(t, sub+"\n"+describe(r.triggers), r, got)
			})
		}
	}
}

// compareLate checks, when the run has a late oracle, the rows each
// trigger dropped as late (numRowsDroppedByWatermark over its batches) and
// those the late-data sink received.
func compareLate(t *testing.T, what string, r *opRun, got []trigOut) {
	t.Helper()
	if r.late == nil {
		return
	}
	rows, counts := r.late(r.triggers)
	for i := range counts {
		var n int64
		for _, p := range got[i].progress {
			for _, op := range p.StateOperators {
				n += op.NumRowsDroppedByWatermark
			}
		}
		if n != counts[i] {
			t.Fatalf("%s: trigger %d: %d rows dropped as late, want %d", what, i, n, counts[i])
		}
		if r.lateSink {
			if d := testutil.Diff(got[i].late, rows[i]); d != "" {
				t.Fatalf("%s: trigger %d: late-data sink: %s", what, i, d)
			}
		}
	}
}

// keyType is the key type of a seed's run: int64 for odd seeds, string for
// even ones.
func keyType(seed uint64) arrow.DataType {
	if seed%2 == 0 {
		return arrow.BinaryTypes.String
	}
	return arrow.PrimitiveTypes.Int64
}
