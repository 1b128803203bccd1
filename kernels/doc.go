// Package kernels holds the pure, type-specialised loops that every operator
// of Millrace runs over Arrow arrays: comparisons that produce selection
// vectors, boolean set operations on selections, arithmetic, casts, hashing of
// key columns, event-time window assignment, the kernels that move rows
// (Take, Compact, TakeChunks, Concat) and aggregate updates by dense group id.
//
// Two hashes live here: HashColumns (hash.go) partitions keys and state and
// must never change; SparkMurmur3 and SparkXXHash64 (sparkhash.go) are
// Spark's own value hashes, bit for bit, for the functions hash() and
// xxhash64() and for anything that must agree with Spark (approx_count_distinct
// hashes with XXH64, seed 42). LIKE patterns translate to RE2 here too
// (LikeRegexp, Matcher), shared by the LIKE operator and the like() function.
//
// A kernel knows nothing about operators, state or I/O: it takes arrays,
// selection vectors and caller-owned output buffers, and returns results.
//
// # Terms
//
// Selection vector: a []int32 of strictly increasing row indices of an array
// (or record); nil means every row is live. This is the same contract as
// columnar.Batch.Sel.
//
// Live row: a row named by the selection vector (every row when it is nil).
// Kernels that produce one value per live row (HashColumns, TumblingWindow)
// write out[i] for row sel[i], or for row i when sel is nil.
//
// Output buffers: functions that take an `out` slice write to out[:0] and
// return the result slice. They reuse out's backing array when it is large
// enough and allocate only when it must grow, so a caller that keeps the
// returned slice for the next batch allocates nothing in steady state. For the
// selection-producing kernels (CompareScalar, CompareColumns, SelectNull,
// SelectNotNull, SelectTrue, SelectFalse) out may be the same slice as sel:
// refinement in place is safe because the write index never passes the read
// index. A returned selection is never nil, even when empty, because nil
// means "every row". Union and Difference need an out that does not alias their inputs.
//
// # Nulls
//
// Comparisons follow SQL three-valued logic: a null row is never selected, so
// NOT p over a domain D is Difference(D, p) only when p's column has no nulls;
// in general use the negated operator (CmpOp.Negate), which also leaves nulls
// unselected. Arithmetic yields null where any input is null, and where a
// division or modulo has a zero divisor (Spark's non-ANSI behaviour). Floats
// compare the way Spark compares them: NaN equals NaN and is greater than every
// other value, and -0 equals 0; that makes the six operators a total order so
// Negate and Flip are exact.
//
// # Shape of a kernel
//
// Each kernel checks once per call whether the input has nulls and whether a
// selection is present, then runs a tight typed loop with neither branch
// inside. Comparison loops are branch-free: they write the row index
// unconditionally and advance the output cursor by the comparison result.
// Null rows are removed afterwards by one pass over the (usually shorter)
// result, which is cheaper than checking validity inside every loop. Values
// under a null slot are defined memory in Arrow, so computing on them is safe
// and the result is simply discarded. The per-operator loops of compare are
// generated (cmp_gen.go, from gen_cmp.go with `go generate`) because Go
// generics cannot specialise on the operator.
//
// Arrays may be slices of larger arrays (non-zero offset). Value accessors
// such as Int64Values are already offset-adjusted; validity bitmaps are read
// at bit Data().Offset()+i.
//
// # Moving rows
//
// Take, Compact (a Take of every column at a selection), TakeChunks (a
// gather from a column split into chunks, with -1 for a null row: the
// joins) and Concat move rows of every type a source can produce: all
// primitives, strings and binary and their large variants, fixed-size
// binary, decimals, temporal types, and lists, large lists, fixed-size
// lists, structs, maps, dictionaries and extension types nested in any
// way, with nulls at every level and sliced inputs. Flat types have typed
// loops (the hot path; take.go, take_chunks.go). Nested types are gathered
// structurally (take_nested.go): a list's taken value ranges become one
// index vector over its child, which goes back through the same kernels,
// so a list<struct<string, binary>> (the Kafka headers) costs a few flat
// gathers, not a per-row allocation. Dictionaries keep their dictionary
// (chunks with different ones get them concatenated and their indices
// shifted). Types no source produces on a hot path (views, run-end encoded)
// go through a generic path built on array.Concatenate; only unions are
// unsupported. Concat uses array.Concatenate but works around two arrow-go
// v18.8 failures with dictionaries (concat.go).
//
// # Windows
//
// Window kernels work on raw event times (int64 microseconds, or any unit
// as long as size, slide and offset use the same one). A window start is
// ts - floorMod(ts - offset, size), so times before the epoch land in the
// right window. The divisions use a precomputed multiply-shift divisor
// (window.go) because a hardware 64-bit divide per row would cost more than
// the rest of the pipeline. SlidingWindow emits, per live row in input order,
// the windows that contain it with the latest start first. Window sizes and
// slides must be positive: they are validated when a query is planned.
//
// # Hashing
//
// HashColumns mixes integers with the murmur3 finalizer, strings with a
// wyhash-style multiply-fold hash, and combines columns with a multiply-add
// and another finalizer round. Nulls hash to one constant; -0/0 and all NaNs
// hash alike (Spark groups them together); int32, int64 and timestamp keys of
// equal value hash alike.
//
// # Memory
//
// Values are printed as Spark prints them (AppendJavaDouble,
// AppendSparkTimestamp, AppendSparkDate: Cast to string and the console sink
// share them), and strings are read as Spark's CAST reads them
// (ParseSparkTimestamp, ParseSparkDate: its stringToTimestamp and
// stringToDate, in the UTC session time zone). Dates (date32, days since
// 1970-01-01) cast to and from strings and timestamps only, and compare with
// dates; DaysFromCivil and CivilFromDays are the integer calendar arithmetic
// (proleptic Gregorian, as Spark 3+) that the date functions share.
//
// Kernels that build arrays (Arith, Cast, Conform, Negate, Take, Compact,
// TakeChunks, Concat) allocate
// from the memory.Allocator they are given and return arrays the caller must
// Release. Nothing else allocates Arrow memory.
//
// # Determinism
//
// Hashes are fixed functions of the values (no per-process seed), so a key
// hashes to the same value in every run and every process; shuffle
// partitioning and state recovery depend on it.
//
// Read next: package agg, which drives HashColumns and the aggregate updates.
package kernels
