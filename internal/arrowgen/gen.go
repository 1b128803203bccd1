package arrowgen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Array returns a random array of type dt with n rows; each slot at each
// level is null with probability nullP (map keys and map entries never are,
// as Arrow requires). With sliced the array is a slice at a random non-zero
// offset of a larger one, and so, at random, is each child. A null slot of
// a variable-size list may still span child values, as Arrow allows.
// Values come from a small domain half the time, so equal values occur.
// The caller releases the array.
func Array(mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nullP float64, sliced bool) arrow.Array {
	pre, post := 0, 0
	if sliced {
		pre, post = 1+rng.IntN(7), rng.IntN(4)
	}
	total := pre + n + post
	var arr arrow.Array
	switch t := dt.(type) {
	case *arrow.StructType:
		arr = genStruct(mem, rng, t, total, nullP, sliced, false)
	case *arrow.ListType, *arrow.LargeListType, *arrow.MapType:
		arr = genList(mem, rng, dt, total, nullP, sliced)
	case *arrow.FixedSizeListType:
		valid, nulls := genValidity(mem, rng, total, nullP)
		child := Array(mem, rng, t.Elem(), total*int(t.Len()), nullP, sliced && rng.IntN(2) == 0)
		arr = assemble(dt, total, []*memory.Buffer{valid}, []arrow.Array{child}, nulls)
	case *arrow.DictionaryType:
		arr = genDictionary(mem, rng, t, total, nullP, sliced)
	case arrow.ExtensionType:
		storage := Array(mem, rng, t.StorageType(), total, nullP, false)
		arr = array.NewExtensionArrayWithStorage(t, storage)
		storage.Release()
	default:
		arr = genFlat(mem, rng, dt, total, nullP)
	}
	if !sliced {
		return arr
	}
	defer arr.Release()
	return array.NewSlice(arr, int64(pre), int64(pre+n))
}

// genValidity returns a random validity bitmap of n slots (nil when no slot
// is null) and the null count.
func genValidity(mem memory.Allocator, rng *rand.Rand, n int, nullP float64) (*memory.Buffer, int) {
	if nullP == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	bm := buf.Bytes()
	clear(bm)
	nulls := 0
	for i := 0; i < n; i++ {
		if rng.Float64() < nullP {
			nulls++
		} else {
			bitutil.SetBit(bm, i)
		}
	}
	if nulls == 0 {
		buf.Release()
		return nil, 0
	}
	return buf, nulls
}

// assemble builds an array from buffers and children, dropping the
// caller's references to both.
func assemble(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.Array, nulls int) arrow.Array {
	cd := make([]arrow.ArrayData, len(children))
	for i, c := range children {
		cd[i] = c.Data()
	}
	d := array.NewData(dt, n, bufs, cd, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

func genStruct(mem memory.Allocator, rng *rand.Rand, t *arrow.StructType, n int, nullP float64, sliced, mapEntries bool) arrow.Array {
	var valid *memory.Buffer
	nulls := 0
	if !mapEntries {
		valid, nulls = genValidity(mem, rng, n, nullP)
	}
	children := make([]arrow.Array, t.NumFields())
	for i, f := range t.Fields() {
		p := nullP
		if mapEntries && i == 0 {
			p = 0 // map keys are never null
		}
		children[i] = Array(mem, rng, f.Type, n, p, sliced && rng.IntN(2) == 0)
	}
	return assemble(t, n, []*memory.Buffer{valid}, children, nulls)
}

// genList builds a list, large list or map of n rows of 0 to 3 values each,
// whose first offset is not zero, over a child with spare values at both
// ends.
func genList(mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nullP float64, sliced bool) arrow.Array {
	valid, nulls := genValidity(mem, rng, n, nullP)
	ends := make([]int64, n+1)
	ends[0] = int64(rng.IntN(4))
	for i := 0; i < n; i++ {
		k := int64(rng.IntN(4))
		if valid != nil && !bitutil.BitIsSet(valid.Bytes(), i) && rng.IntN(3) > 0 {
			k = 0 // most null slots are empty; the others span values
		}
		ends[i+1] = ends[i] + k
	}
	childLen := int(ends[n]) + rng.IntN(3)
	var child arrow.Array
	offs := memory.NewResizableBuffer(mem)
	switch t := dt.(type) {
	case *arrow.MapType:
		child = genStruct(mem, rng, t.Elem().(*arrow.StructType), childLen, nullP, sliced && rng.IntN(2) == 0, true)
	case *arrow.ListType:
		child = Array(mem, rng, t.Elem(), childLen, nullP, sliced && rng.IntN(2) == 0)
	case *arrow.LargeListType:
		child = Array(mem, rng, t.Elem(), childLen, nullP, sliced && rng.IntN(2) == 0)
	}
	if dt.ID() == arrow.LARGE_LIST {
		offs.Resize((n + 1) * 8)
		copy(arrow.Int64Traits.CastFromBytes(offs.Bytes()), ends)
	} else {
		offs.Resize((n + 1) * 4)
		o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
		for i, e := range ends {
			o[i] = int32(e)
		}
	}
	return assemble(dt, n, []*memory.Buffer{valid, offs}, []arrow.Array{child}, nulls)
}

func genDictionary(mem memory.Allocator, rng *rand.Rand, t *arrow.DictionaryType, n int, nullP float64, sliced bool) arrow.Array {
	size := 1 + rng.IntN(8)
	dict := Array(mem, rng, t.ValueType, size, nullP/2, sliced && rng.IntN(2) == 0)
	defer dict.Release()
	ib := array.NewBuilder(mem, t.IndexType)
	defer ib.Release()
	for i := 0; i < n; i++ {
		if rng.Float64() < nullP {
			ib.AppendNull()
			continue
		}
		if err := ib.AppendValueFromString(fmt.Sprint(rng.IntN(size))); err != nil {
			panic(err)
		}
	}
	ix := ib.NewArray()
	defer ix.Release()
	d := array.NewDataWithDictionary(t, n, ix.Data().Buffers(), ix.NullN(), 0, dict.Data().(*array.Data))
	defer d.Release()
	return array.MakeFromData(d)
}

// genFlat builds a flat array with a builder.
func genFlat(mem memory.Allocator, rng *rand.Rand, dt arrow.DataType, n int, nullP float64) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	small := rng.IntN(2) == 0
	for i := 0; i < n; i++ {
		if rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		v := rng.Int64()
		if small {
			v = int64(rng.IntN(20) - 10)
		}
		switch bb := b.(type) {
		case *array.NullBuilder:
			bb.AppendNull()
		case *array.BooleanBuilder:
			bb.Append(v&1 == 0)
		case *array.Int8Builder:
			bb.Append(int8(v))
		case *array.Int16Builder:
			bb.Append(int16(v))
		case *array.Int32Builder:
			bb.Append(int32(v))
		case *array.Int64Builder:
			bb.Append(v)
		case *array.Uint8Builder:
			bb.Append(uint8(v))
		case *array.Uint16Builder:
			bb.Append(uint16(v))
		case *array.Uint32Builder:
			bb.Append(uint32(v))
		case *array.Uint64Builder:
			bb.Append(uint64(v))
		case *array.Float16Builder:
			bb.Append(float16.New(float32(RandFloat(rng, small))))
		case *array.Float32Builder:
			bb.Append(float32(RandFloat(rng, small)))
		case *array.Float64Builder:
			bb.Append(RandFloat(rng, small))
		case *array.StringBuilder:
			bb.Append(RandString(rng, small))
		case *array.LargeStringBuilder:
			bb.Append(RandString(rng, small))
		case *array.StringViewBuilder:
			bb.Append(RandString(rng, small) + RandString(rng, small)) // some past the 12-byte inline limit
		case *array.BinaryBuilder: // binary and large binary
			bb.Append([]byte(RandString(rng, small)))
		case *array.FixedSizeBinaryBuilder:
			w := dt.(*arrow.FixedSizeBinaryType).ByteWidth
			bb.Append([]byte(fmt.Sprintf("%0*d", w, uint64(v)%uint64(math.Pow10(min(w, 18))))))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v % 100000))
		case *array.Date64Builder:
			bb.Append(arrow.Date64(v % 100000 * 86400000))
		case *array.Time32Builder:
			bb.Append(arrow.Time32(uint64(v) % 86400000))
		case *array.Time64Builder:
			bb.Append(arrow.Time64(uint64(v) % 86400000000))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v % 4_000_000_000_000_000))
		case *array.DurationBuilder:
			bb.Append(arrow.Duration(v))
		case *array.MonthIntervalBuilder:
			bb.Append(arrow.MonthInterval(int32(v)))
		case *array.DayTimeIntervalBuilder:
			bb.Append(arrow.DayTimeInterval{Days: int32(v), Milliseconds: int32(v >> 32)})
		case *array.MonthDayNanoIntervalBuilder:
			bb.Append(arrow.MonthDayNanoInterval{Months: int32(v), Days: int32(v >> 32), Nanoseconds: v / 3})
		default:
			// Decimals and extension storage: through their text form.
			var s string
			switch t := dt.(type) {
			case arrow.DecimalType:
				digits := int(t.GetPrecision()) - int(t.GetScale())
				s = fmt.Sprintf("%d.%0*d", v%int64(math.Pow10(min(digits, 18))), int(t.GetScale()), uint64(v)%uint64(math.Pow10(int(t.GetScale()))))
			default:
				panic("arrowgen: no generator for " + dt.String())
			}
			if err := b.AppendValueFromString(s); err != nil {
				panic(fmt.Sprintf("arrowgen: %s from %q: %v", dt, s, err))
			}
		}
	}
	return b.NewArray()
}

// RandFloat returns a float64 for random columns: NaN, -0, 0 and ±Inf one
// time in twenty each, else a small half-integer or a wide normal value.
func RandFloat(rng *rand.Rand, small bool) float64 {
	switch rng.IntN(20) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return 0
	case 3:
		return math.Inf(1 - 2*rng.IntN(2))
	}
	if small {
		return float64(rng.IntN(20)-10) / 2
	}
	return rng.NormFloat64() * 1e6
}

// RandString returns a string for random columns: from a small set with
// duplicates (empty, NUL, non-ASCII), or up to 40 letters of a four-letter
// alphabet.
func RandString(rng *rand.Rand, small bool) string {
	if small {
		return []string{"", "a", "ab", "b", "abc", "Z", "zz", "a\x00b", "é"}[rng.IntN(9)]
	}
	b := make([]byte, rng.IntN(40))
	for i := range b {
		b[i] = byte('a' + rng.IntN(4))
	}
	return string(b)
}
