package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	mexec "github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources/clicks"
)

// concurrentChildEnv makes the test binary run concurrentStartChild: the
// value is "<checkpoint dir>|<Delta table dir>".
const concurrentChildEnv = "MILLRACE_CONCURRENT_START_CHILD"

// exitInUse is the child's exit code when its checkpoint is in use.
const exitInUse = 3

// TestConcurrentStartChild is the child process of TestConcurrentStart; it
// does nothing in a normal test run.
func TestConcurrentStartChild(t *testing.T) {
	v := os.Getenv(concurrentChildEnv)
	if v == "" {
		t.Skip("child process of TestConcurrentStart")
	}
	ckpt, table, _ := strings.Cut(v, "|")
	// The parent releases the children together.
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		fmt.Fprintln(os.Stderr, "child: barrier:", err)
		os.Exit(1)
	}
	err := concurrentStartChild(ckpt, table)
	switch {
	case errors.Is(err, checkpoint.ErrInUse):
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitInUse)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// concurrentStartChild runs a checkpointed windowed count of the click
// generator into a Delta table, until all data is processed.
func concurrentStartChild(ckpt, table string) error {
	src := testutil.Must(clicks.New(clicks.Options{Seed: 7, Events: 3_000, MaxEventsPerTrigger: 1_000}))
	counts := millrace.ReadStream(src).
		WithWatermark("event_time", 5*time.Second).
		GroupBy(millrace.Window(millrace.Col("event_time"), 5*time.Second), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"))
	ctx := context.Background()
	q, err := counts.WriteStream(testutil.Must(lake.NewSink(table, lake.SinkOptions{}))).
		OutputMode(millrace.Append).
		Trigger(millrace.AvailableNow()).
		Checkpoint(ckpt).
		StatePartitions(2).
		Parallelism(1).
		Start(ctx)
	if err != nil {
		return err
	}
	return q.AwaitTermination(ctx)
}

// Issue 10, item 8: two processes starting at the same moment on a new
// checkpoint must not leave it unusable. Before the checkpoint had a lock,
// both could write metadata (the last rename won) while only one got the
// state store and wrote the Delta txn, so the query ids disagreed and every
// restart was refused. Now exactly one process runs; the other is refused
// with ErrInUse before it writes anything; and the checkpoint, the state
// store and the table agree on one query id and restart cleanly.
func TestConcurrentStart(t *testing.T) {
	if os.Getenv(concurrentChildEnv) != "" {
		t.Skip("in the child")
	}
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	if v, err := strconv.Atoi(os.Getenv("MILLRACE_CONCURRENT_START_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	refused := 0
	for r := range rounds {
		root := filepath.Join(t.TempDir(), strconv.Itoa(r))
		ckpt, table := filepath.Join(root, "checkpoint"), filepath.Join(root, "table")
		codes, outs := startChildren(t, ckpt, table, 2)
		ok := 0
		for i, c := range codes {
			switch c {
			case 0:
				ok++
			case exitInUse:
				refused++
				if !strings.Contains(outs[i], "is in use by another running query (pid ") {
					t.Fatalf("round %d: the refusal does not say who holds the checkpoint: %s", r, outs[i])
				}
			default:
				t.Fatalf("round %d: child %d exited %d: %s", r, i, c, outs[i])
			}
		}
		if ok == 0 {
			t.Fatalf("round %d: neither child ran: %q", r, outs)
		}
		// The checkpoint is usable: a restart succeeds ...
		if codes, outs := startChildren(t, ckpt, table, 1); codes[0] != 0 {
			t.Fatalf("round %d: restart exited %d: %s", r, codes[0], outs[0])
		}
		// ... and the metadata, the state store and the table's txn name
		// one query.
		d, err := mexec.Inspect(ckpt)
		if err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		id := d.Metadata.ID
		if d.State == nil || d.State.QueryID != id {
			t.Fatalf("round %d: metadata has query %s, the state store %+v", r, id, d.State)
		}
		if apps := txnAppIDs(t, table); len(apps) != 1 || apps[0] != id {
			t.Fatalf("round %d: metadata has query %s, the table's txns %v", r, id, apps)
		}
	}
	t.Logf("%d rounds, %d starts refused as in use", rounds, refused)
}

// startChildren starts n children on the same checkpoint and table,
// releases them at once, and returns their exit codes and output.
func startChildren(t *testing.T, ckpt, table string, n int) ([]int, []string) {
	t.Helper()
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	gates := make([]io.WriteCloser, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentStartChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), concurrentChildEnv+"="+ckpt+"|"+table)
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i], gates[i] = cmd, gate
	}
	for _, g := range gates {
		_, _ = g.Write([]byte("\n"))
	}
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() })
			defer timer.Stop()
			err := cmd.Wait()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee):
				codes[i] = ee.ExitCode()
			case err != nil:
				codes[i] = -1
			}
		}()
	}
	wg.Wait()
	res := make([]string, n)
	for i := range outs {
		res[i] = outs[i].String()
	}
	return codes, res
}

// txnAppIDs returns the distinct appIds of the txn actions in the Delta
// log of table.
func txnAppIDs(t *testing.T, table string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(table, "_delta_log", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var a struct {
				Txn *struct {
					AppID string `json:"appId"`
				} `json:"txn"`
			}
			if json.Unmarshal(line, &a) == nil && a.Txn != nil && !seen[a.Txn.AppID] {
				seen[a.Txn.AppID] = true
				ids = append(ids, a.Txn.AppID)
			}
		}
	}
	return ids
}
