// Package columnar defines the one batch contract of Millrace and the helpers
// every other package shares: schema lookups, type names (TypeName, and
// SparkTypeName as Spark SQL names a type) and the order-preserving key
// encoding used for state keys.
//
// # Batch
//
// A Batch is an Arrow record batch plus an optional selection vector. The
// selection vector lists the live rows of the record as strictly increasing
// int32 row indices; a nil selection means every row is live. Filters never
// copy columns: they rewrite the selection. Operators that need dense columns
// materialise them with kernels.Compact (a gather of the selected rows).
//
// # Ownership
//
// Arrow arrays are reference counted. Whoever holds a Batch owns one reference
// to its record and must call Release exactly once. A function that keeps a
// batch beyond its call (an operator buffering rows, a sink that writes later)
// calls Retain first. Functions that return a new Batch hand the caller its
// reference. Tests use memory.CheckedAllocator and assert that nothing leaks.
//
// # Time
//
// Event times are Arrow timestamps in microseconds (Spark's resolution), UTC.
// UnitsPerSecond is the one table of Arrow time units that every conversion
// (kernels' casts and Conform, text decoding) uses.
//
// ReleaseAll releases a slice of arrays or records, skipping nils: the one
// copy of that loop.
//
// Released buffers are not always garbage: a query's default allocator is
// a Recycler, which hands them out again to the next batch. So a value read
// out of an array without a copy (a string column's Value) must not outlive
// the array's Release: copy it or Retain the array. MILLRACE_POISON_FREED=1
// (make test sets it) makes every Recycler poison released buffers, so that
// tests catch a value kept too long.
//
// # Key encoding
//
// EncodeKeys turns the values of one or more key columns into byte strings
// whose bytewise order equals the order of the tuples (nulls first), so that a
// sorted store such as Pebble can range-scan keys (for example every window
// whose start is below the watermark).
//
// Read next: package kernels, the loops over these batches.
package columnar
