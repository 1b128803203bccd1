// Package state is Millrace's versioned state store: the durable copy of the
// keyed state of stateful operators (aggregations, joins, deduplication),
// kept in a Pebble LSM.
//
// # Design
//
// The engine keeps hot state in in-memory vectorized hash tables. At the end
// of micro-batch N it writes what that batch changed into a Txn, and Commit
// writes all of it plus the record "version = N" in ONE atomic Pebble batch
// with Sync. The engine (exec/changelog.go) stores each state partition as
// a changelog: one delta blob per batch with the rows it put or deleted, and
// from time to time a snapshot blob of every row that replaces the deltas
// before it (DeleteRange) — one Pebble write per partition instead of one
// per row, which is what lets commits keep pace with the hash tables. So the durable copy is exact at each commit: after a crash the
// store is at version N or N-1, never in between, and a restart reloads the
// hash tables from it (Scan) at exactly the last committed version. The store
// never applies a version twice (ErrVersionCommitted): recovery compares
// Version with the checkpoint's logs to decide whether batch N must re-run
// (see the Recovery section of DESIGN.md and package checkpoint).
//
// # Terms
//
//   - Operator id: a stateful operator's number in the plan (0..MaxOperator).
//   - Partition id: the state partition a key hashes to (0..MaxPartition);
//     the number of partitions is fixed per checkpoint. Every row, metric and
//     scan is addressed by (operator, partition) so that partitions can later
//     be owned by different processes.
//   - Version: the id of the last batch whose state was committed, -1 if none.
//
// # Key layout
//
// A data key is [operator uint16 BE][partition uint16 BE] followed by the user
// key bytes, so each (operator, partition) is one contiguous, bytewise-ordered
// key space (user keys from columnar.EncodeKeys range-scan in tuple order).
// Operator 0xFFFF is reserved: keys starting FF FF FF FF hold the store's
// metadata (version, query id, layout version, per-partition row counts).
// Values are opaque bytes; callers encode them.
//
// # Invariants
//
//   - The version record and the batch's rows change in the same Pebble
//     batch; nothing of an uncommitted or aborted Txn is ever visible.
//   - A store records the query id it was created for and refuses another
//     (ErrWrongQuery). With Options.MustExist a missing store is an error
//     (ErrMissing), never a silently empty state.
//   - With row counting on (the default), per-partition row and byte counts
//     are exact and committed with the version; Metrics reads them without I/O.
//
// # Storage faults
//
// Pebble reports some failures to no caller: a failed flush (the flush of
// the replayed WAL at Open, a full memtable later) goes to its
// EventListener and is retried at once, forever; a failed WAL write makes
// DB.Apply call Logger.Fatalf, whose default exits the process. The store
// is its own listener and logger (health.go): a full disk becomes the
// store's sticky ErrDiskFull — Open stops waiting for Pebble and fails with
// it, commits fail with it — with an error naming the store and saying to
// free space and restart; Pebble's retries are paced (at most one a second)
// and logged once; a Fatalf raised on the caller's goroutine (a failed
// commit, a failed MANIFEST write at creation) is recovered into an error.
// An Open abandoned on a full disk keeps retrying in the background and
// closes the DB if it succeeds; the process is expected to exit first.
// Open's errors carry the hint that fits: a store held by another open
// store (ErrInUse: "is a running query using it?"), a read-only filesystem
// or a permission problem (Pebble opens its LOCK file for writing even to
// read).
//
// # Concurrency
//
// Get, Scan and Metrics may run concurrently with each other and with a Txn;
// they see the last committed version. One Txn is open at a time. Its own
// methods are for one goroutine; parallel partition workers each take a
// PartTxn (Txn.Part) and write through it concurrently.
//
// Read next: package checkpoint, which owns the logs that say which version
// the state must be at.
package state
