package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

var errCrash = errors.New("simulated crash")

// crash is a fault-injection hook that fails a query once, with errCrash,
// at step of batch; crashed says whether it has.
type crash struct {
	step    string
	batch   int64
	crashed bool
}

func (c *crash) hook(step string, batch int64) error {
	if !c.crashed && step == c.step && batch == c.batch {
		c.crashed = true
		return errCrash
	}
	return nil
}

// clickQuery builds the test's windowed aggregation over src.
func clickQuery(src *memsrc.Source, w windowSpec, delay time.Duration) *millrace.Stream {
	return millrace.ReadStream(src).
		WithWatermark("event_time", delay).
		GroupBy(w.column(), millrace.Col("campaign")).
		Agg(
			millrace.Count().As("n"),
			millrace.Count(millrace.Col("amount")).As("n_amount"),
			millrace.Sum(millrace.Col("amount")).As("total"),
			millrace.Min(millrace.Col("user")).As("min_user"),
			millrace.Max(millrace.Col("amount")).As("max_amount"),
			millrace.Avg(millrace.Col("amount")).As("avg_amount"),
			millrace.CountDistinct(millrace.Col("user")).As("users"),
		)
}

// TestRecoveryAtEveryStep crashes a checkpointed query at each step of a
// batch, restarts it on the same checkpoint, and checks that the sink ends
// with exactly the rows of an uninterrupted run: none lost, none twice.
func TestRecoveryAtEveryStep(t *testing.T) {
	const delay = 10 * time.Second
	w := windowSpec{size: 60 * second, slide: 20 * second}
	data := genClicks(3000, 3, 0.05)
	chunks := split(data, 12)
	steps := []string{exec.StepOffsetsWritten, exec.StepDataRead, exec.StepSinkCommitted, exec.StepStateCommitted, exec.StepCommitWritten}
	for _, mode := range []millrace.OutputMode{millrace.Append, millrace.Update} {
		want, _ := oracle(chunks, w, mode, int64(delay/time.Microsecond))
		var wantRows [][]any
		for _, b := range want {
			wantRows = append(wantRows, b...)
		}
		for _, step := range steps {
			for _, crashBatch := range []int64{0, 5, 9} {
				t.Run(fmt.Sprintf("%s/%s/batch-%d", mode, step, crashBatch), func(t *testing.T) {
					build := func(src *memsrc.Source) *millrace.Stream { return clickQuery(src, w, delay) }
					got := runWithCrash(t, chunks, build, mode, step, crashBatch)
					if d := testutil.Diff(got, wantRows); d != "" {
						t.Fatal(d)
					}
				})
			}
		}
	}
}

// TestDedupRecovery crashes a checkpointed dropDuplicatesWithinWatermark at
// each step and checks the output equals an uninterrupted run's.
func TestDedupRecovery(t *testing.T) {
	const delay = 5 * second
	chunks := split(genClicks(2000, 13, 0.05), 10)
	want, _ := dedupOracle(chunks, func(c click) string { return fmt.Sprint(c.user) },
		func(c click) (int64, bool) {
			if c.ts == nil {
				return 0, true
			}
			return *c.ts + delay, true
		}, delay)
	build := func(src *memsrc.Source) *millrace.Stream {
		return millrace.ReadStream(src).WithWatermark("event_time", time.Duration(delay)*time.Microsecond).DropDuplicatesWithinWatermark("user")
	}
	for _, step := range []string{exec.StepDataRead, exec.StepSinkCommitted, exec.StepStateCommitted} {
		t.Run(step, func(t *testing.T) {
			if d := testutil.Diff(runWithCrash(t, chunks, build, millrace.Append, step, 4), want); d != "" {
				t.Fatal(d)
			}
		})
	}
}

// runWithCrash runs build over chunks with a checkpoint, making the query
// fail once at step of batch crashBatch (none when crashBatch < 0) and
// restarting it on the same checkpoint and sink, and returns every row the
// sink committed.
func runWithCrash(t *testing.T, chunks [][]click, build func(*memsrc.Source) *millrace.Stream, mode millrace.OutputMode, step string, crashBatch int64) [][]any {
	t.Helper()
	return runWithCrashIn(t, t.TempDir(), chunks, build, mode, step, crashBatch)
}

// runWithCrashIn is runWithCrash with the checkpoint at location dir (a
// directory or s3://bucket/prefix).
func runWithCrashIn(t *testing.T, dir string, chunks [][]click, build func(*memsrc.Source) *millrace.Stream, mode millrace.OutputMode, step string, crashBatch int64) [][]any {
	t.Helper()
	fault := &crash{step: step, batch: crashBatch}
	r := restartRun{loc: dir, chunks: chunks, build: build, mode: mode, fault: fault.hook,
		snapshotEvery: 1} // restarts read snapshots and deltas
	rows := r.run(t)
	if !fault.crashed && crashBatch >= 0 {
		t.Fatalf("the query never reached step %s of batch %d", step, crashBatch)
	}
	return rows
}

// restartRun feeds chunks, one ProcessAllAvailable each, to the query build
// makes, with its checkpoint at loc (a directory or s3://bucket/prefix) and
// one recorder as its sink. When processing fails with errCrash (or an
// error failed accepts) the query stops and starts again on the same
// checkpoint and sink with the input added so far, as a new process would
// see it, until the chunk is processed.
type restartRun struct {
	loc           string
	chunks        [][]click
	build         func(*memsrc.Source) *millrace.Stream
	mode          millrace.OutputMode
	fault         func(step string, batch int64) error // FaultInjection hook, or nil
	snapshotEvery int                                  // MinDeltasForSnapshot; 0: the default
	before        func(i int)                          // called before chunk i is processed
	failed        func(err error) bool                 // an error other than errCrash: true restarts, false fails the test
	stopAfter     func(i int) bool                     // also restart after chunk i
	restarting    func()                               // called between the stop and the restart
	restarts      int
}

// run returns every row the sink committed.
func (r *restartRun) run(t *testing.T) [][]any {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := testutil.NewRecorder()
	ctx := context.Background()
	start := func(added int) (*millrace.Query, *memsrc.Source) {
		src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{Allocator: mem}))
		for _, c := range r.chunks[:added] {
			if _, err := src.AddRows(clickRows(c)...); err != nil {
				t.Fatal(err)
			}
		}
		w := r.build(src).WriteStream(rec).OutputMode(r.mode).Allocator(mem).StatePartitions(4).Checkpoint(r.loc)
		if r.snapshotEvery > 0 {
			w = w.MinDeltasForSnapshot(r.snapshotEvery)
		}
		if r.fault != nil {
			w = w.FaultInjection(r.fault)
		}
		q, err := w.Start(ctx)
		if err != nil {
			t.Fatalf("start %d: %v", r.restarts, err)
		}
		return q, src
	}
	restart := func(q *millrace.Query, added int) (*millrace.Query, *memsrc.Source) {
		_ = q.Stop()
		if r.restarting != nil {
			r.restarting()
		}
		r.restarts++
		return start(added)
	}
	q, src := start(0)
	for i, c := range r.chunks {
		if _, err := src.AddRows(clickRows(c)...); err != nil {
			t.Fatal(err)
		}
		if r.before != nil {
			r.before(i)
		}
		for {
			err := q.ProcessAllAvailable(ctx)
			if err == nil {
				break
			}
			if !errors.Is(err, errCrash) && (r.failed == nil || !r.failed(err)) {
				t.Fatalf("chunk %d: %v", i, err)
			}
			q, src = restart(q, i+1)
		}
		if r.stopAfter != nil && r.stopAfter(i) {
			q, src = restart(q, i+1)
		}
	}
	if err := q.Stop(); err != nil {
		t.Fatal(err)
	}
	return rec.All()
}

// TestRestartWithChangedQuery: a stateless change is allowed, a change to
// the aggregation is refused with an error that says what changed.
func TestRestartWithChangedQuery(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	w := windowSpec{size: 60 * second, slide: 60 * second}
	run := func(s *millrace.Stream, src *memsrc.Source) error {
		if _, err := src.AddRows(clickRows(genClicks(100, 1, 0))...); err != nil {
			t.Fatal(err)
		}
		q, err := s.WriteStream(testutil.NewRecorder()).OutputMode(millrace.Update).Checkpoint(dir).Start(ctx)
		if err != nil {
			return err
		}
		if err := q.ProcessAllAvailable(ctx); err != nil {
			return err
		}
		return q.Stop()
	}
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	if err := run(clickQuery(src, w, time.Second), src); err != nil {
		t.Fatal(err)
	}
	src = testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	filtered := millrace.ReadStream(src).Filter(millrace.Col("user").Gt(3)).WithWatermark("event_time", time.Second).
		GroupBy(w.column(), millrace.Col("campaign")).
		Agg(
			millrace.Count().As("n"),
			millrace.Count(millrace.Col("amount")).As("n_amount"),
			millrace.Sum(millrace.Col("amount")).As("total"),
			millrace.Min(millrace.Col("user")).As("min_user"),
			millrace.Max(millrace.Col("amount")).As("max_amount"),
			millrace.Avg(millrace.Col("amount")).As("avg_amount"),
			millrace.CountDistinct(millrace.Col("user")).As("users"),
		)
	if err := run(filtered, src); err != nil {
		t.Fatalf("a new stateless filter must be allowed: %v", err)
	}
	src = testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	changed := millrace.ReadStream(src).WithWatermark("event_time", time.Second).
		GroupBy(w.column(), millrace.Col("campaign")).Agg(millrace.Count().As("n"))
	err := run(changed, src)
	if !errors.Is(err, checkpoint.ErrIncompatible) || !strings.Contains(err.Error(), "aggregate functions") {
		t.Fatalf("changed aggregation: got %v, want ErrIncompatible naming the aggregate functions", err)
	}
}

// TestIntKeyRecoveryAtEveryStep is TestRecoveryAtEveryStep for groupings
// whose keys are all integers or timestamps (window × user), whose deltas
// are int-key blocks (exec/changelog_intblock.go): with aggregates whose
// states are laid out by column and with one (count distinct) that makes
// them rows. Each crashed run must end with exactly the rows of an
// uninterrupted run.
func TestIntKeyRecoveryAtEveryStep(t *testing.T) {
	const delay = 10 * time.Second
	w := windowSpec{size: 60 * second, slide: 20 * second}
	chunks := split(genClicks(3000, 7, 0.05), 12)
	col := millrace.Col
	steps := []string{exec.StepOffsetsWritten, exec.StepDataRead, exec.StepSinkCommitted, exec.StepStateCommitted, exec.StepCommitWritten}
	for _, byRow := range []bool{false, true} {
		build := func(src *memsrc.Source) *millrace.Stream {
			aggs := []millrace.Column{millrace.Count().As("n"), millrace.Sum(col("amount")).As("total"),
				millrace.Min(col("user")).As("min_user"), millrace.Max(col("amount")).As("max_amount"),
				millrace.Avg(col("amount")).As("avg_amount")}
			if byRow {
				aggs = append(aggs, millrace.CountDistinct(col("campaign")).As("campaigns"))
			}
			return millrace.ReadStream(src).WithWatermark("event_time", delay).
				GroupBy(w.column(), col("user")).Agg(aggs...)
		}
		for _, mode := range []millrace.OutputMode{millrace.Append, millrace.Update} {
			want := runWithCrash(t, chunks, build, mode, "", -1)
			if len(want) == 0 {
				t.Fatal("the uninterrupted run wrote nothing: the test does not test it")
			}
			for _, step := range steps {
				for _, crashBatch := range []int64{0, 5, 9} {
					t.Run(fmt.Sprintf("by-row=%v/%s/%s/batch-%d", byRow, mode, step, crashBatch), func(t *testing.T) {
						if d := testutil.Diff(runWithCrash(t, chunks, build, mode, step, crashBatch), want); d != "" {
							t.Fatal(d)
						}
					})
				}
			}
		}
	}
}
