package nexmark

import (
	"context"
	"errors"
	"github.com/millrace/millrace/internal/testutil"
	"testing"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks/blackhole"
)

// TestReplayAfterCrash crashes a checkpointed q1 after batch 3 was read
// but before the sink committed it, restarts it from the checkpoint, and
// checks that the two runs together wrote exactly the oracle's rows: the
// restarted query re-reads batch 3 from its recorded offsets, and the
// generator replays it identically.
func TestReplayAfterCrash(t *testing.T) {
	cfg := Config{Events: 80_000, Seed: 11, MaxEventsPerTrigger: 10_000, NumPartitions: 3, OutOfOrderGroup: 5}
	dir := t.TempDir()
	crash := errors.New("injected crash")
	start := func(sink *blackhole.Sink, fault func(string, int64) error) error {
		w := Q1(NewSource(cfg, Bids)).WriteStream(sink).
			Trigger(millrace.AvailableNow()).
			Checkpoint(dir)
		if fault != nil {
			w = w.FaultInjection(fault)
		}
		q, err := w.Start(context.Background())
		if err != nil {
			return err
		}
		return q.AwaitTermination(context.Background())
	}
	first, second := testutil.Must(blackhole.New()), testutil.Must(blackhole.New())
	err := start(first, func(step string, batch int64) error {
		if step == exec.StepDataRead && batch == 3 {
			return crash
		}
		return nil
	})
	if !errors.Is(err, crash) {
		t.Fatalf("first run: %v, want the injected crash", err)
	}
	if err := start(second, nil); err != nil {
		t.Fatal(err)
	}
	got := Result{Rows: first.Rows() + second.Rows(), Checksum: first.Checksum() + second.Checksum()}
	if want := OracleQ1(NewGenerator(cfg), cfg.Events); got != want {
		t.Fatalf("runs wrote %s, oracle %s (first run %d rows)", got, want, first.Rows())
	}
	if first.Rows() == 0 || second.Rows() == 0 {
		t.Fatalf("crash did not split the run: %d + %d rows", first.Rows(), second.Rows())
	}
}
