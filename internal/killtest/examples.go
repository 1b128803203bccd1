package killtest

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// The helpers below serve the examples' kill tests (examples/*/e2e_test.go),
// which run an example program as a child process and kill it.

// RunChild runs bin once with args, the extra environment env and crash (an
// exec.CrashEnv setting, or ""), SIGKILLs it after killAfter if that is
// positive, and reports whether it died of SIGKILL; any other failure
// fails t with the child's standard error.
func RunChild(t testing.TB, bin string, args, env []string, crash string, killAfter time.Duration) (killed bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	if crash != "" {
		cmd.Env = append(cmd.Env, crash)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if killAfter > 0 {
		timer := time.AfterFunc(killAfter, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	err := cmd.Wait()
	if err == nil {
		return false
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return true
	}
	t.Fatalf("child failed: %v\n%s", err, stderr.String())
	return false
}

// CompareCounts describes how got differs from want, counts per window key
// (at most 10 differences), or returns "" when they are equal and not
// empty.
func CompareCounts(got, want map[string]int64) string {
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: got %d want %d", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: unexpected %d", k, v))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 10 {
		diffs = diffs[:10]
	}
	if len(diffs) == 0 {
		if len(want) == 0 {
			return "no expected windows"
		}
		return ""
	}
	return fmt.Sprintf("%d windows (of %d) differ: %s", len(diffs), len(want), strings.Join(diffs, "; "))
}

// ClickEvents is how many click events Clicks makes.
const ClickEvents = 30_000

// Clicks makes 12 hours of click events as JSON Kafka messages over 3
// partitions, out of order by up to 20 minutes (under the examples'
// one-hour watermark, so none is late). It returns them, the count per
// (hour window start|campaign) and the largest event time.
func Clicks(seed int64) (msgs []kafkago.Message, counts map[string]int64, maxTS time.Time) {
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewSource(seed))
	counts = map[string]int64{}
	for i := 0; i < ClickEvents; i++ {
		ts := base.Add(time.Duration(i) * 12 * time.Hour / ClickEvents).Add(-time.Duration(r.Int63n(int64(20 * time.Minute))))
		if ts.After(maxTS) {
			maxTS = ts
		}
		camp := r.Intn(5)
		doc, _ := json.Marshal(map[string]any{"event_time": ts.Format(time.RFC3339Nano), "campaign_id": camp, "user_id": r.Intn(1000)})
		msgs = append(msgs, kafkago.Message{Partition: i % 3, Value: doc})
		counts[fmt.Sprintf("%s|%d", ts.Truncate(time.Hour).Format(time.RFC3339), camp)]++
	}
	return msgs, counts, maxTS
}
