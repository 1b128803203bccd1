package kernels

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

var castTypes = []arrow.DataType{
	arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
	arrow.FixedWidthTypes.Boolean, tsType, arrow.BinaryTypes.String,
	&arrow.TimestampType{Unit: arrow.Millisecond}, &arrow.TimestampType{Unit: arrow.Nanosecond},
}

// oracleCast converts one value; ok false means null.
func oracleCast(a arrow.Array, r int, to arrow.DataType) (any, bool) {
	v := oracleValue(a, r)
	fromTS, _ := a.DataType().(*arrow.TimestampType)
	switch to.ID() {
	case arrow.STRING:
		switch x := v.(type) {
		case int64:
			if fromTS != nil {
				return string(AppendSparkTimestamp(nil, x, fromTS.Unit)), true
			}
			return strconv.FormatInt(x, 10), true
		case float64:
			return string(AppendJavaDouble(nil, x, 64)), true
		case bool:
			return strconv.FormatBool(x), true
		}
	case arrow.BOOL:
		switch x := v.(type) {
		case int64:
			return x != 0, true
		case float64:
			return x != 0, true
		case string:
			return parseSparkBool(x)
		}
	case arrow.FLOAT64:
		switch x := v.(type) {
		case int64:
			return float64(x), true
		case bool:
			return float64(b2i(x)), true
		case string:
			return parseSparkDouble(x)
		}
	case arrow.INT32, arrow.INT64, arrow.TIMESTAMP:
		var i int64
		switch x := v.(type) {
		case int64:
			i = x
			if toTS, ok := to.(*arrow.TimestampType); ok && fromTS != nil {
				f, t := columnar.UnitsPerSecond(fromTS.Unit), columnar.UnitsPerSecond(toTS.Unit)
				if t >= f {
					i = x * (t / f)
				} else {
					i = int64(math.Floor(float64(x) / float64(f/t)))
					if x%(f/t) == 0 {
						i = x / (f / t)
					}
				}
			}
		case float64:
			if to.ID() == arrow.INT32 {
				i = saturate(x, math.MinInt32, math.MaxInt32)
			} else {
				i = saturate(x, math.MinInt64, math.MaxInt64)
			}
		case bool:
			i = int64(b2i(x))
		case string:
			var ok bool
			switch to.ID() {
			case arrow.INT32:
				i, ok = parseSparkInt(x, 32)
			case arrow.INT64:
				i, ok = parseSparkInt(x, 64)
			default:
				i, ok = parseTimestamp(x, to.(*arrow.TimestampType).Unit)
			}
			if !ok {
				return nil, false
			}
		}
		if to.ID() == arrow.INT32 {
			return int64(int32(i)), true
		}
		return i, true
	}
	panic("oracleCast")
}

func TestCast(t *testing.T) {
	forEachCase(t, func(t *testing.T, mem memory.Allocator, rng *rand.Rand, c testCase) {
		if c.withSel || c.n > 1024 {
			return // Cast ignores selections; parsing is slow
		}
		for _, from := range castTypes {
			a := genArray(mem, rng, from, c.n, c.nullProb, c.sliced)
			for _, to := range castTypes {
				got, err := Cast(mem, a, to)
				if err != nil {
					t.Fatal(err)
				}
				if !arrow.TypeEqual(got.DataType(), to) {
					t.Fatalf("cast %s to %s gave %s", from, to, got.DataType())
				}
				for r := 0; r < c.n; r++ {
					if a.IsNull(r) {
						if got.IsValid(r) {
							t.Fatalf("cast %s to %s row %d: null became valid", from, to, r)
						}
						continue
					}
					want, ok := oracleValue(a, r), true
					if !arrow.TypeEqual(from, to) {
						want, ok = oracleCast(a, r, to)
					}
					if !ok {
						if got.IsValid(r) {
							t.Fatalf("cast %s to %s row %d: got %v want null", from, to, r, oracleValue(got, r))
						}
						continue
					}
					if got.IsNull(r) {
						t.Fatalf("cast %s to %s row %d (%v): got null want %v", from, to, r, oracleValue(a, r), want)
					}
					g := oracleValue(got, r)
					if gf, isF := g.(float64); isF {
						if sparkFloatCmp(gf, want.(float64)) != 0 {
							t.Fatalf("cast %s to %s row %d: got %v want %v", from, to, r, g, want)
						}
					} else if g != want {
						t.Fatalf("cast %s to %s row %d (%v): got %v want %v", from, to, r, oracleValue(a, r), g, want)
					}
				}
				if countNulls(got) != got.NullN() {
					t.Fatalf("cast %s to %s: NullN", from, to)
				}
				got.Release()
			}
			a.Release()
		}
	})
}

func TestCastText(t *testing.T) {
	doubles := map[float64]string{
		1: "1.0", 0.001: "0.001", 1e7: "1.0E7", 1.5e-4: "1.5E-4", -2.5: "-2.5",
		123456.789: "123456.789", 1e21: "1.0E21", math.NaN(): "NaN", math.Inf(-1): "-Infinity",
		0.30000000000000004: "0.30000000000000004", 9999999: "9999999.0",
	}
	for f, want := range doubles {
		if got := string(AppendJavaDouble(nil, f, 64)); got != want {
			t.Errorf("double %v: got %q want %q", f, got, want)
		}
	}
	ints := map[string]any{" 12 ": int64(12), "-7": int64(-7), "1.9": int64(1), "+3.": int64(3),
		"abc": nil, "": nil, "-": nil, "1e3": nil, "9223372036854775807": int64(math.MaxInt64),
		"-9223372036854775808": int64(math.MinInt64), "9223372036854775808": nil}
	for s, want := range ints {
		v, ok := parseSparkInt(s, 64)
		if (want == nil) == ok || ok && v != want.(int64) {
			t.Errorf("int %q: got %d,%v want %v", s, v, ok, want)
		}
	}
	if _, ok := parseSparkInt("2147483648", 32); ok {
		t.Error("int32 overflow must fail")
	}
	for s, want := range map[string]any{"1.5": 1.5, " -2 ": -2.0, "1e3": 1000.0, "2.5d": 2.5, "inf": nil, "Infinity": math.Inf(1), "x": nil, "1_0": nil} {
		v, ok := parseSparkDouble(s)
		if (want == nil) == ok || ok && v != want.(float64) {
			t.Errorf("double %q: got %v,%v want %v", s, v, ok, want)
		}
	}
	for s, want := range map[string]int64{
		"2024-03-01 12:34:56.5": 1709296496500000, "2024-03-01T12:34:56Z": 1709296496000000,
		"2024-03-01": 1709251200000000, "2024-03-01 13:34:56+01:00": 1709296496000000, "1969-12-31 23:59:59.999999": -1,
	} {
		v, ok := parseTimestamp(s, arrow.Microsecond)
		if !ok || v != want {
			t.Errorf("timestamp %q: got %d,%v want %d", s, v, ok, want)
		}
		if back := string(AppendSparkTimestamp(nil, want, arrow.Microsecond)); back == "" {
			t.Errorf("format %d", want)
		}
	}
	if got := string(AppendSparkTimestamp(nil, 1709296496500000, arrow.Microsecond)); got != "2024-03-01 12:34:56.5" {
		t.Errorf("format: %q", got)
	}
	if _, ok := parseTimestamp("yesterday", arrow.Microsecond); ok {
		t.Error("bad timestamp parsed")
	}
}

func TestCastSameTypeRetains(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	b.Append(1)
	a := b.NewArray()
	b.Release()
	got, err := Cast(mem, a, arrow.PrimitiveTypes.Int64)
	if err != nil || got != a {
		t.Fatalf("same-type cast: %v %v", got, err)
	}
	got.Release()
	if _, err := Cast(mem, a, arrow.ListOf(arrow.PrimitiveTypes.Int64)); err == nil {
		t.Error("cast to list: want error")
	}
	a.Release()
}
