// Package agg owns vectorized hash aggregation: a hash table that maps key
// tuples to dense group ids a whole batch at a time, and Table, the state of
// a hash aggregate (one accumulator per aggregate, indexed by group id) with
// the operations streaming needs: dirty-group tracking for update mode,
// removal of groups closed by the watermark, and memory accounting.
//
// # Terms
//
//   - live row: row sel[i] of a batch, or row i when the selection is nil
//     (see package columnar). Every per-row output (groups[i]) is indexed by
//     live row, not by record row.
//   - group id: a dense uint32 in 0..Len()-1. Ids are assigned in order of
//     first appearance of the key, so the same sequence of batches gives the
//     same ids in every process (hashes are unseeded). NoGroup marks a
//     missing key.
//   - key: a tuple of values of the key columns (int32, int64, timestamp,
//     float64, bool, string, binary). Null is a key value of its own
//     (null == null); -0 == +0 and all NaNs are one key, as in Spark.
//
// # Hash table layout
//
// Keys are stored columnar, per group: fixed-width columns widened to int64
// (floats normalised), strings and binary in a byte arena with offsets, a
// null flag per group. Lookup is open addressing with linear probing over a
// power-of-two slot array (load <= 1/4 up to 16K slots, so that hits are
// nearly always at the home slot and the probe branch predicts; <= 1/2
// beyond); the slot of a hash is its high bits.
// There are four probe paths, chosen once per table:
//
//   - one int32/int64/timestamp key: a slot holds the key inline beside the
//     group id, so a hit is a multiply, one load and one compare;
//   - two such keys (a window's start and a key): a slot holds both inline
//     with a null mask, so a hit is one hash, one load and two compares.
//     Three keys stay on the generic path: tried for Nexmark q7's join
//     buffer (window start, end, price; nearly every key distinct), 32-byte
//     slots made q7 30 % slower than the generic path's 8-byte slots —
//     growing a table of a million keys is then page faults and cache
//     misses, not compares (BENCHMARKS.md);
//   - one string/binary key: a slot holds a 32-bit hash tag beside the group
//     id; bytes are compared on a tag match only;
//   - anything else: the batch's key columns are gathered to typed scratch
//     vectors, all rows hashed, then probed in rounds with candidates compared
//     column by column in typed loops (CockroachDB's colexechash); the
//     groups created by a batch are then renumbered to first-appearance order.
//
// The null key of a single-key table lives outside the slot array.
// Removing groups (closed windows, every trigger) compacts the keys and
// renumbers the survivors; a slot array that keeps its size is repaired in
// place (compact_slots.go: one pass renumbers and empties slots, a second
// re-inserts the entries whose probe run a removal broke), others are
// rebuilt.
//
// # Aggregates
//
// Each aggregate is an accumulator holding plain typed slices indexed by
// group id (DataFusion's GroupsAccumulator): after the table maps a batch to
// group ids, each accumulator runs one scatter loop over the batch, chosen
// once per batch by type, nulls and selection. count distinct keeps a second
// hash table of (group id, value) pairs; so do collect_set and collect_list
// (whose pairs carry a sequence number, so every row is an entry), whose
// lists come out in arrival order and whose state grows with the group.
// approx_count_distinct (hll.go) is Spark's HyperLogLog++: 2^p 6-bit
// registers per group packed ten to a word, fed by Spark's XxHash64 of the
// value (sparkhash.go), estimated with the HLL++ bias tables Spark ships
// (hll_tables.go, generated from Spark's class), so that estimates are
// Spark's exactly. first/last (firstlast.go) keep one value per group,
// chosen by arrival order. min/max of strings and binaries
// (minmax_bytes.go) compare bytes, as Spark's default collation does, and
// copy a value once per group and batch that improves it; booleans are
// held as 0/1 in the numeric state. Results: count, count(*), count distinct and
// approx_count_distinct are int64; sum of integers is int64, of floats
// float64; min/max/first/last have the input type; avg is float64;
// collect_* are lists of the input type. Sum, min, max and avg of a group with
// no non-null input are null. count(*) with a sum of an int64 column without
// nulls runs as one fused loop (fused.go). The seen flags of sum/min/max are
// not written per row for a batch without nulls: when every older group is
// seen, only the groups the batch created are set (seenFlags).
//
// # Partial states
//
// partial.go exports a Table's groups as partial states (Partials: counts,
// sums, min/max with nulls for groups without values, avg's sum and count)
// and folds them into another Table with the same keys and specs (Merge),
// creating groups in order of first appearance as Update does. Only the
// aggregates whose merge equals feeding the rows in any grouping are
// Combinable: counts, wrapping integer sums, min/max of integers, times,
// dates and booleans, avg of integers (exact while sums stay within ±2^53);
// not float sums (rounding), float min/max (±0 ties), checked sums, strings
// or the order-dependent aggregates. Clear empties a table keeping its
// memory, for one refilled every batch. Package exec aggregates sliding
// windows by panes with them.
//
// # Dirty groups
//
// A bitmap with one bit per group, set by one OR per row after the probe
// (small enough to stay in cache for a million groups); TakeDirty scans it,
// which yields the groups ascending, and Remove remaps it.
//
// # Invariants
//
//   - Group ids are dense; Remove compacts and renumbers the survivors in
//     their relative order, so ids held across a Remove are invalid.
//   - Every accumulator slice has exactly Len() entries after Update.
//   - No allocation, interface call or closure per row in Update; Emit and
//     Remove may allocate (they run per trigger, not per batch row).
//
// The accumulators are plain slices, which the engine's durable state
// exports and imports per group (state.go: EncodeStates, StateEncoder,
// LoadGroups) and, for the changed groups of a batch, many at a time
// (state_batch.go: AppendAll, and AppendColumns and DecodeColumns, which
// lay out counts, sums, mins, maxes and avgs of numbers by accumulator in
// about half the bytes).
//
// The plain scatter loops for int64/float64 (count, sum, min, max) are the
// ones of package kernels; loops.go holds the variants kernels lacks
// (int32/timestamp inputs, sums that record which groups saw a value).
//
// Read next: package exec, which drives a Table per stateful operator and
// partition.
package agg
