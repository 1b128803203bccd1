// Package sources defines the contract between the micro-batch driver and
// every source of records. Concrete sources live in subpackages (rate,
// memory, file, and later kafka, kinesis, socket) and depend only on this
// package and columnar; the driver (package exec) depends only on this
// package, never on a subpackage.
//
// # Offsets
//
// An Offset is an opaque JSON document chosen by the source (a row count, a
// list of files, a map of partition to position). The driver writes offsets to
// the checkpoint's offsets log before a batch reads any data, so the same
// (start, end] range can be read again after a crash and must then yield the
// same rows. A batch is the range (start, end]: start is the end of the
// previous batch, or the initial offset.
//
// # Reading
//
// PlanPartitions splits a range into InputPartitions that the driver reads in
// parallel on its worker pool. A partition emits Arrow record batches in a
// deterministic order; the driver never relies on the order between
// partitions.
//
// # Backlog
//
// A source that knows how much input its last LatestOffset left beyond the
// end it returned (a read limit held it back) implements Backlogger: the
// query reports it in progress and warns when it keeps growing (memory,
// Kafka, the click generator: rows; files: files; Kinesis: milliseconds
// behind the stream's tip).
//
// # Constructors
//
// Every connector is built the same way: New(required…, Options) (*T,
// error). Required settings (a path, a schema) are positional; every
// optional one is a field of an Options struct whose zero value means the
// defaults; the error reports a bad setting when the connector is built,
// not at the first trigger. A connector without settings takes no Options
// but keeps the error (blackhole.New).
//
// Read next: package sinks, the other end of a query.
package sources
