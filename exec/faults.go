package exec

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Fault-injection steps of one batch, in order. Tests crash a query at each
// to prove that recovery loses and duplicates nothing.
const (
	StepOffsetsWritten = "offsets-written" // offsets/N durable, nothing read
	StepDataRead       = "data-read"       // input read and processed, sink not committed
	StepSinkCommitted  = "sink-committed"  // sink has N, state not committed
	// StepStateUploaded is met by checkpoints on object storage only.
	StepStateUploaded  = "state-uploaded"  // state delta N in the durable copy, local state and commits/N not
	StepStateCommitted = "state-committed" // state at N, commits/N missing
	StepCommitWritten  = "commit-written"  // batch N complete
)

// CrashEnv names the environment variable that makes a process kill itself
// with SIGKILL at a step: MILLRACE_CRASH_AT=step:batchId (used by the kill
// test harness, which runs queries as child processes).
const CrashEnv = "MILLRACE_CRASH_AT"

// fault runs the configured fault injection for a step of batch id.
func (q *Query) fault(step string, id int64) error {
	if q.crashStep != "" && q.crashStep == step && q.crashBatch == id {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	}
	if q.cfg.FaultInjection != nil {
		// the checkpoint's writer goroutine calls this too
		q.faultMu.Lock()
		defer q.faultMu.Unlock()
		if err := q.cfg.FaultInjection(step, id); err != nil {
			return fmt.Errorf("batch %d: injected fault at %s: %w", id, step, err)
		}
	}
	return nil
}

// parseCrashEnv reads MILLRACE_CRASH_AT.
func parseCrashEnv() (string, int64) {
	v := os.Getenv(CrashEnv)
	step, batch, ok := strings.Cut(v, ":")
	if !ok {
		return "", -1
	}
	id, err := strconv.ParseInt(batch, 10, 64)
	if err != nil {
		return "", -1
	}
	return step, id
}
