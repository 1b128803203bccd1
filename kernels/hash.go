package kernels

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Hash constants (from wyhash / the murmur3 finalizer). They are part of the
// on-disk contract: partitioning of state depends on them, so never change
// them without a state format version bump.
const (
	hashK1 = 0xff51afd7ed558ccd
	hashK2 = 0xc4ceb9fe1a85ec53
	hashP0 = 0xa0761d6478bd642f
	hashP1 = 0xe7037ed1a0b428db
	hashP2 = 0x8ebc6af09c88c6e3
	// hashNull is the hash of a null value of any type.
	hashNull = 0x9e3779b97f4a7c15
	// hashSeedBytes seeds the string/binary hash.
	hashSeedBytes = 0x243f6a8885a308d3
)

// mix64 is the murmur3 64-bit finalizer: a bijection that spreads every
// input bit over the whole output.
func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= hashK1
	x ^= x >> 33
	x *= hashK2
	x ^= x >> 33
	return x
}

// combineHash folds the hash v of the next key column into h.
func combineHash(h, v uint64) uint64 {
	return mix64(h*hashP0 + v)
}

// floatBits canonicalises a float64 for hashing: -0 hashes as 0 and every
// NaN as one NaN, matching Spark's grouping (and fkey's order).
func floatBits(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	if f != f {
		return 0x7ff8000000000001
	}
	return math.Float64bits(f)
}

func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashBytes is a wyhash-style hash of b: deterministic, no per-process seed.
func hashBytes(b []byte) uint64 {
	n := len(b)
	s := uint64(hashSeedBytes) ^ uint64(n)*hashP0
	for len(b) > 16 {
		s = mum(binary.LittleEndian.Uint64(b)^hashP1, binary.LittleEndian.Uint64(b[8:])^s)
		b = b[16:]
	}
	var x, y uint64
	switch m := len(b); {
	case m >= 8:
		x = binary.LittleEndian.Uint64(b)
		y = binary.LittleEndian.Uint64(b[m-8:])
	case m >= 4:
		x = uint64(binary.LittleEndian.Uint32(b))
		y = uint64(binary.LittleEndian.Uint32(b[m-4:]))
	case m > 0:
		x = uint64(b[0])<<16 | uint64(b[m>>1])<<8 | uint64(b[m-1])
	}
	return mum(hashP1^uint64(n), mum(x^hashP1, y^s^hashP2))
}

// HashInt64 writes the hash of every live value of vals (vals[sel[i]], or
// vals[i] when sel is nil) to out[i]. It is the raw fast path of
// HashColumns for a non-null int64 key; both give the same hash.
func HashInt64(vals []int64, sel []int32, out []uint64) []uint64 {
	if sel == nil {
		out = growUint64(out, len(vals))
		out = out[:len(vals)]
		for i, v := range vals {
			out[i] = mix64(uint64(v))
		}
		return out
	}
	out = growUint64(out, len(sel))
	for i, r := range sel {
		out[i] = mix64(uint64(vals[r]))
	}
	return out
}

var hashScratch = sync.Pool{New: func() any { return new([]uint64) }}

// HashColumns hashes the live rows of the key columns cols into out: out[i]
// is the hash of row sel[i] (row i when sel is nil). Supported types: int32,
// int64, timestamp, float64, bool, string, binary, in any mix. A null hashes
// to a fixed value, so nulls group together; int32 and int64 (and
// timestamps) with the same value hash alike, as do a string and a binary
// with the same bytes. The hash is deterministic across processes.
// Unsupported column types hash as null.
func HashColumns(cols []arrow.Array, sel []int32, out []uint64) []uint64 {
	if len(cols) == 0 {
		return out[:0]
	}
	n := liveCount(sel, cols[0].Len())
	out = growUint64(out, n)
	hashColumn(cols[0], sel, out)
	if len(cols) == 1 {
		return out
	}
	sp := hashScratch.Get().(*[]uint64)
	tmp := growUint64(*sp, n)
	for _, c := range cols[1:] {
		hashColumn(c, sel, tmp)
		o := out[:len(tmp)]
		for i, v := range tmp {
			o[i] = combineHash(o[i], v)
		}
	}
	*sp = tmp
	hashScratch.Put(sp)
	return out
}

// hashColumn writes the hash of each live row of c to dst (len = live rows).
func hashColumn(c arrow.Array, sel []int32, dst []uint64) {
	switch a := c.(type) {
	case *array.Int64, *array.Timestamp:
		v, _ := int64View(a)
		HashInt64(v, sel, dst)
	case *array.Int32:
		hashInt32(a.Int32Values(), sel, dst)
	case *array.Date32:
		hashInt32(dateView(a), sel, dst)
	case *array.Float64:
		hashFloat64(a.Float64Values(), sel, dst)
	case *array.Boolean:
		bm, off := boolBits(a)
		if sel == nil {
			for i := range dst {
				dst[i] = mix64(uint64(bitAt(bm, off+i)))
			}
		} else {
			for i, r := range sel[:len(dst)] {
				dst[i] = mix64(uint64(bitAt(bm, off+int(r))))
			}
		}
	case *array.String, *array.Binary:
		vb, _ := varBinaryView(a)
		offs, data := vb.offs, vb.data
		if sel == nil {
			offs = offs[:len(dst)+1]
			for i := range dst {
				dst[i] = hashBytes(data[offs[i]:offs[i+1]])
			}
		} else {
			for i, r := range sel[:len(dst)] {
				dst[i] = hashBytes(data[offs[r]:offs[r+1]])
			}
		}
	default:
		for i := range dst {
			dst[i] = hashNull
		}
		return
	}
	if bm, off := validity(c); bm != nil {
		if sel == nil {
			for i := range dst {
				if bitAt(bm, off+i) == 0 {
					dst[i] = hashNull
				}
			}
		} else {
			for i, r := range sel[:len(dst)] {
				if bitAt(bm, off+int(r)) == 0 {
					dst[i] = hashNull
				}
			}
		}
	}
}

func hashInt32(vals []int32, sel []int32, dst []uint64) {
	if sel == nil {
		vals = vals[:len(dst)]
		for i, v := range vals {
			dst[i] = mix64(uint64(int64(v)))
		}
		return
	}
	for i, r := range sel[:len(dst)] {
		dst[i] = mix64(uint64(int64(vals[r])))
	}
}

func hashFloat64(vals []float64, sel []int32, dst []uint64) {
	if sel == nil {
		vals = vals[:len(dst)]
		for i, v := range vals {
			dst[i] = mix64(floatBits(v))
		}
		return
	}
	for i, r := range sel[:len(dst)] {
		dst[i] = mix64(floatBits(vals[r]))
	}
}
