// Package snappy decodes snappy blocks, the compression of most Parquet
// pages (Spark's and arrow-go's default), for the Parquet reader.
//
// Reading a Nexmark bids file spends about half of its time decompressing
// pages, and DuckDB's and Rust's decoders are faster than the Go ones
// (klauspost's s2 and golang/snappy, hand-written assembly, run at the same
// speed) on such pages. This decoder is plain Go with unaligned moves: while
// 24 bytes of input and 64 of output are left, a literal of up to 16 bytes
// (told by its tag's low bits alone) is one 16-byte move, and a copy of up
// to 64 bytes from at least 8 back takes its length, offset size and
// offset high bits from a table and its offset from one masked load, then
// moves 16 bytes at once (no overlap) or 8 at a time in order; bytes
// written past an element's end are overwritten by the next one, and
// nothing is called. Every other element takes a careful, bounds-checked
// path. 1.5x s2 on a string column's pages and 1.2x on an int64 column's
// (BENCHMARKS "Fourth scan round").
//
// # Invariants
//
//   - Nothing is read or written outside src and dst[:n] (n the block's
//     decoded length): the fast path runs only with the slack it needs.
//   - A block this decoder rejects is decoded by s2 instead and s2's answer
//     returned, so a reader's results and errors are s2's; the fuzz test
//     checks that whatever this decoder accepts, s2 decodes alike.
//   - A header claiming more than 22 bytes per input byte (more than any
//     block can hold) is rejected before allocating.
//
// Read next: internal/pqread, which installs Codec.
package snappy
