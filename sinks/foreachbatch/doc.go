// Package foreachbatch is Spark's foreachBatch as a sink: a Go function
// receives each micro-batch's rows (Arrow records) with the batch's id,
// once per batch, and may write them anywhere — several sinks, a
// database, a service.
//
// # Guarantees
//
// The function is called once for every batch the query runs, empty
// batches included (a no-data batch that moves the watermark), after the
// batch's rows are complete and before the batch commits. A batch that
// failed or whose process died before its commit log entry is run again
// on restart with the same id and the same rows, and the function is
// called again: the guarantee is at least once, and exactly once when
// the function writes idempotently by batch id — as Spark's documentation
// says of foreachBatch. Batch.WriteTo does that for the exactly-once sinks
// of this module, which skip a batch they already hold (the Delta sink by
// its txn action, the file sink by its log); an at-least-once sink (Kafka)
// may get the rows of a re-run batch twice, as from a query.
//
// # Terms
//
//   - Batch: the id, the query id (stable across restarts), the output
//     mode, the schema and the records of one micro-batch. The records
//     belong to the sink: they are valid while the function runs, and
//     released after it returns; the function Retains what it keeps.
//
// Read next: package sinks, the contract this sink implements.
package foreachbatch
