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
// three-valued logic.
//
// The one stateful operator so far is hash aggregation (aggregate.go). A
// trigger runs it in two phases: each input task evaluates keys and
// arguments, assigns windows, drops late rows and routes rows by key hash to
// state partitions; then each state partition feeds its rows to its
// agg.Table in a fixed order (input task, then batch). Results therefore
// never depend on goroutine scheduling: a batch is a pure function of its
// offsets, the prior state, its timestamp and its watermark.
//
// # The driver
//
// driver.go runs the micro-batch loop of DESIGN.md: ask sources for their
// latest offsets, write offsets/N (checkpointer.go), read and process, write
// the sink, commit the state (one Pebble batch that also records N and the
// next watermark), write commits/N, report progress. A no-data batch runs
// when the watermark moved, so windows close without new input. Recovery
// re-runs an uncommitted batch with its recorded offsets, timestamp and
// watermark; faults.go names the steps where tests crash a query.
//
// # Watermarks
//
// watermark.go tracks it as Spark does: the watermark of batch N is the
// minimum over watermark operators of max(event time seen in batches < N)
// − delay, an operator without data counting as 0, in whole milliseconds;
// it never moves backwards. Options add Flink's idle inputs and a bound on
// event times ahead of the processing time.
//
// Read next: package agg (the hash tables) and package checkpoint.
package exec
