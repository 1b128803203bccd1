package agg

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Hashing. The hash of a key tuple is a pure function of its values (no
// per-process seed), so a table fed the same batches assigns the same group
// ids in every process. Fixed-width keys are hashed as their normalised int64
// (see normFloat), byte keys by hashBytes, nulls as hashNull; columns are
// combined left to right by combine and the result finished by fmix.

const (
	hashSeed = 0x6a09e667f3bcc908
	hashK1   = 0x9e3779b97f4a7c15
	hashK2   = 0xc2b2ae3d27d4eb4f
	hashNull = 0x5be0cd19137e2179
)

// combine folds the hash x of one column value into the running tuple hash h.
func combine(h, x uint64) uint64 {
	return (bits.RotateLeft64(h, 27) ^ x) * hashK1
}

// fmix is the MurmurHash3 finaliser: it spreads every input bit over the
// high bits, which pick the slot.
func fmix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hashInt64 is the hash used by the single integer key path: Fibonacci
// hashing, whose high bits (the slot) are well spread for any key pattern
// that differs in some bits.
func hashInt64(v int64) uint64 {
	h := uint64(v) * hashK1
	return (h ^ h>>32) * hashK2
}

// hashBytes hashes a byte string, 8 bytes at a time.
func hashBytes(b []byte) uint64 {
	h := uint64(hashSeed) ^ uint64(len(b))*hashK2
	for len(b) >= 8 {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(b), hashK1)
		h = hi ^ lo
		b = b[8:]
	}
	if len(b) > 0 {
		var t uint64
		if len(b) >= 4 {
			t = uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))<<32
		} else {
			t = uint64(b[0]) | uint64(b[len(b)/2])<<8 | uint64(b[len(b)-1])<<16
		}
		hi, lo := bits.Mul64(h^t, hashK2)
		h = hi ^ lo
	}
	hi, lo := bits.Mul64(h, hashK1)
	return hi ^ lo
}

// canonicalNaN is the one bit pattern every NaN key is stored as, so that all
// NaNs form one group (as in Spark).
var canonicalNaN = int64(math.Float64bits(math.NaN()))

// normFloat maps a float64 key to the int64 it is stored and compared as:
// -0 and +0 are one key, every NaN is one key.
func normFloat(f float64) int64 {
	if f != f {
		return canonicalNaN
	}
	if f == 0 {
		return 0
	}
	return int64(math.Float64bits(f))
}

// floatOf turns a stored float key back into its float64.
func floatOf(v int64) float64 { return math.Float64frombits(uint64(v)) }
