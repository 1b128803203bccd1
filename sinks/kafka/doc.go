// Package kafka implements a Kafka sink (segmentio/kafka-go): each result
// row becomes one Kafka record.
//
// # Terms
//
//   - key: the row's KeyColumn (default "key", if the schema has it),
//     binary or string; a null or absent key sends no key.
//   - value: the row's ValueColumn (default "value"), binary or string; when
//     the schema has no such column, the whole row serialised as a JSON
//     object (arrow-go's RecordToJSON).
//
// # Invariants
//
//   - At-least-once, as Spark's Kafka sink: kafka-go has no producer
//     transactions, so a batch re-run after a crash between the broker's
//     acknowledgement and the query's commit is written again. Every record
//     carries the headers millrace.queryId and millrace.batchId (decimal) so
//     consumers can drop duplicates; Begin never reports Skip.
//   - Write buffers up to FlushRows records and sends them; Commit sends the
//     rest and returns only when the broker acknowledged every record of the
//     batch (RequiredAcks all). A delivery error fails the batch, naming the
//     topic and batch.
//   - Records are partitioned by key with the Java client's murmur2 hash, so
//     equal keys land in the same partition as they would from Spark.
//   - Options.Security is the source's TLS/SASL configuration
//     (sources/kafka.Security), applied to the writer's transport; an
//     authentication or TLS failure fails the batch with the source's
//     explanation (brokers, mechanism, user; never the password).
//
// Read next: sources/kafka.
package kafka
