// Package sinks defines the contract between the micro-batch driver and
// every sink. Concrete sinks live in subpackages (console, memory, blackhole,
// and later kafka, jdbc, foreachbatch; the Delta sink lives in package lake)
// and depend only on this package and columnar.
//
// # Exactly once
//
// The driver writes batch N through Begin(N), Write…, Commit. After a crash it
// may run batch N again with exactly the same rows. A sink must therefore be
// idempotent by batch id: if batch N is already durable, Begin reports it with
// Skip and the driver does not write the rows again (a sink that cannot know
// documents that it is at-least-once).
//
// Write is called from one goroutine at a time. The order of rows within a
// batch is not part of the contract for stateless queries.
//
// Read next: package exec, the driver that calls these.
package sinks
