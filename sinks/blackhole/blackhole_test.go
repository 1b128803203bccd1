package blackhole

import (
	"context"
	"github.com/millrace/millrace/internal/testutil"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/sinks"
)

var schema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
}, nil)

func randomRecord(mem memory.Allocator, r *rand.Rand, n int, nulls bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	strs := []string{"", "a", "hello world, long enough", "ü"}
	for i := 0; i < n; i++ {
		if nulls && r.IntN(4) == 0 {
			for c := range schema.Fields() {
				b.Field(c).AppendNull()
			}
			continue
		}
		b.Field(0).(*array.Int64Builder).Append(r.Int64N(1000) - 500)
		b.Field(1).(*array.Float64Builder).Append(float64(r.IntN(100)) / 4)
		b.Field(2).(*array.StringBuilder).Append(strs[r.IntN(len(strs))])
		b.Field(3).(*array.BooleanBuilder).Append(r.IntN(2) == 0)
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(r.Int64N(1e12)))
		b.Field(5).(*array.Int32Builder).Append(int32(r.IntN(7)))
	}
	return b.NewRecordBatch()
}

// oracle checksums rows one value at a time through the public accessors.
func oracle(rec arrow.RecordBatch) uint64 {
	var sum uint64
	for c, col := range rec.Columns() {
		var s uint64
		trues, valid := uint64(0), uint64(0)
		for i := 0; i < col.Len(); i++ {
			if col.IsNull(i) {
				continue
			}
			switch a := col.(type) {
			case *array.Int64:
				s += mix(uint64(a.Value(i)))
			case *array.Int32:
				s += mix(uint64(a.Value(i)))
			case *array.Float64:
				s += mix(math.Float64bits(a.Value(i)))
			case *array.Timestamp:
				s += mix(uint64(a.Value(i)))
			case *array.String:
				s += sumBytes([]int32{0, int32(len(a.Value(i)))}, []byte(a.Value(i)), nil, 0)
			case *array.Boolean:
				valid++
				if a.Value(i) {
					trues++
				}
			}
		}
		if _, ok := col.(*array.Boolean); ok {
			s = trues*0x9E3779B97F4A7C15 + valid
		}
		sum += s * (2*uint64(c) + 1)
	}
	return sum
}

func TestChecksumMatchesOracleAndIgnoresSplitting(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 16, 1024, 5000} {
		for _, nulls := range []bool{false, true} {
			rec := randomRecord(mem, r, n, nulls)
			whole := RecordChecksum(rec)
			if o := oracle(rec); whole != o {
				t.Fatalf("n=%d nulls=%v: checksum %x, oracle %x", n, nulls, whole, o)
			}
			// Slices (non-zero offsets) add up to the whole.
			var parts uint64
			for lo := 0; lo < n; lo += 7 {
				hi := min(lo+7, n)
				sl := rec.NewSlice(int64(lo), int64(hi))
				if o := oracle(sl); RecordChecksum(sl) != o {
					t.Fatalf("slice [%d,%d) differs from oracle", lo, hi)
				}
				parts += RecordChecksum(sl)
				sl.Release()
			}
			if parts != whole {
				t.Fatalf("n=%d nulls=%v: sliced checksum %x, whole %x", n, nulls, parts, whole)
			}
			rec.Release()
		}
	}
}

func TestSinkCountsCommittedBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(5, 6))
	rec := randomRecord(mem, r, 100, true)
	defer rec.Release()
	s := testutil.Must(New())
	ctx := context.Background()
	for id, commit := range []bool{true, false, true} {
		w, _ := s.Begin(ctx, sinks.BatchInfo{BatchID: int64(id), Schema: schema})
		if w.Skip() {
			t.Fatal("blackhole skipped a batch")
		}
		w.Write(ctx, rec)
		if commit {
			w.Commit(ctx)
		} else {
			w.Abort()
		}
	}
	if s.Rows() != 200 || s.Batches() != 2 || s.Checksum() != 2*RecordChecksum(rec) {
		t.Fatalf("rows %d batches %d checksum %x", s.Rows(), s.Batches(), s.Checksum())
	}
}

func BenchmarkBlackholeWrite(b *testing.B) {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(7, 8))
	rec := randomRecord(mem, r, 8192, false)
	defer rec.Release()
	s := testutil.Must(New())
	ctx := context.Background()
	w, _ := s.Begin(ctx, sinks.BatchInfo{})
	start := time.Now()
	for b.Loop() {
		w.Write(ctx, rec)
	}
	b.ReportMetric(float64(b.N)*8192/time.Since(start).Seconds(), "rows/s")
}

// TestHashBytesReadsEveryByte checks that changing any one byte of a value,
// or its length, changes its hash, for lengths around every block edge.
func TestHashBytesReadsEveryByte(t *testing.T) {
	seen := map[uint64]string{}
	add := func(v []byte) {
		h := hashBytes(v)
		if prev, ok := seen[h]; ok && prev != string(v) {
			t.Fatalf("%q and %q hash alike", prev, v)
		}
		seen[h] = string(v)
	}
	base := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789", 3))
	for n := 0; n <= len(base); n++ {
		v := base[:n]
		add(v)
		for i := range v {
			w := append([]byte(nil), v...)
			w[i] ^= 0x20
			add(w)
		}
	}
}
