// Package killtest holds the kill tests: they prove that a checkpointed
// query killed with SIGKILL at any instant, and restarted on the same
// checkpoint, ends with exactly the output of a run that was never
// interrupted — no row lost, none duplicated.
//
// The query runs in a separate process (internal/killtest/child, built
// once per test run with go build): a windowed count / sum /
// count-distinct per campaign over the click generator, checkpointed,
// Append mode, AvailableNow trigger, written to the file sink
// (sinks/file). The test process reads the committed output as any
// downstream reader would, through file.Committed.
//
// # Kill schedules
//
//   - Steps: MILLRACE_CRASH_AT=<step>:<batch> (exec.CrashEnv) makes the
//     engine kill itself at a named step of a batch: offsets-written,
//     data-read, sink-committed, state-committed, commit-written. One
//     schedule kills each batch once, rotating through the steps.
//   - Recovery: a batch is killed at an early step, then its re-run by
//     recovery is killed at a later step, so recovery itself is
//     interrupted.
//   - Random: the process is killed after a random delay (a seeded
//     math/rand, so the schedule is reproducible; where the kill lands
//     still depends on the machine's speed). Each kill is classified by
//     the checkpoint it left: a batch in flight (offsets/N without
//     commits/N) or between batches. Each restart of a random chain
//     picks a parallelism of 1 to 4 workers: results must not depend on it.
//
// A second query shape (sliding windows, with min, max and avg too) gets
// its own reference run and a schedule of kills at the named steps.
//
// Every schedule restarts the child until a run exits 0, then compares the
// committed sink content with an uninterrupted reference run, as multisets
// of rows and batch by batch (a re-run batch must produce the same rows).
//
// Read next: exec/faults.go and exec/checkpointer.go, package
// sinks/file.
package killtest
