package kernels

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/cespare/xxhash/v2"
)

// Spark's value hashes, bit for bit: Murmur3_x86_32 (hash(), and Spark's
// hash partitioning) and XXH64 (xxhash64(), approx_count_distinct), both
// seeded with 42 and chained over columns (each column's hash is the seed
// of the next; a null leaves the hash as it was). Per type, as Spark's
// HashExpression: INT, DATE (days) and BOOLEAN (1/0) hash 4 bytes, BIGINT and
// TIMESTAMP (microseconds) 8, DOUBLE the 8 bytes of doubleToLongBits after
// -0.0 becomes 0.0 (NaN is Java's one canonical NaN), strings their UTF-8
// bytes; an array folds its elements in, a struct its fields. These are
// not the hashes of kernels.HashColumns (state partitioning), which must
// never change.

// SparkHashSeed is the seed Spark's hash() and xxhash64() start from.
const SparkHashSeed = 42

// SparkMurmur3 folds column a into h (len(h) == a.Len()): for each row
// whose value is not null, h[i] = Murmur3_x86_32(value, seed h[i]).
func SparkMurmur3(a arrow.Array, h []uint32) error {
	switch a := a.(type) {
	case *array.Int32:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = murmur3Int(uint32(v), h[i])
			}
		}
	case *array.Boolean:
		for i := range h {
			if a.IsValid(i) {
				h[i] = murmur3Int(b2u(a.Value(i)), h[i])
			}
		}
	case *array.Date32:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = murmur3Int(uint32(v), h[i])
			}
		}
	case *array.Int64:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = murmur3Long(uint64(v), h[i])
			}
		}
	case *array.Timestamp:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = murmur3Long(uint64(v), h[i])
			}
		}
	case *array.Float64:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = murmur3Long(SparkDoubleBits(v), h[i])
			}
		}
	case *array.String:
		for i := range h {
			if a.IsValid(i) {
				h[i] = murmur3Bytes(a.Value(i), h[i])
			}
		}
	case *array.Binary:
		for i := range h {
			if a.IsValid(i) {
				h[i] = murmur3Bytes(string(a.Value(i)), h[i])
			}
		}
	case *array.Null:
	case *array.List, *array.Struct:
		for i := range h {
			var err error
			if h[i], err = sparkFoldValue[uint32, murmur3Step](a, i, h[i], "hash"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("kernels: Spark's hash of %s is not supported", a.DataType())
	}
	return nil
}

// hashStep is one of Spark's two hashes of a single value with seed h,
// by the value's width: 4 bytes, 8 bytes, or a byte string. Only the
// row-at-a-time fold of arrays and structs is written once over it: a
// method of a type parameter is called through Go's generic dictionary and
// not inlined, which slowed the column loops below (xxhash64 of an int64
// column 137µs to 250µs for 64K rows, BenchmarkSparkHash), so they stay
// written out per hash.
type hashStep[H uint32 | uint64] interface {
	int(v uint32, h H) H
	long(v uint64, h H) H
	bytes(s string, h H) H
}

type murmur3Step struct{}

func (murmur3Step) int(v, h uint32) uint32          { return murmur3Int(v, h) }
func (murmur3Step) long(v uint64, h uint32) uint32  { return murmur3Long(v, h) }
func (murmur3Step) bytes(s string, h uint32) uint32 { return murmur3Bytes(s, h) }

type xxh64Step struct{}

func (xxh64Step) int(v uint32, h uint64) uint64   { return XXH64Int(int32(v), h) }
func (xxh64Step) long(v, h uint64) uint64         { return XXH64Long(int64(v), h) }
func (xxh64Step) bytes(s string, h uint64) uint64 { return xxSeeded(s, h) }

// sparkFoldValue folds row i of a into h as sparkFold does; an array's
// elements and a struct's fields are folded in order, nulls skipped.
func sparkFoldValue[H uint32 | uint64, S hashStep[H]](a arrow.Array, i int, h H, name string) (H, error) {
	if a.IsNull(i) {
		return h, nil
	}
	var s S
	switch a := a.(type) {
	case *array.List:
		lo, hi := a.ValueOffsets(i)
		var err error
		for j := lo; j < hi && err == nil; j++ {
			h, err = sparkFoldValue[H, S](a.ListValues(), int(j), h, name)
		}
		return h, err
	case *array.Struct:
		var err error
		for f := 0; f < a.NumField() && err == nil; f++ {
			h, err = sparkFoldValue[H, S](a.Field(f), i, h, name)
		}
		return h, err
	case *array.Int32:
		return s.int(uint32(a.Value(i)), h), nil
	case *array.Date32:
		return s.int(uint32(a.Value(i)), h), nil
	case *array.Boolean:
		return s.int(b2u(a.Value(i)), h), nil
	case *array.Int64:
		return s.long(uint64(a.Value(i)), h), nil
	case *array.Timestamp:
		return s.long(uint64(a.Value(i)), h), nil
	case *array.Float64:
		return s.long(SparkDoubleBits(a.Value(i)), h), nil
	case *array.String:
		return s.bytes(a.Value(i), h), nil
	case *array.Binary:
		return s.bytes(string(a.Value(i)), h), nil
	}
	return h, fmt.Errorf("kernels: Spark's %s of %s is not supported", name, a.DataType())
}

// SparkXXHash64 is SparkMurmur3 with XXH64: h[i] = XXH64(value, seed h[i]).
func SparkXXHash64(a arrow.Array, h []uint64) error {
	switch a := a.(type) {
	case *array.Int32:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = XXH64Int(v, h[i])
			}
		}
	case *array.Boolean:
		for i := range h {
			if a.IsValid(i) {
				h[i] = XXH64Int(int32(b2u(a.Value(i))), h[i])
			}
		}
	case *array.Date32:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = XXH64Int(int32(v), h[i])
			}
		}
	case *array.Int64:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = XXH64Long(v, h[i])
			}
		}
	case *array.Timestamp:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = XXH64Long(int64(v), h[i])
			}
		}
	case *array.Float64:
		for i, v := range a.Values() {
			if a.IsValid(i) {
				h[i] = XXH64Long(int64(SparkDoubleBits(v)), h[i])
			}
		}
	case *array.String:
		var d xxhash.Digest
		for i := range h {
			if a.IsValid(i) {
				d.ResetWithSeed(h[i])
				d.WriteString(a.Value(i))
				h[i] = d.Sum64()
			}
		}
	case *array.Binary:
		var d xxhash.Digest
		for i := range h {
			if a.IsValid(i) {
				d.ResetWithSeed(h[i])
				d.Write(a.Value(i))
				h[i] = d.Sum64()
			}
		}
	case *array.Null:
	case *array.List, *array.Struct:
		for i := range h {
			var err error
			if h[i], err = sparkFoldValue[uint64, xxh64Step](a, i, h[i], "xxhash64"); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("kernels: Spark's xxhash64 of %s is not supported", a.DataType())
	}
	return nil
}

// xxSeeded is XXH64 of s with seed.
func xxSeeded(s string, seed uint64) uint64 {
	var d xxhash.Digest
	d.ResetWithSeed(seed)
	d.WriteString(s)
	return d.Sum64()
}

// SparkDoubleBits is Java's doubleToLongBits of f with -0.0 as 0.0, as
// Spark hashes a double.
func SparkDoubleBits(f float64) uint64 {
	if f == 0 {
		return 0
	}
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// Murmur3_x86_32 as Spark's org.apache.spark.unsafe.hash.Murmur3_x86_32.

const (
	murmurC1 = 0xcc9e2d51
	murmurC2 = 0x1b873593
)

func murmurMixK1(k1 uint32) uint32 {
	k1 *= murmurC1
	k1 = bits.RotateLeft32(k1, 15)
	return k1 * murmurC2
}

func murmurMixH1(h1, k1 uint32) uint32 {
	h1 ^= k1
	h1 = bits.RotateLeft32(h1, 13)
	return h1*5 + 0xe6546b64
}

func murmurFmix(h1, length uint32) uint32 {
	h1 ^= length
	h1 ^= h1 >> 16
	h1 *= 0x85ebca6b
	h1 ^= h1 >> 13
	h1 *= 0xc2b2ae35
	h1 ^= h1 >> 16
	return h1
}

func murmur3Int(v, seed uint32) uint32 {
	return murmurFmix(murmurMixH1(seed, murmurMixK1(v)), 4)
}

func murmur3Long(v uint64, seed uint32) uint32 {
	h1 := murmurMixH1(seed, murmurMixK1(uint32(v)))
	h1 = murmurMixH1(h1, murmurMixK1(uint32(v>>32)))
	return murmurFmix(h1, 8)
}

// murmur3Bytes is Spark's hashUnsafeBytes, which differs from standard
// Murmur3 in its tail: each of the last len%4 bytes is mixed on its own as
// a whole (sign-extended) block.
func murmur3Bytes(s string, seed uint32) uint32 {
	h1 := seed
	n := len(s) - len(s)%4
	for i := 0; i < n; i += 4 {
		h1 = murmurMixH1(h1, murmurMixK1(uint32(s[i])|uint32(s[i+1])<<8|uint32(s[i+2])<<16|uint32(s[i+3])<<24))
	}
	for i := n; i < len(s); i++ {
		h1 = murmurMixH1(h1, murmurMixK1(uint32(int32(int8(s[i])))))
	}
	return murmurFmix(h1, uint32(len(s)))
}

// XXH64 of 4 and 8 little-endian bytes (Spark's XXH64.hashInt and
// hashLong), written out because they are hot in approx_count_distinct;
// equal to xxhash.Digest over the same bytes (sparkhash_test.go).

const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
)

// XXH64Int is XXH64 of v's 4 little-endian bytes with seed.
func XXH64Int(v int32, seed uint64) uint64 {
	h := seed + xxPrime5 + 4
	h ^= uint64(uint32(v)) * xxPrime1
	h = bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
	return xxFmix(h)
}

// XXH64Long is XXH64 of v's 8 little-endian bytes with seed.
func XXH64Long(v int64, seed uint64) uint64 {
	h := seed + xxPrime5 + 8
	k1 := uint64(v) * xxPrime2
	k1 = bits.RotateLeft64(k1, 31) * xxPrime1
	h ^= k1
	h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	return xxFmix(h)
}

func xxFmix(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}
