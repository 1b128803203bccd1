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
	dir := restartOnFixture(t, oldLayoutFixture)
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

// The checkpoint of the same run written by Millrace before the int-key
// blocks (at be68160, state layout 2, every changed group a row of its
// delta), with its small-delta threshold (exec.smallDeltaBytes) set to 0
// so that every delta is a changelog file:
//
//	git archive be68160 | tar -x -C /tmp/before && cd /tmp/before
//	sed -i 's/^var smallDeltaBytes int64 = 256 << 10/var smallDeltaBytes int64 = 0/' exec/changelog.go
//	MILLRACE_WRITE_FIXTURE=<repo>/e2e/testdata/state-layout2-rows go test -run TestWriteOldLayoutFixture ./e2e/
const rowDeltasFixture = "testdata/state-layout2-rows"

// TestRestartOnRowDeltasCheckpoint restarts the query on delta files
// whose groups are rows one by one (before the int-key blocks): they are
// read as they are, and the restarted query continues exactly as one
// whose checkpoint this Millrace wrote.
func TestRestartOnRowDeltasCheckpoint(t *testing.T) {
	restartOnFixture(t, rowDeltasFixture)
}

// restartOnFixture runs the old-layout query from a copy of the
// checkpoint fixture over every chunk and checks that it gets exactly the
// rows this Millrace gets restarting on its own checkpoint of the same
// first batches, whose run is exactly the oracle's. It returns the copy.
func restartOnFixture(t *testing.T, fixture string) string {
	t.Helper()
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
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	got := (&restartRun{loc: dir, chunks: chunks, build: build, mode: millrace.Append}).run(t)
	if len(got) == 0 {
		t.Fatal("the restarted query wrote nothing: the test does not test it")
	}
	if d := testutil.Diff(got, wantAfter); d != "" {
		t.Fatalf("restarted on %s: %s", fixture, d)
	}
	return dir
}
