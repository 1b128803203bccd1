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
// before it — one write per partition instead of one per row, which is what
// lets commits keep pace with the hash tables. In a local store the blobs
// are changelog files beside Pebble (see Changelog files), written once
// instead of through Pebble's WAL, memtable, flushes and compactions; in a
// store with a durable copy on object storage they are Pebble rows. So the
// durable copy is exact at each commit: after a crash the
// store is at version N or N-1, never in between, and a restart reloads the
// hash tables from it (Scan, Files) at exactly the last committed version. The store
// never applies a version twice (ErrVersionCommitted): recovery compares
// Version with the checkpoint's logs to decide whether batch N must re-run
// (see the Recovery section of DESIGN.md and package checkpoint).
//
// # Changelog files
//
// Txn.PutFile writes a file <dir>/changelog/<op>.<version>.<kind> (the
// caller's bytes and their CRC-32C) at Commit; Txn.DropFilesBefore removes
// an operator's older files once the commit is durable (files.go). Commit
// runs: (1) write and fdatasync the version's files (in parallel), then
// fsync the changelog directory; (2) apply the Pebble batch recording the
// version with Sync; (3) remove the dropped files. At every crash point:
//
//   - during or after (1), before (2): the store is at N-1. Files of
//     version N may exist, whole or torn; Files lists only versions <=
//     Version(), Open removes the later ones (and a commit that failed in
//     this process makes the next one remove them first), so batch N's
//     re-run writes its own and nothing of the torn attempt is read.
//   - after (2): the files of N are complete and their names durable
//     (synced before the version record), so a restore at N finds them.
//   - during (3): files older than a committed snapshot are left; readers
//     start from the latest snapshot and ignore them, and the next
//     snapshot drops them again.
//
// A file whose CRC does not match is refused, naming the file. The store's
// layout version is 2 since the files: a store of layout 1 (blobs as
// Pebble rows only) is read as is and marked 2 by its first commit, after
// which an older Millrace refuses it ("upgrade Millrace") instead of
// restoring it without its files. A store with a durable copy on object
// storage keeps no files (PutFile refuses): its deltas are the Pebble
// batches it uploads.
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
// # Durable copy on object storage
//
// For a checkpoint on object storage the Pebble store is a local working
// copy, and Options.Remote (the checkpoint's <location>/state) holds its
// durable copy, as Spark's RocksDB state store uploads its changelog files
// and snapshots (remote.go):
//
//   - <version>.delta: the Pebble batch Commit applies (every put, delete
//     and range deletion of the Txn, the version record and the row counts),
//     zstd-compressed. The engine's own changelog (exec/changelog.go) keeps
//     it small: one blob per changed partition, not one row per group; such
//     a store keeps the blobs as Pebble rows, not changelog files.
//   - <version>.snapshot: every key of the store as of that version,
//     uploaded every SnapshotEvery versions (Spark's minDeltasForSnapshot).
//
// Commit runs: (1) upload the delta with a conditional create
// (storage.Store.WriteNew); (2) apply the batch to Pebble with Sync; (3) if
// due, upload the snapshot. The driver writes commits/N only after Commit
// returns (exec/checkpointer.go). The uploaded delta is the commit point:
// Open brings the local copy to the durable copy's latest version before
// recovery compares Version with the logs. So at every crash point:
//
//   - during (1): a PUT is atomic, no delta is visible; both copies are at
//     N-1 and recovery re-runs batch N, whose upload then succeeds.
//   - after (1), before (2): the durable copy is at N, the local one at
//     N-1 (or gone): Open replays delta N. The sink already has batch N (it
//     commits before the state), so recovery only writes commits/N, exactly
//     as for a crash after (2) with a local checkpoint.
//   - after (2) or during (3), before commits/N: both are at N; the
//     snapshot is optional (a failed one is logged and retried at the next
//     commit), a restore uses an older snapshot and more deltas.
//   - a PUT that landed but whose answer was lost: the retried create finds
//     the object with the same bytes and stands; other bytes mean another
//     writer committed the version (ErrVersionCommitted).
//
// The durable copy is never behind the local one; Open refuses a local copy
// ahead of it (ErrAhead: a directory from another history, or deleted
// remote files) and a durable copy with a missing delta no snapshot skips
// (ErrRemoteGap), each naming the locations and what to do. A restore reads
// the latest snapshot <= the target version into an emptied directory (the
// version record last: a crash midway leaves a store without a version,
// which the next restore empties again) and replays the deltas after it; a
// local copy a few versions behind replays only the deltas it lacks. A
// local copy of another query (left by a deleted checkpoint at the same
// location) is replaced: the work directory is only a cache. A snapshot at N is a function of deltas 0..N, each
// created once, so one found already uploaded holds the same rows.
// PurgeRemote(oldest) deletes what no restore at a version >= oldest needs:
// the deltas up to the latest snapshot <= oldest and the snapshots before
// it; the driver passes the checkpoint's retention.
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
