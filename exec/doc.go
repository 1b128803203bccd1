// Package exec compiles an analyzed logical plan (package plan) into
// operators and runs it as a streaming query, trigger after trigger.
//
// # Operators
//
// Stateless operators (filter, project, watermark observation) form a chain
// per source (ops.go); each takes a columnar.Batch and returns one, so a
// filter only rewrites the selection vector. Expressions are compiled once
// per query into evaluators (eval.go) that call the type-specialised loops of
// package kernels; NOT is pushed to the leaves, where it becomes a negated
// comparison or IS NOT NULL, so selection vectors are exact in SQL's
// three-valued logic. Spark's implicit casts of comparisons (a string
// compared with a timestamp or a number) and timestamp ± interval are
// compiled in eval_coerce.go; a string literal is cast once, at compile time.
// A final ORDER BY … LIMIT over an aggregation in Complete mode sorts each
// trigger's whole result before the sink (sort.go).
//
// Stateful operators (stateful.go) are hash aggregation (aggregate.go),
// session windows (session.go), both deduplications (dedup.go) and the
// stream-stream join (streamjoin.go; streamjoin_prune.go drops the left
// rows of a window-join-back plan dominated by their group's running
// maximum or minimum); a join with a static table
// (staticjoin.go) is a stateless operator of the stream's chain. A trigger
// runs a stateful operator in phases: each input task prepares its
// batches, then each state partition updates its state with the batches
// routed to it in a fixed order (input task, then batch) and emits what the
// output mode selects. Results therefore never depend on goroutine
// scheduling: a batch is a pure function of its offsets, the prior state,
// its timestamp and its watermark. Progress events carry the query's
// memory figure: state bytes per operator and the trigger's batch buffers
// (memory.go).
//
// A sliding window whose size is a multiple of its slide, with aggregates
// that have exact partial states, is aggregated by panes
// (aggregate_panes.go): prepare aggregates each batch by (pane, key), one
// update per row, and expands the pane groups into their windows as
// partial states that update merges into the per-window state. The state,
// the output (order included) and the checkpoint layout are the per-row
// path's, so checkpoints of either path restart with the other.
//
// # The shuffle
//
// Preparing is the same for every stateful operator but for what it
// evaluates, and shuffle.go holds the common part: the operator builds a
// keyed record (keys, window starts, arguments) and picks its live rows;
// shuffled.notLate and shuffled.dropLate drop, count and route late rows to
// the late-data sink; shuffled.route splits the live rows among the state
// partitions by key hash. Selections (the filter's too), hashes and window
// starts come from the task's scratch (scratch.go): an arena whose
// selections live until the trigger ends, reused batch after batch and,
// with the tasks themselves, trigger after trigger, so kernels write into
// caller-provided buffers.
//
// # The driver
//
// driver.go runs the micro-batch loop of DESIGN.md, one function a step
// of docs/ARCHITECTURE.md's "One trigger": trigger asks sources for their
// latest offsets and writes offsets/N (checkpointer.go); runBatch plans the
// input (planInputs), begins the sinks (beginOutput), reads and processes
// on the worker pool (readInputs, feed), runs the stateful operators
// (runStages) and commits the sinks (commitOutput); execute then commits
// the state (one Pebble batch that also records N and the next watermark;
// the operators' changes as changelog blobs, changelog.go, an aggregation
// with integer keys writing its changed groups as an int-key block,
// changelog_intblock.go),
// writes commits/N and reports progress. A no-data batch runs when the
// watermark moved, so windows close without new input. Recovery re-runs an
// uncommitted batch with its recorded offsets, timestamp and watermark;
// faults.go names the steps where tests crash a query. A panic anywhere in
// a trigger (a worker task, a stateful phase, the checkpoint writer, the
// driver loop) becomes the query's error, naming the batch and the
// operator, sink or source (panics.go). Every call that can block and
// takes a context gets the query's (Start's while it compiles, which reads
// the static sides of joins); sources.Source's PlanPartitions and Commit
// take none.
// inspect.go describes a stopped query's checkpoint and state store
// (millrace checkpoint inspect), above both packages.
//
// # Watermarks
//
// watermark.go tracks it as Spark does: the watermark of batch N is the
// minimum over watermark operators of max(event time seen in batches < N)
// − delay, an operator without data counting as 0, in whole milliseconds;
// it never moves backwards. Options add Flink's idle inputs and a bound on
// event times ahead of the processing time.
//
// # Logs and cost
//
// logs.go writes one info line per batch to Config.Logger (log/slog) and
// the warnings an operator must know: a batch slower than its trigger
// interval, a source whose backlog (sources.Backlogger) grew over
// Config.BacklogWarnBatches batches in a row, and — from watermark.go — a
// watermark that jumped past the processing time or by more than
// Config.WatermarkJumpWarning (default max(10 × delay, 1 h)), naming the
// batch whose rows moved it; Config.ProgressLog appends each progress event
// as a JSON line. cost.go measures each batch's process CPU time
// (getrusage, cpu_unix.go) at the boundaries of its phases, which the
// driver runs one after the other — scan (reading and the stateless
// operators), each stateful operator, sink, checkpoint, driver — so the
// phases add up to the batch and the batches to the process's CPU time
// while the query runs; Progress.Cost reports it per million input rows,
// in all and per operator, with whether the query keeps up, the cores it
// needs for its input rate with headroom, and their price per hour and per
// million rows. Query.CostTotals().RunCost does the same over a whole run.
//
// Read next: package agg (the hash tables) and package checkpoint.
package exec
