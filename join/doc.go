// Package join owns the vectorized building blocks of joins: Table, the
// hash table of a static build side (stream-static joins, window-on-window
// joins), and Buffer, the state of one side of a stream-stream join. Both
// map key tuples to dense key ids with agg.HashTable and expand a probe
// batch into Matches, pairs of (probe row, build row) that the caller turns
// into a joined record with TakeRows/Gather/Assemble. Plan nodes, operators
// and the state store live in package exec; this package knows nothing of
// them.
//
// # Terms
//
//   - live row: row sel[i] of a batch, or row i when the selection is nil
//     (package columnar).
//   - probe row: a record row index of the probe batch (sel[i], not i).
//     Matches.ProbeRows can be handed to a Take over the probe record.
//   - build row: the number of a row of a Table (0..Rows()-1 over the build
//     records concatenated in order) or of a Buffer (0..Rows()-1 in arrival
//     order, renumbered by Evict). -1 stands for "no row" (null columns).
//   - key: a tuple of key column values (int32, int64, timestamp, float64,
//     bool, string, binary; the probe keys must have the build key types
//     exactly, so the planner casts). Unlike grouping, a key with a null
//     column never matches: such rows are never inserted into the hash
//     table, so a probe key with a null finds no key id. -0 == +0 and NaN ==
//     NaN (Spark normalises float join keys the same way).
//
// # Table layout
//
// Build concatenates the build records into one record (retaining it when
// there is only one), inserts the rows with non-null keys into an
// agg.HashTable, then groups row numbers by key id in CSR form: the rows of
// key g are rows[offsets[g]:offsets[g+1]], ascending. A probe is one
// Lookup(insert=false) for the whole batch and one expansion loop; with
// unique keys (a dimension table) offsets[g] == g and the expansion writes
// at most one pair per row by index. Matches come in probe order, each probe
// row's matches in build order; ProbeLeftOuter adds (row, -1) for a probe
// row without match. Semi and Anti return selections instead of pairs.
//
// # Buffer layout
//
// Rows are stored column-wise in chunks, one Arrow record per Add (the
// caller's record itself when the batch has no selection, else a compacted
// copy). Per buffered row r there are plain slices: event time, key id,
// next (the next row of the same key, in arrival order: CockroachDB's
// First/Next chains), matched flag, sequence number and chunk number; per
// key id, the first and last row of its chain. Add appends to the chains in
// O(rows); Probe walks the chain of each probe row's key id, keeps rows
// whose time lies in [t+lower, t+upper], and sets their matched flag (a
// left/right/full outer join emits unmatched rows when they are evicted; a
// left semi join emits Matches.FirstMatched). Evict removes the rows whose
// time is below a bound: chunks left empty are released, chunks partly
// evicted are copied down to their survivors, the others are untouched; the
// per-row slices are compacted in place and the chains relinked (O(rows)
// per Evict with anything to evict; nothing when the bound is below
// MinTime). Key ids left without rows are dropped from the hash table once
// they are a quarter of it. Retain removes arbitrary rows the same way,
// without returning them (rows the caller knows can never match).
//
// # Ownership
//
// Build and Add retain what they keep (or copy it); the caller always keeps
// and releases its own references. Table.Release and Buffer.Release drop
// the package's references. Every array or record returned (Gather,
// TakeRows, JoinedRecord, Evict's record) is the caller's to release.
// Assemble takes over the references of the arrays it is given. A Matches
// is reused across probes: a probe overwrites it.
//
// # Invariants
//
//   - Build rows with a null key, and buffered rows with a null key or a
//     null time, are stored but in no chain. A buffered row with a null
//     time carries the time math.MinInt64, so the next Evict removes it; a
//     buffered row with a null key keeps its time and leaves with the rows
//     of that time.
//   - In a Buffer, row numbers, sequence numbers and chain order all follow
//     arrival order; Evict keeps survivors in order. Sequence numbers never
//     change and are never reused (they survive Snapshot/Load).
//   - A Table is read-only after Build; a probe uses the table's scratch, so
//     concurrent probes need a Clone each. A Buffer is single-goroutine.
//   - No allocation, interface call or closure per row in the probe and
//     expansion loops (appends grow the reused Matches slices only).
//
// # Durability
//
// Buffer.Snapshot encodes every buffered row (Arrow IPC, plus a sequence
// number and matched flag per row) and Load restores it. Between snapshots,
// Buffer.Changes encodes the interval's changes: the highest eviction bound,
// the sequence numbers of older rows that became matched, and the rows added
// and still buffered; ApplyChanges replays them on the state the interval
// started from, so a state store can keep a snapshot plus a changelog of
// one Changes per trigger (see buffer_encode.go for the format).
//
// # Extremes
//
// Extremes (extremes.go) is the running maximum or minimum of a value per
// group, on its own agg.HashTable: the dominance filter of a join of a
// stream with its own grouped extreme, which keeps only the rows equal to
// their group's running extreme (ties included). It is a cache, never
// persisted: forgetting a group only keeps more rows.
//
// Read next: package exec, whose join operators drive these.
package join
