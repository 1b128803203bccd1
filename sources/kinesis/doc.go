// Package kinesis implements an Amazon Kinesis Data Streams source
// (aws-sdk-go-v2 service/kinesis) with the semantics of Spark's Kinesis
// connectors: shards as partitions, sequence numbers as the progress
// marker, resharding handled (parents read to their end before their
// children), StartingPosition TRIM_HORIZON / LATEST / AT_TIMESTAMP,
// MaxRecordsPerTrigger and FailOnDataLoss as the Kafka source has it.
//
// Credentials and region come from the standard AWS chain (environment,
// shared files, SSO, web identity, instance roles), as storage/s3store's;
// Options.Endpoint or MILLRACE_KINESIS_ENDPOINT (EndpointEnv) points at a
// Kinesis-API server instead of AWS.
//
// # Terms
//
//   - position of a shard: the sequence number of the last record read
//     (the shard goes on after it), or, before any, where it starts
//     (TRIM_HORIZON, or AT_TIMESTAMP with Unix milliseconds); plus closed,
//     once the shard is closed and read to its end (GetRecords ended its
//     iterator). A source offset is the JSON document
//     {"stream":…,"shards":{"shardId-…":{"seq":…}|{"start":…,"ts":…},…}}
//     (with "closed":true, and "reset":true, below),
//     keys sorted, so equal offsets are equal strings.
//   - range of a shard in a batch: the records after its position in the
//     start offset up to and including the sequence number of its position
//     in the end offset; a shard absent from the start offset (a child of a
//     reshard) starts at TRIM_HORIZON.
//   - readable shard: not closed-and-read, and each of its parents
//     (ParentShardId, AdjacentParentShardId) that the offset knows is
//     closed-and-read in the batch's start offset. So a child's first
//     record comes in a batch after the one with its parents' last.
//   - data loss: a checkpointed sequence number whose record the stream no
//     longer holds (trimmed by retention, or the stream was recreated), a
//     shard that vanished before it was read to its end, or a replayed
//     range whose last record is gone.
//
// # Invariants
//
//   - LatestOffset reads: Kinesis has no "latest offset" to ask for, so the
//     end of a batch is the last record it read from each readable shard,
//     round robin, each GetRecords asking for an even share of what is
//     left of the limit, until every shard is caught up or ended or the
//     limit is reached. It keeps the records for the batch's Read, so a
//     batch is read from Kinesis once; a batch replayed after a restart
//     (no kept records) is read again from its start position to its end
//     sequence number, the same records.
//   - PlanPartitions is a pure function of (start, end): one InputPartition
//     per shard whose position moved.
//   - LATEST is fixed at the first InitialOffset as AT_TIMESTAMP of that
//     instant (Options.Clock), so a replayed first batch reads the same
//     records; the machine's clock must not run ahead of Kinesis's.
//   - Each checkpointed sequence number is checked once per run, when its
//     shard is first read: the record at it must still be there
//     (GetShardIterator AT_SEQUENCE_NUMBER). FailOnDataLoss (default true)
//     makes a failed check an error naming the stream, shard and sequence
//     number; when false the loss is logged, counted in
//     Metrics()["dataLossWarnings"], and the shard is read again from
//     TRIM_HORIZON (the records left; on a recreated stream, the new
//     stream's), the batch's end position saying so ("reset") so that a
//     replay reads the same records. Records trimmed while a run is
//     reading are not detected: the check is at a run's first read of
//     each shard.
//   - PrepareAvailableNow (the AvailableNow trigger) fixes the end at that
//     instant: later triggers stop each shard at its first record that
//     arrived at or after it (ApproximateArrivalTimestamp), so the run ends
//     while records keep arriving.
//   - Without MaxRecordsPerTrigger (or a ReadLimit), a trigger holds every
//     available record in memory.
//
// # Schema
//
// data (binary), streamName (string), partitionKey (string),
// sequenceNumber (string), approximateArrivalTimestamp (timestamp[us,
// UTC]), as Spark's Kinesis connectors, and shardId (string).
//
// Read next: internal/kinesistest (the server the tests start),
// examples/kinesis_to_delta (the kill test).
package kinesis
