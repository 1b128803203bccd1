package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchRows is the batch size of every benchmark (64K rows).
const benchRows = 1 << 16

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

func benchInt64s(rng *rand.Rand) []int64 {
	v := make([]int64, benchRows)
	for i := range v {
		v[i] = rng.Int64N(1000)
	}
	return v
}

func benchInt64Array(mem memory.Allocator) *array.Int64 {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(benchInt64s(rand.New(rand.NewPCG(1, 1))), nil)
	return b.NewInt64Array()
}

func benchStringArray(mem memory.Allocator) *array.String {
	rng := rand.New(rand.NewPCG(2, 2))
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for i := 0; i < benchRows; i++ {
		b.Append("bidder-" + string(rune('a'+rng.IntN(26))) + string(rune('a'+rng.IntN(26))) + "-xyz")
	}
	return b.NewStringArray()
}

func BenchmarkCompareInt64Scalar(b *testing.B) {
	col := benchInt64Array(memory.DefaultAllocator)
	defer col.Release()
	out := make([]int32, benchRows)
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = CompareScalar(Lt, col, int64(500), nil, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkCompareInt64ScalarSel(b *testing.B) {
	col := benchInt64Array(memory.DefaultAllocator)
	defer col.Release()
	sel, _ := CompareScalar(Lt, col, int64(500), nil, nil)
	out := make([]int32, benchRows)
	b.SetBytes(int64(len(sel)) * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = CompareScalar(Gt, col, int64(250), sel, out)
	}
	reportRows(b, len(sel))
}

func BenchmarkCompareStringScalar(b *testing.B) {
	col := benchStringArray(memory.DefaultAllocator)
	defer col.Release()
	out := make([]int32, benchRows)
	b.SetBytes(int64(len(col.ValueBytes())))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ = CompareScalar(Eq, col, "bidder-mm-xyz", nil, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkTumblingWindow(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	ts := make([]int64, benchRows)
	base := int64(1_700_000_000_000_000)
	for i := range ts {
		ts[i] = base + int64(i)*1000 + rng.Int64N(5_000_000)
	}
	out := make([]int64, benchRows)
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = TumblingWindow(ts, nil, 10_000_000, 0, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkSlidingWindow(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	ts := make([]int64, benchRows)
	for i := range ts {
		ts[i] = 1_700_000_000_000_000 + rng.Int64N(60_000_000)
	}
	var rows []int32
	var starts []int64
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, starts = SlidingWindow(ts, nil, 10_000_000, 2_000_000, 0, rows, starts)
	}
	reportRows(b, benchRows)
}

func BenchmarkHashInt64(b *testing.B) {
	vals := benchInt64s(rand.New(rand.NewPCG(5, 5)))
	out := make([]uint64, benchRows)
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = HashInt64(vals, nil, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkHashString(b *testing.B) {
	col := benchStringArray(memory.DefaultAllocator)
	defer col.Release()
	cols := []arrow.Array{col}
	out := make([]uint64, benchRows)
	b.SetBytes(int64(len(col.ValueBytes())))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = HashColumns(cols, nil, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkHashTwoColumns(b *testing.B) {
	col := benchStringArray(memory.DefaultAllocator)
	defer col.Release()
	ints := benchInt64Array(memory.DefaultAllocator)
	defer ints.Release()
	cols := []arrow.Array{ints, col}
	out := make([]uint64, benchRows)
	b.SetBytes(int64(len(col.ValueBytes())) + benchRows*8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = HashColumns(cols, nil, out)
	}
	reportRows(b, benchRows)
}

func BenchmarkSumInt64ByGroup(b *testing.B) {
	col := benchInt64Array(memory.DefaultAllocator)
	defer col.Release()
	rng := rand.New(rand.NewPCG(6, 6))
	const groups = 1024
	g := make([]uint32, benchRows)
	for i := range g {
		g[i] = uint32(rng.IntN(groups))
	}
	sums := make([]int64, groups)
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		SumInt64(sums, g, col, nil)
	}
	reportRows(b, benchRows)
}

func BenchmarkArithInt64Add(b *testing.B) {
	mem := memory.DefaultAllocator
	x := benchInt64Array(mem)
	defer x.Release()
	y := benchInt64Array(mem)
	defer y.Release()
	b.SetBytes(benchRows * 16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := Arith(mem, Add, x, y)
		r.Release()
	}
	reportRows(b, benchRows)
}

func BenchmarkArithScalarMul(b *testing.B) {
	mem := memory.DefaultAllocator
	x := benchInt64Array(mem)
	defer x.Release()
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _ := ArithScalar(mem, Mul, x, 0.908, false)
		r.Release()
	}
	reportRows(b, benchRows)
}

func BenchmarkTakeInt64(b *testing.B) {
	mem := memory.DefaultAllocator
	x := benchInt64Array(mem)
	defer x.Release()
	idx, _ := CompareScalar(Lt, x, int64(500), nil, nil)
	b.SetBytes(int64(len(idx)) * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Take(mem, x, idx).Release()
	}
	reportRows(b, len(idx))
}

func BenchmarkTakeString(b *testing.B) {
	mem := memory.DefaultAllocator
	x := benchStringArray(mem)
	defer x.Release()
	idx := make([]int32, 0, benchRows)
	for i := 0; i < benchRows; i += 2 {
		idx = append(idx, int32(i))
	}
	b.SetBytes(int64(len(x.ValueBytes())) / 2)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Take(mem, x, idx).Release()
	}
	reportRows(b, len(idx))
}

// The Spark-compatible hashes (hash(), xxhash64()) over an int64 and a
// string column, for the generic column loop of sparkhash.go.
func BenchmarkSparkHash(b *testing.B) {
	ints := benchInt64Array(memory.DefaultAllocator)
	defer ints.Release()
	strs := benchStringArray(memory.DefaultAllocator)
	defer strs.Release()
	h32 := make([]uint32, benchRows)
	h64 := make([]uint64, benchRows)
	for _, col := range []arrow.Array{ints, strs} {
		b.Run("murmur3/"+col.DataType().Name(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := SparkMurmur3(col, h32); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, benchRows)
		})
		b.Run("xxhash64/"+col.DataType().Name(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := SparkXXHash64(col, h64); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b, benchRows)
		})
	}
}
