package agg

import (
	"github.com/cespare/xxhash/v2"
	"github.com/millrace/millrace/kernels"
)

// Spark's XxHash64 of single values (XxHash64Function.hash), the hash
// approx_count_distinct feeds its registers with. Spark hashes an int
// (and a boolean as 1 or 0) as its 4 little-endian bytes, a long or a
// timestamp (µs) as 8, a double as the 8 bytes of doubleToLongBits after
// Spark's normalisation (-0.0 as 0.0, every NaN as the canonical NaN), a
// string or binary as its bytes. All of these are plain XXH64 of those
// bytes. The 4- and 8-byte cases are written out in kernels (XXH64's
// short-input path: a handful of multiplies, inlined into the per-row
// loops, where a Digest would copy the bytes through its buffer); byte strings go through
// github.com/cespare/xxhash, and the tests check both against each other
// and against values Spark computed.

// sparkSeed is the seed of approx_count_distinct's hash (Spark's 42L).
const sparkSeed = 42

// sparkHashInt is XXH64 of the 4 little-endian bytes of v (Spark's
// XXH64.hashInt), kernels' written-out form that the xxhash64 function
// uses too.
func sparkHashInt(v uint32, seed uint64) uint64 { return kernels.XXH64Int(int32(v), seed) }

// sparkHashLong is XXH64 of the 8 little-endian bytes of v (Spark's
// XXH64.hashLong).
func sparkHashLong(v uint64, seed uint64) uint64 { return kernels.XXH64Long(int64(v), seed) }

// sparkDoubleBits is the long Spark hashes for a double.
func sparkDoubleBits(f float64) uint64 { return kernels.SparkDoubleBits(f) }

// stringHasher hashes byte strings with XXH64 and a seed, reusing one
// digest (no allocation per value).
type stringHasher struct{ d *xxhash.Digest }

func newStringHasher() stringHasher { return stringHasher{d: xxhash.NewWithSeed(sparkSeed)} }

func (s stringHasher) hash(b string) uint64 {
	s.d.ResetWithSeed(sparkSeed)
	_, _ = s.d.WriteString(b)
	return s.d.Sum64()
}
