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
// (hashBytes) with its length.
func sumBytes[O int32 | int64](offsets []O, data []byte, valid []byte, off int) uint64 {
	var s uint64
	for i := 0; i+1 < len(offsets); i++ {
		if valid != nil && !bitutil.BitIsSet(valid, off+i) {
			continue
		}
		s += mix(hashBytes(data[offsets[i]:offsets[i+1]]))
	}
	return s
}

const (
	prime1 = 0x9E3779B97F4A7C15
	prime2 = 0xC2B2AE3D27D4EB4F
)

// hashBytes hashes v eight bytes at a time: 32-byte blocks in four
// independent lanes (so that the multiplies overlap instead of waiting on
// each other, as xxHash does), then words, then the last 0-7 bytes as one
// word. The sink reads every byte of every value, as DuckDB's hash does in
// the comparison harness, at several GB/s.
func hashBytes(v []byte) uint64 {
	h := uint64(len(v)) * prime2
	if len(v) >= 32 {
		a, b, c, d := h, h+prime1, h+prime2, h-prime1
		for len(v) >= 32 {
			a = bits.RotateLeft64(a^binary.LittleEndian.Uint64(v), 31) * prime1
			b = bits.RotateLeft64(b^binary.LittleEndian.Uint64(v[8:]), 31) * prime1
			c = bits.RotateLeft64(c^binary.LittleEndian.Uint64(v[16:]), 31) * prime1
			d = bits.RotateLeft64(d^binary.LittleEndian.Uint64(v[24:]), 31) * prime1
			v = v[32:]
		}
		h = bits.RotateLeft64(a, 1) + bits.RotateLeft64(b, 7) + bits.RotateLeft64(c, 12) + bits.RotateLeft64(d, 18)
	}
	for len(v) >= 8 {
		h = bits.RotateLeft64(h^binary.LittleEndian.Uint64(v), 27) * prime1
		v = v[8:]
	}
	if len(v) > 0 {
		var w uint64
		for i, x := range v {
			w |= uint64(x) << (8 * i)
		}
		h = bits.RotateLeft64(h^w, 27) * prime1
	}
	return h
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
