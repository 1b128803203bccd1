package columnar

import (
	"bytes"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestKeyEncodingOrderAndRoundTrip checks that bytewise order of encoded
// keys equals tuple order (nulls first) and that DecodeKeys inverts
// EncodeKeys, on random (int64, string, float64) tuples.
func TestKeyEncodingOrderAndRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewSource(7))
	const n = 2000
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	fb := array.NewFloat64Builder(mem)
	type tuple struct {
		i    *int64
		s    *string
		f    *float64
		orig int
	}
	tuples := make([]tuple, n)
	words := []string{"", "a", "a\x00", "a\x00b", "ab", "b", "\x00", "zz"}
	for k := 0; k < n; k++ {
		var tp tuple
		tp.orig = k
		if r.Intn(10) == 0 {
			ib.AppendNull()
		} else {
			v := r.Int63n(20) - 10
			if r.Intn(20) == 0 {
				v = math.MinInt64
			}
			tp.i = &v
			ib.Append(v)
		}
		if r.Intn(10) == 0 {
			sb.AppendNull()
		} else {
			w := words[r.Intn(len(words))]
			tp.s = &w
			sb.Append(w)
		}
		if r.Intn(10) == 0 {
			fb.AppendNull()
		} else {
			f := []float64{-1.5, -0.25, 0, 0.25, 3, math.Inf(1), math.Inf(-1)}[r.Intn(7)]
			tp.f = &f
			fb.Append(f)
		}
		tuples[k] = tp
	}
	cols := []arrow.Array{ib.NewArray(), sb.NewArray(), fb.NewArray()}
	ib.Release()
	sb.Release()
	fb.Release()
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	keys, err := EncodeKeys(nil, cols, nil)
	if err != nil {
		t.Fatal(err)
	}
	less := func(a, b tuple) int {
		cmpI := func(x, y *int64) int {
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil:
				return -1
			case y == nil:
				return 1
			case *x < *y:
				return -1
			case *x > *y:
				return 1
			}
			return 0
		}
		if c := cmpI(a.i, b.i); c != 0 {
			return c
		}
		switch {
		case a.s == nil && b.s != nil:
			return -1
		case a.s != nil && b.s == nil:
			return 1
		case a.s != nil && b.s != nil && *a.s != *b.s:
			if *a.s < *b.s {
				return -1
			}
			return 1
		}
		switch {
		case a.f == nil && b.f == nil:
			return 0
		case a.f == nil:
			return -1
		case b.f == nil:
			return 1
		case *a.f < *b.f:
			return -1
		case *a.f > *b.f:
			return 1
		}
		return 0
	}
	for k := 0; k < 5000; k++ {
		a, b := r.Intn(n), r.Intn(n)
		want := less(tuples[a], tuples[b])
		got := bytes.Compare(keys[a], keys[b])
		if (want < 0) != (got < 0) || (want == 0) != (got == 0) {
			t.Fatalf("order of rows %d and %d: tuples compare %d, keys compare %d", a, b, want, got)
		}
	}
	sorted := append([][]byte(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i], sorted[j]) < 0 })
	dec, err := DecodeKeys(mem, keys, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range dec {
			c.Release()
		}
	}()
	for i, c := range cols {
		if !array.Equal(c, dec[i]) {
			t.Fatalf("column %d does not round-trip", i)
		}
	}
	if _, err := DecodeKeys(mem, [][]byte{keys[0][:len(keys[0])-1]}, []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64}); err == nil {
		t.Fatal("truncated key decoded without error")
	}
}

// TestDateKeyRoundTrip encodes date32 keys (GROUP BY to_date(ts)) in day
// order, nulls first, and decodes them back.
func TestDateKeyRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewDate32Builder(mem)
	b.AppendValues([]arrow.Date32{19782, -1, 0, -719162}, nil)
	b.AppendNull()
	col := b.NewArray()
	b.Release()
	defer col.Release()
	keys, err := EncodeKeys(nil, []arrow.Array{col}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !(bytes.Compare(keys[4], keys[3]) < 0 && bytes.Compare(keys[3], keys[1]) < 0 &&
		bytes.Compare(keys[1], keys[2]) < 0 && bytes.Compare(keys[2], keys[0]) < 0) {
		t.Errorf("keys out of day order: %x", keys)
	}
	back, err := DecodeKeys(mem, keys, []arrow.DataType{arrow.FixedWidthTypes.Date32})
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseAll(back)
	if !array.Equal(back[0], col) {
		t.Errorf("decoded %s, want %s", back[0], col)
	}
}
