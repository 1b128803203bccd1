package kernels

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
)

// TestXXH64FixedWidthMatchesLibrary checks the written-out XXH64 of 4 and 8
// bytes against xxhash's over the same little-endian bytes, seeds included.
func TestXXH64FixedWidthMatchesLibrary(t *testing.T) {
	for _, seed := range []uint64{0, 42, math.MaxUint64, 0x9e3779b97f4a7c15} {
		for _, v := range []int64{0, 1, -1, 42, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, 0x0123456789abcdef} {
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], uint64(v))
			d := xxhash.NewWithSeed(seed)
			d.Write(b[:])
			if got, want := XXH64Long(v, seed), d.Sum64(); got != want {
				t.Errorf("XXH64Long(%d, %d) = %d, xxhash %d", v, seed, got, want)
			}
			d.ResetWithSeed(seed)
			d.Write(b[:4])
			if got, want := XXH64Int(int32(v), seed), d.Sum64(); got != want {
				t.Errorf("XXH64Int(%d, %d) = %d, xxhash %d", int32(v), seed, got, want)
			}
		}
	}
}

// TestSparkHashValues pins values Spark 4.2 computes (hash(), xxhash64()
// with seed 42): strings of every tail length, -0.0 as 0.0, NaN.
func TestSparkHashValues(t *testing.T) {
	mem := memory.NewGoAllocator()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"", "a", "ab", "abc", "abcd", "abcde"}, nil)
	s := sb.NewArray()
	defer s.Release()
	h := []uint32{42, 42, 42, 42, 42, 42}
	if err := SparkMurmur3(s, h); err != nil {
		t.Fatal(err)
	}
	want := []int32{142593372, 1485273170, -97053317, 1322437556, -396302900, 814637928}
	for i := range want {
		if int32(h[i]) != want[i] {
			t.Errorf("hash(%q) = %d, Spark %d", s.(*array.String).Value(i), int32(h[i]), want[i])
		}
	}
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN()}, nil)
	f := fb.NewArray()
	defer f.Release()
	x := []uint64{42, 42, 42}
	if err := SparkXXHash64(f, x); err != nil {
		t.Fatal(err)
	}
	for i, w := range []int64{-5252525462095825812, -5252525462095825812, -3127944061524951246} {
		if int64(x[i]) != w {
			t.Errorf("xxhash64 of double %d = %d, Spark %d", i, int64(x[i]), w)
		}
	}
}

// TestSparkHashDate checks that a DATE hashes as its days since the epoch,
// an INT, as Spark's HashExpression does: hash(DATE '1970-01-02') is
// hash(1), -559580957, and xxhash64 likewise -6698625589789238999.
func TestSparkHashDate(t *testing.T) {
	b := array.NewDate32Builder(memory.NewGoAllocator())
	b.Append(1)
	d := b.NewArray()
	defer d.Release()
	h := []uint32{SparkHashSeed}
	x := []uint64{SparkHashSeed}
	if err := SparkMurmur3(d, h); err != nil {
		t.Fatal(err)
	}
	if err := SparkXXHash64(d, x); err != nil {
		t.Fatal(err)
	}
	if int32(h[0]) != -559580957 || int64(x[0]) != -6698625589789238999 {
		t.Errorf("hash, xxhash64 of DATE 1970-01-02 = %d, %d; Spark's are -559580957, -6698625589789238999", int32(h[0]), int64(x[0]))
	}
}

// TestSparkHashNested pins Spark 4.2's hash() and xxhash64() of an array
// with a null element, a struct, and an array of arrays (the row-at-a-time
// fold, sparkFoldValue).
func TestSparkHashNested(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, c := range []struct {
		typ  arrow.DataType
		json string
		m3   int32
		xx   int64
	}{
		{arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, null, 2]]`, -222940379, -8133857028838179022},
		{arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "c", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		), `[{"a": 1, "b": "x", "c": 2.5}]`, -1397093485, 2097156890510276838},
		{arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), `[[[7], [8, 9]]]`, -997630833, -4391387920506481310},
	} {
		a, _, err := array.FromJSON(mem, c.typ, strings.NewReader(c.json))
		if err != nil {
			t.Fatal(err)
		}
		h := []uint32{SparkHashSeed}
		x := []uint64{SparkHashSeed}
		if err := SparkMurmur3(a, h); err != nil {
			t.Fatal(err)
		}
		if err := SparkXXHash64(a, x); err != nil {
			t.Fatal(err)
		}
		if int32(h[0]) != c.m3 || int64(x[0]) != c.xx {
			t.Errorf("%s %s: hash %d xxhash64 %d, Spark %d %d", c.typ, c.json, int32(h[0]), int64(x[0]), c.m3, c.xx)
		}
		a.Release()
	}
}
