package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/testutil"
)

const benchBatch = 64 << 10

// benchData holds pre-built batches: a key column and an int64 value column.
type benchData struct {
	keys []arrow.Array
	vals []arrow.Array
}

func (d *benchData) release() {
	testutil.ReleaseAll(d.keys)
	testutil.ReleaseAll(d.vals)
}

func makeBenchData(keyType arrow.DataType, distinct, batches int) *benchData {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(42, uint64(distinct)))
	d := &benchData{}
	for b := 0; b < batches; b++ {
		vb := array.NewInt64Builder(mem)
		for i := 0; i < benchBatch; i++ {
			vb.Append(int64(rng.IntN(1000)))
		}
		d.vals = append(d.vals, vb.NewArray())
		vb.Release()
		switch keyType.ID() {
		case arrow.INT64:
			kb := array.NewInt64Builder(mem)
			for i := 0; i < benchBatch; i++ {
				kb.Append(int64(rng.IntN(distinct)) * 1_000_003)
			}
			d.keys = append(d.keys, kb.NewArray())
			kb.Release()
		case arrow.STRING:
			kb := array.NewStringBuilder(mem)
			for i := 0; i < benchBatch; i++ {
				kb.Append(fmt.Sprintf("user-%07d", rng.IntN(distinct)))
			}
			d.keys = append(d.keys, kb.NewArray())
			kb.Release()
		}
	}
	return d
}

var benchCases = []struct {
	name     string
	keyType  arrow.DataType
	distinct int
	batches  int
}{
	{"int64/1K", arrow.PrimitiveTypes.Int64, 1 << 10, 4},
	{"int64/1M", arrow.PrimitiveTypes.Int64, 1 << 20, 32},
	{"string/1K", arrow.BinaryTypes.String, 1 << 10, 4},
}

func reportRows(b *testing.B) {
	b.ReportMetric(float64(b.N)*benchBatch/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCountSum groups 64K-row batches by one key and computes count(*)
// and sum(v), with this package's Table and with a plain Go map.
func BenchmarkCountSum(b *testing.B) {
	for _, bc := range benchCases {
		d := makeBenchData(bc.keyType, bc.distinct, bc.batches)
		b.Run(bc.name+"/table", func(b *testing.B) {
			t, err := NewTable([]arrow.DataType{bc.keyType}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
				[]Spec{{Func: CountAll, Name: "n"}, {Func: Sum, Arg: 0, Name: "s"}})
			if err != nil {
				b.Fatal(err)
			}
			for i := range d.keys { // warm: every key present
				_ = t.Update(d.keys[i:i+1], d.vals[i:i+1], nil)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % len(d.keys)
				if err := t.Update(d.keys[j:j+1], d.vals[j:j+1], nil); err != nil {
					b.Fatal(err)
				}
			}
			reportRows(b)
		})
		b.Run(bc.name+"/gomap", func(b *testing.B) {
			var counts, sums []int64
			if bc.keyType.ID() == arrow.INT64 {
				m := map[int64]int{}
				run := func(k, v *array.Int64) {
					vals := v.Int64Values()
					for r, key := range k.Int64Values() {
						g, ok := m[key]
						if !ok {
							g = len(counts)
							m[key] = g
							counts = append(counts, 0)
							sums = append(sums, 0)
						}
						counts[g]++
						sums[g] += vals[r]
					}
				}
				for i := range d.keys {
					run(d.keys[i].(*array.Int64), d.vals[i].(*array.Int64))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := i % len(d.keys)
					run(d.keys[j].(*array.Int64), d.vals[j].(*array.Int64))
				}
			} else {
				m := map[string]int{}
				run := func(k *array.String, v *array.Int64) {
					vals := v.Int64Values()
					for r := range vals {
						key := k.Value(r)
						g, ok := m[key]
						if !ok {
							g = len(counts)
							m[string([]byte(key))] = g
							counts = append(counts, 0)
							sums = append(sums, 0)
						}
						counts[g]++
						sums[g] += vals[r]
					}
				}
				for i := range d.keys {
					run(d.keys[i].(*array.String), d.vals[i].(*array.Int64))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := i % len(d.keys)
					run(d.keys[j].(*array.String), d.vals[j].(*array.Int64))
				}
			}
			reportRows(b)
		})
		d.release()
	}
}

// BenchmarkFindOrInsert measures the hash table alone (no aggregates).
func BenchmarkFindOrInsert(b *testing.B) {
	for _, bc := range benchCases {
		d := makeBenchData(bc.keyType, bc.distinct, bc.batches)
		b.Run(bc.name, func(b *testing.B) {
			h, _ := NewHashTable([]arrow.DataType{bc.keyType})
			var groups []uint32
			for i := range d.keys {
				groups = h.FindOrInsert(d.keys[i:i+1], nil, groups)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % len(d.keys)
				groups = h.FindOrInsert(d.keys[j:j+1], nil, groups)
			}
			reportRows(b)
		})
		d.release()
	}
}

// BenchmarkGenericTwoKeys groups by (timestamp window start, int64) through
// the generic multi-column path.
func BenchmarkGenericTwoKeys(b *testing.B) {
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(1, 1))
	tb := array.NewTimestampBuilder(mem, tsType)
	kb := array.NewInt64Builder(mem)
	for i := 0; i < benchBatch; i++ {
		tb.Append(arrow.Timestamp(rng.IntN(4) * 60_000_000))
		kb.Append(int64(rng.IntN(256)))
	}
	keys := []arrow.Array{tb.NewArray(), kb.NewArray()}
	defer testutil.ReleaseAll(keys)
	tb.Release()
	kb.Release()
	t, _ := NewTable([]arrow.DataType{tsType, arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
		[]Spec{{Func: CountAll, Name: "n"}, {Func: Sum, Arg: 0, Name: "s"}})
	args := keys[1:]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := t.Update(keys, args, nil); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b)
}
