package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// The old-layout checkpoint: the test's windowed aggregation run over the
// first oldLayoutBatches chunks by Millrace before the state's changelog
// files (state layout 1: every delta a Pebble row), at commit 13b78ef.
// TestWriteOldLayoutFixture wrote it, run in a checkout of that commit:
//
//	MILLRACE_WRITE_FIXTURE=$PWD/e2e/testdata/state-layout1 go test -run TestWriteOldLayoutFixture ./e2e/
const (
	oldLayoutFixture = "testdata/state-layout1"
	oldLayoutBatches = 6
)

func oldLayoutRun() ([][]click, func(*memsrc.Source) *millrace.Stream) {
	w := windowSpec{size: 60 * second, slide: 20 * second}
	build := func(src *memsrc.Source) *millrace.Stream { return clickQuery(src, w, 10*time.Second) }
	return split(genClicks(3000, 3, 0.05), 12), build
}

// TestWriteOldLayoutFixture writes the old-layout checkpoint (see
// oldLayoutFixture); it runs only when asked.
func TestWriteOldLayoutFixture(t *testing.T) {
	dir := os.Getenv("MILLRACE_WRITE_FIXTURE")
	if dir == "" {
		t.Skip("writes the old-layout checkpoint fixture when MILLRACE_WRITE_FIXTURE names its directory")
	}
	chunks, build := oldLayoutRun()
	r := restartRun{loc: dir, chunks: chunks[:oldLayoutBatches], build: build, mode: millrace.Append}
	r.run(t)
}

// TestRestartOnOldLayoutCheckpoint restarts the query on a checkpoint
// whose state an older Millrace wrote (state layout 1, deltas as Pebble
// rows): the state is read, not lost. The sink gets exactly the rows it
// gets when this Millrace wrote the same first batches itself (and stopped
// there too), whose run with them is exactly the oracle's; the first
// commit moves the state to a snapshot file.
func TestRestartOnOldLayoutCheckpoint(t *testing.T) {
	chunks, build := oldLayoutRun()
	mine := filepath.Join(t.TempDir(), "mine")
	before := (&restartRun{loc: mine, chunks: chunks[:oldLayoutBatches], build: build, mode: millrace.Append}).run(t)
	wantAfter := (&restartRun{loc: mine, chunks: chunks, build: build, mode: millrace.Append}).run(t)
	want, _ := oracle(chunks, windowSpec{size: 60 * second, slide: 20 * second}, millrace.Append, int64(10*time.Second/time.Microsecond))
	var wantAll [][]any
	for _, b := range want {
		wantAll = append(wantAll, b...)
	}
	if d := testutil.Diff(append(before, wantAfter...), wantAll); d != "" {
		t.Fatalf("this Millrace's own run, stopped and restarted: %s", d)
	}

	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := os.CopyFS(dir, os.DirFS(oldLayoutFixture)); err != nil {
		t.Fatal(err)
	}
	got := (&restartRun{loc: dir, chunks: chunks, build: build, mode: millrace.Append}).run(t)
	if len(got) == 0 {
		t.Fatal("the restarted query wrote nothing: the test does not test it")
	}
	if d := testutil.Diff(got, wantAfter); d != "" {
		t.Fatalf("restarted on the old layout: %s", d)
	}
	names, err := os.ReadDir(filepath.Join(dir, "state", "changelog"))
	if err != nil {
		t.Fatal(err)
	}
	snapshot := false
	for _, n := range names {
		snapshot = snapshot || strings.HasSuffix(n.Name(), ".snapshot")
	}
	if !snapshot {
		t.Fatalf("no snapshot file after restarting on the old layout: %v", names)
	}
}
