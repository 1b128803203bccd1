package agg

import (
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// Spark's XxHash64 of single values (XxHash64Function.hash), the hash
// approx_count_distinct feeds its registers with. Spark hashes an int
// (and a boolean as 1 or 0) as its 4 little-endian bytes, a long or a
// timestamp (µs) as 8, a double as the 8 bytes of doubleToLongBits after
// Spark's normalisation (-0.0 as 0.0, every NaN as the canonical NaN), a
// string or binary as its bytes. All of these are plain XXH64 of those
// bytes. The 4- and 8-byte cases are written out here (XXH64's short-input
// path: a handful of multiplies, inlined into the per-row loops, where a
// Digest would copy the bytes through its buffer); byte strings go through
// github.com/cespare/xxhash, and the tests check both against each other
// and against values Spark computed.

const (
	prime1 uint64 = 11400714785074694791
	prime2 uint64 = 14029467366897019727
	prime3 uint64 = 1609587929392839161
	prime4 uint64 = 9650029242287828579
	prime5 uint64 = 2870177450012600261
)

// sparkSeed is the seed of approx_count_distinct's hash (Spark's 42L).
const sparkSeed = 42

func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= prime2
	h ^= h >> 29
	h *= prime3
	h ^= h >> 32
	return h
}

// sparkHashInt is XXH64 of the 4 little-endian bytes of v (Spark's
// XXH64.hashInt).
func sparkHashInt(v uint32, seed uint64) uint64 {
	h := seed + prime5 + 4
	h ^= uint64(v) * prime1
	h = bits.RotateLeft64(h, 23)*prime2 + prime3
	return xxAvalanche(h)
}

// sparkHashLong is XXH64 of the 8 little-endian bytes of v (Spark's
// XXH64.hashLong).
func sparkHashLong(v uint64, seed uint64) uint64 {
	h := seed + prime5 + 8
	k := bits.RotateLeft64(v*prime2, 31) * prime1
	h ^= k
	h = bits.RotateLeft64(h, 27)*prime1 + prime4
	return xxAvalanche(h)
}

// sparkDoubleBits is the long Spark hashes for a double: its bits after
// normalising -0.0 to 0.0 and any NaN to Java's canonical NaN.
func sparkDoubleBits(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// stringHasher hashes byte strings with XXH64 and a seed, reusing one
// digest (no allocation per value).
type stringHasher struct{ d *xxhash.Digest }

func newStringHasher() stringHasher { return stringHasher{d: xxhash.NewWithSeed(sparkSeed)} }

func (s stringHasher) hash(b string) uint64 {
	s.d.ResetWithSeed(sparkSeed)
	_, _ = s.d.WriteString(b)
	return s.d.Sum64()
}
