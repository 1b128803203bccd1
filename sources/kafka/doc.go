// Package kafka implements a Kafka source (segmentio/kafka-go) with Spark's
// Kafka source semantics: topics by list or pattern, per-partition offsets as
// the progress marker, StartingOffsets, MaxOffsetsPerTrigger split across
// partitions in proportion to their lag, MinOffsetsPerTrigger with
// MaxTriggerDelay, and FailOnDataLoss.
//
// # Terms
//
//   - offset of a partition: the next Kafka offset to read, as in Spark. A
//     source offset is Spark's JSON document {"topic":{"partition":offset}},
//     topics and partitions sorted, so equal offsets are equal strings.
//   - range of a partition: the Kafka offsets [from, until) between the
//     partition's entries in a batch's start and end offsets; a partition
//     absent from the start offset (discovered since) starts at 0.
//   - lag: latest offset − offset, per partition.
//   - data loss: records of a range that no longer exist (deleted by retention
//     before they were read, or a partition or topic that disappeared).
//
// # Invariants
//
//   - PlanPartitions is a pure function of (start, end): one InputPartition
//     per Kafka partition with a non-empty range. Reading a range emits
//     exactly the records with offsets in [from, until), in offset order,
//     through a kafka-go Conn seeked to from, so a replayed batch reads the
//     same records (unless retention deleted them meanwhile: data loss).
//   - Partitions are discovered at every LatestOffset, from the topic list or
//     the pattern (topics starting with "__" are never matched); a new
//     partition is read from offset 0.
//   - With a limit, LatestOffset advances exactly min(limit, total lag)
//     records, each partition getting floor(limit·lag/total) plus one for the
//     largest remainders (ties by topic, partition), so every partition with
//     lag progresses in proportion and the total never exceeds the limit.
//   - FailOnDataLoss (default true) turns data loss into an error naming the
//     topic, partition and offsets; when false the lost records are skipped,
//     counted in Metrics()["dataLossRecords"] and logged once per range.
//   - A broker that cannot be reached makes InitialOffset/LatestOffset fail
//     within Options.Timeout with "kafka: cannot reach brokers [...]: ...; is
//     the broker running?".
//   - Security (security.go), shared with the sink: Kafka's four
//     security protocols. TLS trusts the PEM CAs given (or the system's),
//     verifies the broker's certificate and host name unless
//     InsecureSkipVerify is set explicitly, and presents a PEM client
//     certificate when given one; SASL is PLAIN, SCRAM-SHA-256 or
//     SCRAM-SHA-512 (kafka-go's sasl packages). Build validates the
//     settings and reads the files once, in New. A wrong password, an
//     untrusted broker certificate or a refused handshake is an error
//     naming the brokers (and the mechanism and user), returned as fast as
//     the broker answers, not a retry loop.
//   - Secrets (Security.Password, KeyPEM: type Secret) print as "*****"
//     with every fmt verb, in JSON and in slog; Name, errors, metrics and
//     offsets never contain them.
//
// # Schema
//
// key (binary, null for no key), value (binary, null for a tombstone), topic
// (string), partition (int32), offset (int64), timestamp (timestamp[us, UTC],
// the record's Kafka timestamp), headers (list<struct<key: string, value:
// binary>>, empty for a record without headers), as in Spark with
// includeHeaders=true.
//
// Read next: internal/kafkatest (the broker the tests start), sinks/kafka.
package kafka
