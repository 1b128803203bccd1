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
// # Binding a checkpoint and its output
//
// A sink whose output can outlive or be outlived by the checkpoint (a
// table, a directory) implements Binder. The driver of a checkpointed
// query calls Bind once at start: the sink compares what the checkpoint
// recorded (the Identity of the storage it wrote to, its committed
// batches) with what it holds (its storage's id, the queries it recorded
// with their checkpoints: QueryRecord), records this query, and refuses
// with ErrSinkMismatch when the evidence says output would be lost (the
// storage was deleted or replaced under committed batches) or written
// twice (the checkpoint of a query whose output it holds was deleted and
// recreated). Ambiguous evidence binds, as Spark does; BindInfo.Force (the
// query's IgnoreSinkMismatch) always binds. CheckRecorded is the check
// every Binder shares.
//
// Write is called from one goroutine at a time. The order of rows within a
// batch is not part of the contract for stateless queries.
//
// # Constructors
//
// Every connector is built the same way: New(required…, Options) (*T,
// error). Required settings (a path, a schema) are positional; every
// optional one is a field of an Options struct whose zero value means the
// defaults; the error reports a bad setting when the connector is built,
// not at the first trigger. A connector without settings takes no Options
// but keeps the error (blackhole.New). package sources says the same of sources.
//
// Read next: package exec, the driver that calls these.
package sinks
