package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// oracleHash hashes row r of col one value at a time.
func oracleHash(col arrow.Array, r int) uint64 {
	if col.IsNull(r) {
		return hashNull
	}
	switch v := oracleValue(col, r).(type) {
	case int64:
		return mix64(uint64(v))
	case float64:
		return mix64(floatBits(v))
	case bool:
		return mix64(uint64(b2i(v)))
	case string:
		return hashBytes([]byte(v))
	}
	panic("oracleHash")
}

func TestHashColumns(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		var cols []arrow.Array
		for _, dt := range cmpTypes {
			cols = append(cols, genArray(mem, rng, dt, c.n, c.nullProb, c.sliced && rng.IntN(2) == 0))
		}
		defer func() {
			for _, col := range cols {
				col.Release()
			}
		}()
		sel := randSel(rng, c.n, c.withSel)
		var out []uint64
		for k := 1; k <= len(cols); k++ {
			keys := cols[:k]
			if k == 2 {
				keys = []arrow.Array{cols[3], cols[0]} // string first
			}
			out = HashColumns(keys, sel, out)
			rows := live(sel, c.n)
			if len(out) != len(rows) {
				t.Fatalf("len %d want %d", len(out), len(rows))
			}
			for i, r := range rows {
				want := oracleHash(keys[0], int(r))
				for _, col := range keys[1:] {
					want = combineHash(want, oracleHash(col, int(r)))
				}
				if out[i] != want {
					t.Fatalf("%d cols, row %d: got %x want %x", k, r, out[i], want)
				}
			}
		}
		if !c.withSel && c.nullProb == 0 {
			v, _ := int64View(cols[1])
			got := HashInt64(v, nil, nil)
			want := HashColumns(cols[1:2], nil, nil)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("HashInt64 differs from HashColumns at %d", i)
				}
			}
		}
	})
}

// TestHashGolden pins hash values: they partition persisted state, so a
// change must be deliberate.
func TestHashGolden(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{0, 1, -1, math.MaxInt64}, nil)
	ib.AppendNull()
	ints := ib.NewArray()
	ib.Release()
	defer ints.Release()
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"", "a", "hello world", "a much longer string, over sixteen bytes"}, nil)
	sb.AppendNull()
	strs := sb.NewArray()
	sb.Release()
	defer strs.Release()

	got := HashColumns([]arrow.Array{ints}, nil, nil)
	want := []uint64{0x0, 0xb456bcfc34c2cb2c, 0x64b5720b4b825f21, 0xabb93df0a930edea, hashNull}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("int64 row %d: hash %#x, pinned %#x", i, got[i], want[i])
		}
	}
	got = HashColumns([]arrow.Array{strs}, nil, got)
	want = []uint64{0xbf3e6c6d0ba584cb, 0x301c68a059926258, 0x5fd163291954267c, 0x944f2bfd3d8cc098, hashNull}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("string row %d: hash %#x, pinned %#x", i, got[i], want[i])
		}
	}
}

func TestHashProperties(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// int32 and int64 with equal values hash alike; -0 and 0, NaNs alike.
	i32 := array.NewInt32Builder(mem)
	i32.AppendValues([]int32{5, -3}, nil)
	a := i32.NewArray()
	i32.Release()
	defer a.Release()
	i64 := array.NewInt64Builder(mem)
	i64.AppendValues([]int64{5, -3}, nil)
	b := i64.NewArray()
	i64.Release()
	defer b.Release()
	ha, hb := HashColumns([]arrow.Array{a}, nil, nil), HashColumns([]arrow.Array{b}, nil, nil)
	if ha[0] != hb[0] || ha[1] != hb[1] {
		t.Errorf("int32/int64 hashes differ: %x %x", ha, hb)
	}
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN(), -math.NaN()}, nil)
	f := fb.NewArray()
	fb.Release()
	defer f.Release()
	hf := HashColumns([]arrow.Array{f}, nil, nil)
	if hf[0] != hf[1] || hf[2] != hf[3] {
		t.Errorf("float canonicalisation: %x", hf)
	}
	// Bucket spread of consecutive integers in the low bits.
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = int64(i) * 1000
	}
	var buckets [256]int
	for _, h := range HashInt64(vals, nil, nil) {
		buckets[h&255]++
	}
	for i, n := range buckets {
		if n < 128 || n > 384 {
			t.Fatalf("bucket %d has %d of 65536 (want ~256)", i, n)
		}
	}
	// Strings of every length up to 40 differing in one byte hash apart.
	seen := map[uint64]string{}
	for n := 0; n <= 40; n++ {
		for pos := 0; pos < n; pos++ {
			s := make([]byte, n)
			s[pos] = 1
			h := hashBytes(s)
			if prev, dup := seen[h]; dup {
				t.Fatalf("collision %q %q", prev, s)
			}
			seen[h] = string(s)
		}
	}
}
