package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/sinks/blackhole"
	"github.com/millrace/millrace/sources/clicks"
	"github.com/millrace/millrace/state"
)

// fullDiskChildEnv makes the test binary run fullDiskChild on the
// checkpoint directory it names.
const fullDiskChildEnv = "MILLRACE_FULL_DISK_CHILD"

// exitDiskFull is the child's exit code when the query stopped with
// state.ErrDiskFull.
const exitDiskFull = 4

// TestFullDiskChild is the child process of TestFullDisk; it does nothing
// in a normal test run.
func TestFullDiskChild(t *testing.T) {
	ckpt := os.Getenv(fullDiskChildEnv)
	if ckpt == "" {
		t.Skip("child process of TestFullDisk")
	}
	err := fullDiskChild(ckpt)
	switch {
	case errors.Is(err, state.ErrDiskFull):
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(exitDiskFull)
	case err != nil:
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// fullDiskChild runs a checkpointed aggregation with much state (a count
// of distinct users per campaign and minute over many users): its
// checkpoint outgrows a small filesystem.
func fullDiskChild(ckpt string) error {
	src := testutil.Must(clicks.New(clicks.Options{Seed: 3, Events: 2_000_000, MaxEventsPerTrigger: 200_000, Users: 1_000_000}))
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", time.Hour).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Hour), millrace.Col("user_id")).
		Agg(millrace.Count().As("clicks"))
	ctx := context.Background()
	q, err := counts.WriteStream(testutil.Must(blackhole.New())).
		OutputMode(millrace.Update).
		Trigger(millrace.AvailableNow()).
		Checkpoint(ckpt).
		StatePartitions(2).
		Start(ctx)
	if err != nil {
		return err
	}
	return q.AwaitTermination(ctx)
}

// Issue 10, item 10, end to end: a query whose checkpoint fills a real
// (tiny tmpfs) filesystem stops with an error that names the path and says
// the disk is full, and so does its restart on the still-full disk, which
// used to spin in Pebble's flush retries for ever (154K log lines in 30 s).
// Needs root and mount(2); skipped otherwise.
func TestFullDisk(t *testing.T) {
	if os.Getenv(fullDiskChildEnv) != "" {
		t.Skip("in the child")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	ckpt := filepath.Join(mnt, "checkpoint")
	for _, run := range []string{"first run", "restart on the full disk"} {
		code, out := runFullDiskChild(t, ckpt)
		if code != exitDiskFull {
			t.Fatalf("%s: exit code %d, want %d (disk full):\n%s", run, code, exitDiskFull, out)
		}
		if !strings.Contains(out, "the disk is full") || !strings.Contains(out, ckpt) {
			t.Fatalf("%s: the error does not say the disk is full and where:\n%s", run, out)
		}
		if n := strings.Count(out, "\n"); n > 20 {
			t.Fatalf("%s: %d lines of output, want a few:\n%.3000s", run, n, out)
		}
		t.Logf("%s: %s", run, strings.TrimSpace(out))
	}
}

// runFullDiskChild runs the child on ckpt and returns its exit code and
// output. A child still running after a minute is killed and fails the
// test: the defect was a restart that never ended.
func runFullDiskChild(t *testing.T, ckpt string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fullDiskChildEnv+"="+ckpt)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	case <-time.After(time.Minute):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-done
		t.Fatalf("the query on a full disk had not exited after a minute; output:\n%.3000s", out.String())
		return 0, ""
	}
}
