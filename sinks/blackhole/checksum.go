package blackhole

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// mix spreads the bits of x (a multiply-xorshift finaliser), so that summing
// mixed values does not cancel out the way summing raw values can.
func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

// RecordChecksum returns the order-independent checksum of rec's rows.
func RecordChecksum(rec arrow.RecordBatch) uint64 {
	var sum uint64
	for c, col := range rec.Columns() {
		// Weight by column so that swapping two columns changes the sum.
		sum += ColumnChecksum(col) * (2*uint64(c) + 1)
	}
	return sum
}

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

func sumInts[T integer](v []T, valid []byte, off int) uint64 {
	var s uint64
	if valid == nil {
		for _, x := range v {
			s += mix(uint64(x))
		}
		return s
	}
	for i, x := range v {
		if bitutil.BitIsSet(valid, off+i) {
			s += mix(uint64(x))
		}
	}
	return s
}

func sumFloat64s(v []float64, valid []byte, off int) uint64 {
	var s uint64
	if valid == nil {
		for _, x := range v {
			s += mix(math.Float64bits(x))
		}
		return s
	}
	for i, x := range v {
		if bitutil.BitIsSet(valid, off+i) {
			s += mix(math.Float64bits(x))
		}
	}
	return s
}

func sumFloat32s(v []float32, valid []byte, off int) uint64 {
	var s uint64
	if valid == nil {
		for _, x := range v {
			s += mix(uint64(math.Float32bits(x)))
		}
		return s
	}
	for i, x := range v {
		if bitutil.BitIsSet(valid, off+i) {
			s += mix(uint64(math.Float32bits(x)))
		}
	}
	return s
}

// sumBytes checksums variable-length values: each value's hash
// (hashBytes, which mixes in the length).
func sumBytes[O int32 | int64](offsets []O, data []byte, valid []byte, off int) uint64 {
	var s uint64
	if valid == nil {
		for i := 0; i+1 < len(offsets); i++ {
			s += hashBytes(data[offsets[i]:offsets[i+1]])
		}
		return s
	}
	for i := 0; i+1 < len(offsets); i++ {
		if bitutil.BitIsSet(valid, off+i) {
			s += hashBytes(data[offsets[i]:offsets[i+1]])
		}
	}
	return s
}

const (
	prime1 = 0x9E3779B97F4A7C15
	prime2 = 0xC2B2AE3D27D4EB4F
)

// mum multiplies a and b into 128 bits and folds the halves (wyhash's
// mixing step): every input bit reaches the result.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// hashBytes hashes v in the manner of wyhash, sixteen bytes per 128-bit
// multiply: 32-byte blocks in two independent lanes (so that the
// multiplies overlap instead of waiting on each other), the last 16 bytes
// read as one (overlapping) block rather than byte by byte, and 0-16 byte
// values as two overlapping words. The sink reads every byte of every
// value, as DuckDB's hash does in the comparison harness: about 14 ns for
// a Nexmark bid's 54-81 byte extra, against 24 ns for the earlier
// xxHash-style loop with a byte-wise tail (BENCHMARKS "Fourth scan round").
func hashBytes(v []byte) uint64 {
	n := len(v)
	a := uint64(n) * prime2
	if n <= 16 {
		var x, y uint64
		switch {
		case n >= 8:
			x, y = binary.LittleEndian.Uint64(v), binary.LittleEndian.Uint64(v[n-8:])
		case n >= 4:
			x, y = uint64(binary.LittleEndian.Uint32(v)), uint64(binary.LittleEndian.Uint32(v[n-4:]))
		case n > 0:
			x = uint64(v[0])<<16 | uint64(v[n>>1])<<8 | uint64(v[n-1])
		}
		return mum(x^prime1, y^a)
	}
	b := a ^ prime1
	last := v[n-16:]
	for len(v) > 32 {
		a = mum(binary.LittleEndian.Uint64(v)^prime1, binary.LittleEndian.Uint64(v[8:])^a)
		b = mum(binary.LittleEndian.Uint64(v[16:])^prime2, binary.LittleEndian.Uint64(v[24:])^b)
		v = v[32:]
	}
	if len(v) > 16 {
		a = mum(binary.LittleEndian.Uint64(v)^prime1, binary.LittleEndian.Uint64(v[8:])^a)
	}
	b = mum(binary.LittleEndian.Uint64(last)^prime2, binary.LittleEndian.Uint64(last[8:])^b)
	return mum(a^prime2, b^uint64(n))
}

// ColumnChecksum returns the order-independent checksum of col's values.
func ColumnChecksum(col arrow.Array) uint64 {
	if col.Len() == 0 {
		return 0 // empty arrays may lack buffers
	}
	var valid []byte
	if col.NullN() > 0 {
		valid = col.NullBitmapBytes()
	}
	off := col.Data().Offset()
	n := uint64(col.Len())
	switch a := col.(type) {
	case *array.Int8:
		return sumInts(a.Int8Values(), valid, off)
	case *array.Int16:
		return sumInts(a.Int16Values(), valid, off)
	case *array.Int32:
		return sumInts(a.Int32Values(), valid, off)
	case *array.Int64:
		return sumInts(a.Int64Values(), valid, off)
	case *array.Uint8:
		return sumInts(a.Uint8Values(), valid, off)
	case *array.Uint16:
		return sumInts(a.Uint16Values(), valid, off)
	case *array.Uint32:
		return sumInts(a.Uint32Values(), valid, off)
	case *array.Uint64:
		return sumInts(a.Uint64Values(), valid, off)
	case *array.Timestamp:
		return sumInts(a.TimestampValues(), valid, off)
	case *array.Date32:
		return sumInts(a.Date32Values(), valid, off)
	case *array.Date64:
		return sumInts(a.Date64Values(), valid, off)
	case *array.Float32:
		return sumFloat32s(a.Float32Values(), valid, off)
	case *array.Float64:
		return sumFloat64s(a.Float64Values(), valid, off)
	case *array.Boolean:
		vals := a.Data().Buffers()[1].Bytes()
		if valid == nil {
			return uint64(bitutil.CountSetBits(vals, off, a.Len()))*0x9E3779B97F4A7C15 + n
		}
		var t uint64
		for i := 0; i < a.Len(); i++ {
			if bitutil.BitIsSet(valid, off+i) && bitutil.BitIsSet(vals, off+i) {
				t++
			}
		}
		return t*0x9E3779B97F4A7C15 + uint64(a.Len()-a.NullN())
	case *array.String:
		return sumBytes(a.ValueOffsets(), stringData(a.Data()), valid, off)
	case *array.Binary:
		return sumBytes(a.ValueOffsets(), stringData(a.Data()), valid, off)
	case *array.LargeString:
		return sumBytes(a.ValueOffsets(), stringData(a.Data()), valid, off)
	case *array.Struct:
		// every field, weighted by position (a window's start and end)
		var sum uint64
		for f := 0; f < a.NumField(); f++ {
			sum += ColumnChecksum(a.Field(f)) * (2*uint64(f) + 3)
		}
		return sum + n
	}
	return n
}

func stringData(d arrow.ArrayData) []byte {
	if b := d.Buffers()[2]; b != nil {
		return b.Bytes()
	}
	return nil
}
