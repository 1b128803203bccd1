// Package socket is Spark's socket source: UTF-8 text lines read from a
// TCP server (host:port), one row per line, for tests and demos (`nc -lk
// 9999` on one side, a query on the other). Like Spark's, it is not for
// production: it cannot replay.
//
// # Not replayable
//
// The lines live only in this process's memory, from the moment they are
// received until the batch that read them commits. A query restarted from
// a checkpoint cannot get the lines of a batch that was running when the
// previous process stopped: that batch fails with an error saying so
// (delete the checkpoint, or use a replayable source: Kafka, files), and
// lines sent while no query was connected are never seen. Starting a
// checkpointed query with this source logs a warning (Spark logs one for
// every socket source); the source implements sources.NotReplayable.
//
// # Terms
//
//   - Offset: the ordinal of the last line a batch includes, as a JSON
//     number, -1 before the first line (Spark's LongOffset). A restarted
//     query numbers the lines it receives after the offset its checkpoint
//     holds, so offsets keep increasing.
//   - Schema: value STRING, and with Options.IncludeTimestamp a timestamp
//     TIMESTAMP column, the time the line was received (Spark's
//     includeTimestamp).
//
// # Invariants
//
//   - Lines are split at "\n", "\r" or "\r\n" (Java's readLine);
//     invalid UTF-8 becomes U+FFFD. A connection closed by the server ends
//     the input; the query keeps running with no new data, as Spark's.
//   - PlanPartitions(start, end) is the buffered lines start+1..end: the
//     same every time until Commit(end) drops them.
//
// Read next: package sources, the contract.
package socket
