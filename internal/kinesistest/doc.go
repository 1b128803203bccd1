// Package kinesistest starts a real Kinesis-API server for tests:
// kinesalite (npm kinesalite 3.3.3, installed into .kinesalite/ by
// scripts/kinesalite.sh, which make test runs), under Node.js.
//
// kinesalite was chosen over moto's Kinesis and kinesis-mock for what the
// source needs, checked against each: its SplitShard and MergeShards keep
// the parents' records in the closed parents, give the parents an
// EndingSequenceNumber and the children ParentShardId /
// AdjacentParentShardId, and end a drained closed shard's iterator (no
// NextShardIterator), as Kinesis does — moto 5.2 re-puts a split parent's
// records into its children and keeps routing new records to the closed
// parent. kinesalite serves ListShards, every iterator type (TRIM_HORIZON,
// LATEST, AT/AFTER_SEQUENCE_NUMBER, AT_TIMESTAMP), sequence numbers shaped
// like Kinesis's (increasing decimal strings that encode the shard), JSON
// and CBOR requests (the Go SDK speaks JSON), and trims records older than
// the retention period (24 hours) when they are read. It does not serve
// UpdateShardCount; tests reshard with SplitShard and MergeShards.
//
// # Terms
//
//   - server: one node process running server.js (embedded) on 127.0.0.1
//     at a port the system picks; kinesalite is found at
//     $MILLRACE_KINESALITE (the package directory), else
//     <module root>/.kinesalite/node_modules/kinesalite. It keeps streams
//     in memory, accepts any credentials, and dies with the test binary.
//   - clock: the server's Date.now is shifted by SetClock's offset, so a
//     test can put records dated 25 hours ago and then see them trimmed
//     (the only way to age records past the 24-hour minimum retention in a
//     test).
//
// # Invariants
//
//   - One server per test binary: Start starts it at the first call and
//     hands the same *Server to later callers; tests share it, so each
//     takes its own stream (CreateStream names it after the test).
//   - When kinesalite or node is missing, Start skips the test with a
//     message naming scripts/kinesalite.sh, unless MILLRACE_REQUIRE_KINESIS
//     is set (CI sets it), in which case the test fails. A server that does
//     not come up always fails the test, with its output.
package kinesistest
