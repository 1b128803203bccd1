package killtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	mexec "github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/sinks/file"
)

// steps are the engine's fault-injection steps, in batch order.
var steps = []string{
	mexec.StepOffsetsWritten,
	mexec.StepDataRead,
	mexec.StepSinkCommitted,
	mexec.StepStateCommitted,
	mexec.StepCommitWritten,
}

// The child's workload: 200k events, 8k per trigger → 25 data batches and
// a final no-data batch that closes the windows the watermark passed.
const (
	events      = 200_000
	perTrigger  = 8_000
	rowsPerFile = 64 // several files per batch
	seed        = 20260101
	minRandom   = 30 // random kills per test run, at least
)

// harness runs the child and keeps the tally.
type harness struct {
	t     *testing.T
	bin   string
	root  string
	ref   map[int64][]string // reference output lines per batch
	nRef  int
	kills int
	hits  map[string]int // kills per step or random landing
	runs  int

	nBatches     int64    // batches of the reference run
	parallelism  int      // of the next child run (0: GOMAXPROCS)
	shape        []string // extra child flags: the query's shape
	randomChains int
}

// outcome is how one child run ended.
type outcome struct {
	ok, killed bool
	stderr     string
	dur        time.Duration
}

func TestKillAndRestart(t *testing.T) {
	start := time.Now()
	h := &harness{t: t, root: t.TempDir(), hits: map[string]int{}}
	h.bin = buildChild(t)
	t.Logf("built child in %v", time.Since(start).Round(time.Millisecond))

	h.reference("reference")

	// 1. each batch killed once, rotating through the steps; two schedules
	// with different rotations so every step meets every batch parity.
	for k := 0; k < 2; k++ {
		d := h.dirs(fmt.Sprintf("steps-%d", k))
		var targets []string
		for b := int64(0); b < h.nBatches; b++ {
			targets = append(targets, fmt.Sprintf("%s:%d", steps[(int(b)+k*2)%len(steps)], b))
		}
		h.schedule(d, targets)
		h.verify(d)
	}

	// 2. recovery interrupted: kill batch b at an early step, then kill its
	// re-run by recovery at a later step. (After state-committed, recovery
	// only writes the commit log and runs no step of b.)
	{
		d := h.dirs("recovery")
		var targets []string
		for b := int64(0); b < h.nBatches; b++ {
			first := int(b) % 3                                 // offsets-written, data-read, sink-committed
			second := first + 1 + int(b/3)%(len(steps)-1-first) // a later step
			targets = append(targets,
				fmt.Sprintf("%s:%d", steps[first], b),
				fmt.Sprintf("%s:%d", steps[second], b))
		}
		h.schedule(d, targets)
		h.verify(d)
	}

	// 3. random moments.
	sd := int64(seed)
	var err error
	if v := os.Getenv("MILLRACE_KILLTEST_SEED"); v != "" {
		if sd, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("MILLRACE_KILLTEST_SEED: %v", err)
		}
	}
	t.Logf("random kills: seed %d (set MILLRACE_KILLTEST_SEED to change it)", sd)
	r := rand.New(rand.NewSource(sd))
	random := 0
	for chain := 0; random < minRandom; chain++ {
		h.randomChains++
		d := h.dirs(fmt.Sprintf("random-%d", chain))
		for n := 0; ; n++ {
			delay := time.Duration(2+r.Intn(99)) * time.Millisecond
			if n >= 25 {
				delay = 0 // enough kills in this chain: let it finish
			}
			before := latest(filepath.Join(d.ckpt, "commits"))
			// a restart may run with other parallelism: results must not
			// depend on it
			h.parallelism = 1 + r.Intn(4)
			o := h.run(d, "", delay)
			if o.ok {
				break
			}
			if !o.killed {
				t.Fatalf("random chain %d, run %d: child failed after a kill (a recovery error): %s", chain, n, o.stderr)
			}
			random++
			h.kills++
			offs, commits := latest(filepath.Join(d.ckpt, "offsets")), latest(filepath.Join(d.ckpt, "commits"))
			switch {
			case offs < 0:
				h.hits["random: before the first batch"]++
			case offs > commits:
				h.hits["random: batch in flight"]++
			default:
				h.hits["random: between batches"]++
			}
			if commits > before {
				h.hits["random: progress made"]++
			}
		}
		h.parallelism = 0
		h.verify(d)
	}

	// 4. another query shape: sliding windows (each event in several
	// windows) with min, max and avg too, killed at every step.
	h.shape = []string{"-slide", "2s"}
	h.reference("sliding-reference")
	{
		d := h.dirs("sliding-steps")
		var targets []string
		for b := int64(0); b < h.nBatches; b++ {
			targets = append(targets, fmt.Sprintf("%s:%d", steps[(int(b)+1)%len(steps)], b))
		}
		h.schedule(d, targets)
		h.verify(d)
	}

	// 5. a stream-stream left outer join: both sides' buffers and matched
	// flags must survive every kind of crash.
	h.shape = []string{"-join"}
	h.reference("join-reference")
	{
		d := h.dirs("join-steps")
		var targets []string
		for b := int64(0); b < h.nBatches; b += 2 {
			targets = append(targets, fmt.Sprintf("%s:%d", steps[(int(b)/2)%len(steps)], b))
		}
		h.schedule(d, targets)
		h.verify(d)
	}

	t.Logf("kills: %d (%d at named steps, %d random in %d chains); %d child runs: %d restarts after a kill, %d runs to the end (reference included); %v",
		h.kills, h.kills-random, random, h.randomChains, h.runs, h.kills, h.runs-h.kills, time.Since(start).Round(time.Millisecond))
	keys := make([]string, 0, len(h.hits))
	for k := range h.hits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		t.Logf("  %-32s %d", k, h.hits[k])
	}
	if h.kills < 50 {
		t.Fatalf("only %d kills; the test promises at least 50", h.kills)
	}
	for _, s := range steps {
		if h.hits[s] == 0 {
			t.Fatalf("no kill at step %s", s)
		}
	}
}

// reference runs the child once without kills into fresh directories;
// its output is what the following schedules must produce.
func (h *harness) reference(name string) {
	t := h.t
	t.Helper()
	ref := h.dirs(name)
	if o := h.run(ref, "", 0); !o.ok {
		t.Fatalf("%s run failed: %s", name, o.stderr)
	}
	h.ref = h.output(ref)
	h.nBatches = latest(filepath.Join(ref.ckpt, "commits")) + 1
	h.nRef = 0
	for _, ls := range h.ref {
		h.nRef += len(ls)
	}
	if h.nBatches < 20 || h.nRef < 1000 {
		t.Fatalf("%s: %d batches, %d rows; the workload is too small to test anything", name, h.nBatches, h.nRef)
	}
	t.Logf("%s %v: %d batches, %d rows, %d batches with output", name, h.shape, h.nBatches, h.nRef, len(h.ref))
}

// schedule runs the child once per target, expecting it to die there, then
// once more to the end. A target the run does not reach ends the schedule
// early: the child finished.
func (h *harness) schedule(d dirs, targets []string) {
	h.t.Helper()
	for _, target := range targets {
		o := h.run(d, target, 0)
		switch {
		case o.killed:
			h.kills++
			h.hits[strings.Split(target, ":")[0]]++
		case o.ok:
			h.t.Fatalf("%s: the child finished without reaching %s", d.name, target)
		default:
			h.t.Fatalf("%s: child failed before reaching %s (a recovery error after the previous kill): %s", d.name, target, o.stderr)
		}
	}
	if o := h.run(d, "", 0); !o.ok {
		h.t.Fatalf("%s: final run failed: killed=%v %s", d.name, o.killed, o.stderr)
	}
}

// verify compares the committed output of d with the reference: the same
// multiset of rows, and the same rows in every batch.
func (h *harness) verify(d dirs) {
	h.t.Helper()
	got := h.output(d)
	if n := latest(filepath.Join(d.ckpt, "commits")) + 1; n != h.nBatches {
		h.t.Errorf("%s: %d batches committed, the reference run %d", d.name, n, h.nBatches)
	}
	count := map[string]int{}
	n := 0
	for _, ls := range h.ref {
		for _, l := range ls {
			count[l]++
		}
	}
	for _, ls := range got {
		for _, l := range ls {
			count[l]--
			n++
		}
	}
	lost, dup := 0, 0
	var examples []string
	for l, c := range count {
		if c > 0 {
			lost += c
		} else if c < 0 {
			dup -= c
		}
		if c != 0 && len(examples) < 3 {
			examples = append(examples, fmt.Sprintf("%+d × %s", c, l))
		}
	}
	if lost != 0 || dup != 0 {
		h.t.Errorf("%s: %d rows, reference %d: %d lost, %d duplicated or wrong; e.g. (+ lost, − extra)\n%s\nper batch: %s",
			d.name, n, h.nRef, lost, dup, strings.Join(examples, "\n"), batchDiff(h.ref, got))
		return
	}
	if bd := batchDiff(h.ref, got); bd != "" {
		h.t.Errorf("%s: same rows as the reference, but in other batches: %s", d.name, bd)
	}
}

// batchDiff names the batches whose rows differ.
func batchDiff(want, got map[int64][]string) string {
	var bad []string
	ids := map[int64]bool{}
	for id := range want {
		ids[id] = true
	}
	for id := range got {
		ids[id] = true
	}
	sorted := make([]int64, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	slices.Sort(sorted)
	for _, id := range sorted {
		if !slices.Equal(want[id], got[id]) {
			bad = append(bad, fmt.Sprintf("batch %d: %d rows, reference %d", id, len(got[id]), len(want[id])))
		}
	}
	return strings.Join(bad, "; ")
}

// output reads the committed sink content of d, sorted lines per batch.
func (h *harness) output(d dirs) map[int64][]string {
	h.t.Helper()
	batches, err := file.Committed(d.out)
	if err != nil {
		h.t.Fatalf("%s: %v", d.name, err)
	}
	out := map[int64][]string{}
	for _, b := range batches {
		var lines []string
		for _, f := range b.Files {
			data, err := os.ReadFile(f)
			if err != nil {
				h.t.Fatalf("%s: batch %d: a committed file is unreadable: %v", d.name, b.BatchID, err)
			}
			lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
		}
		if int64(len(lines)) != b.Rows {
			h.t.Fatalf("%s: batch %d: log says %d rows, files hold %d", d.name, b.BatchID, b.Rows, len(lines))
		}
		if len(lines) > 0 {
			slices.Sort(lines)
			out[b.BatchID] = lines
		}
	}
	return out
}

// dirs are the checkpoint and output directories of one schedule.
type dirs struct{ name, ckpt, out string }

func (h *harness) dirs(name string) dirs {
	return dirs{name: name, ckpt: filepath.Join(h.root, name, "checkpoint"), out: filepath.Join(h.root, name, "out")}
}

// run runs the child on d, with MILLRACE_CRASH_AT=crashAt if set, killed
// with SIGKILL after killAfter if positive.
func (h *harness) run(d dirs, crashAt string, killAfter time.Duration) outcome {
	h.t.Helper()
	h.runs++
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin,
		"-checkpoint", d.ckpt, "-out", d.out,
		"-events", strconv.Itoa(events), "-per-trigger", strconv.Itoa(perTrigger),
		"-rows-per-file", strconv.Itoa(rowsPerFile),
		"-parallelism", strconv.Itoa(h.parallelism))
	cmd.Args = append(cmd.Args, h.shape...)
	cmd.Env = append(os.Environ(), mexec.CrashEnv+"="+crashAt)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	if killAfter > 0 {
		timer := time.AfterFunc(killAfter, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	o := outcome{ok: err == nil, stderr: stderr.String(), dur: time.Since(t0)}
	if ctx.Err() != nil {
		h.t.Fatalf("%s: child hung for 60 s (crash target %q): %s", d.name, crashAt, o.stderr)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			o.killed = true
		}
	} else if err != nil {
		h.t.Fatal(err)
	}
	return o
}

// buildChild compiles the child program into a temporary directory.
func buildChild(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the child with")
	}
	bin := filepath.Join(t.TempDir(), "child")
	cmd := exec.Command(gobin, "build", "-o", bin, "github.com/millrace/millrace/internal/killtest/child")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build child: %v\n%s", err, out)
	}
	return bin
}

// latest returns the largest batch id with an entry in a checkpoint log
// directory, or -1.
func latest(dir string) int64 {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return -1
	}
	best := int64(-1)
	for _, e := range ents {
		if id, err := strconv.ParseInt(e.Name(), 10, 64); err == nil && id > best {
			best = id
		}
	}
	return best
}
