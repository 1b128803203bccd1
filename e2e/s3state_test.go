package e2e_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
	"github.com/millrace/millrace/storage"
)

// restartPlan says how a run is interrupted: after chunk i (0-based) is
// processed the query stops cleanly (stop) or crashes at a step of a batch
// (crashes), and each time the whole local work directory is deleted
// before the restart: a new machine with only the S3 checkpoint.
type restartPlan struct {
	stopAfter map[int]bool
	crashes   map[int64]string // batch id -> step
}

type multiCrash struct {
	at   map[int64]string
	done map[int64]bool
}

func (c *multiCrash) hook(step string, batch int64) error {
	if s, ok := c.at[batch]; ok && s == step && !c.done[batch] {
		c.done[batch] = true
		return errCrash
	}
	return nil
}

// runOnNewMachines runs build over chunks with its checkpoint at loc,
// interrupted as plan says, deleting the work directory at every restart.
func runOnNewMachines(t *testing.T, loc, work string, chunks [][]click, build func(*memsrc.Source) *millrace.Stream,
	mode millrace.OutputMode, plan restartPlan) [][]any {
	t.Helper()
	fault := &multiCrash{at: plan.crashes, done: map[int64]bool{}}
	r := restartRun{loc: loc, chunks: chunks, build: build, mode: mode, fault: fault.hook,
		snapshotEvery: 3, // restores read a snapshot and deltas
		stopAfter:     func(i int) bool { return plan.stopAfter[i] },
		restarting: func() {
			if err := os.RemoveAll(work); err != nil {
				t.Fatal(err)
			}
		}}
	rows := r.run(t)
	if len(fault.done) != len(plan.crashes) {
		t.Fatalf("the query crashed at %v, want %v", fault.done, plan.crashes)
	}
	if r.restarts < 3 {
		t.Fatalf("%d restarts, want several", r.restarts)
	}
	return rows
}

// TestS3StateSurvivesNewMachine: stateful queries with their checkpoint on
// the S3 server stop or crash several times (at each step of a batch) and
// restart with their local work directory deleted: the state comes back
// from the checkpoint's durable copy, and the output is exactly an
// uninterrupted run's.
func TestS3StateSurvivesNewMachine(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	work := t.TempDir()
	t.Setenv(checkpoint.WorkDirEnv, work)
	plan := restartPlan{
		stopAfter: map[int]bool{1: true, 6: true},
		crashes: map[int64]string{
			3: exec.StepOffsetsWritten,
			5: exec.StepSinkCommitted,
			7: exec.StepStateUploaded,
			8: exec.StepStateCommitted,
			9: exec.StepCommitWritten,
		},
	}
	t.Run("window", func(t *testing.T) {
		const delay = 10 * time.Second
		w := windowSpec{size: 60 * second, slide: 20 * second}
		chunks := split(genClicks(2400, 21, 0.05), 12)
		build := func(src *memsrc.Source) *millrace.Stream { return clickQuery(src, w, delay) }
		for _, mode := range []millrace.OutputMode{millrace.Append, millrace.Update} {
			t.Run(fmt.Sprint(mode), func(t *testing.T) {
				want, _ := oracle(chunks, w, mode, int64(delay/time.Microsecond))
				var wantRows [][]any
				for _, b := range want {
					wantRows = append(wantRows, b...)
				}
				loc := fmt.Sprintf("s3://%s/queries/clicks", srv.NewBucket(t))
				got := runOnNewMachines(t, loc, work, chunks, build, mode, plan)
				if d := testutil.Diff(got, wantRows); d != "" {
					t.Fatal(d)
				}
				if d := testutil.Diff(got, runWithCrash(t, chunks, build, mode, "", -1)); d != "" {
					t.Fatalf("differs from an uninterrupted run on a local checkpoint: %s", d)
				}
				checkDurableCopy(t, loc)
			})
		}
	})
	t.Run("dedup", func(t *testing.T) {
		const delay = 5 * second
		chunks := split(genClicks(2000, 13, 0.05), 12)
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
		loc := fmt.Sprintf("s3://%s/queries/dedup", srv.NewBucket(t))
		got := runOnNewMachines(t, loc, work, chunks, build, millrace.Append, plan)
		if d := testutil.Diff(got, want); d != "" {
			t.Fatal(d)
		}
		checkDurableCopy(t, loc)
	})
}

// checkDurableCopy checks that the checkpoint holds the state's deltas and
// snapshots on S3, and that inspecting it reads the state version there.
func checkDurableCopy(t *testing.T, loc string) {
	t.Helper()
	st, err := storage.Open(context.Background(), loc)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := st.List(context.Background(), "state/")
	if err != nil {
		t.Fatal(err)
	}
	var deltas, snaps int
	for _, o := range objs {
		switch {
		case strings.HasSuffix(o.Name, ".delta"):
			deltas++
		case strings.HasSuffix(o.Name, ".snapshot"):
			snaps++
		}
	}
	if deltas == 0 || snaps == 0 {
		t.Fatalf("%s/state holds %d deltas and %d snapshots, want both", loc, deltas, snaps)
	}
	r, err := exec.Inspect(loc)
	if err != nil {
		t.Fatalf("inspect %s: %v", loc, err)
	}
	if r.RemoteState == nil || r.RemoteState.Version != r.LatestCommitBatchID {
		t.Fatalf("inspect %s: remote state %+v, want version %d", loc, r.RemoteState, r.LatestCommitBatchID)
	}
}
