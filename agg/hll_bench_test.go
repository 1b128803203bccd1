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

// BenchmarkHLLUpdate measures approx_count_distinct's update: 1M rows (16
// batches of 64K) of int64 or string values into 100 groups, at rsd 0.05
// and 0.01; reported per row. Not run by CI (go test runs no benchmarks):
//
//	go test -run '^$' -bench HLLUpdate -benchmem ./agg/
func BenchmarkHLLUpdate(b *testing.B) {
	const batches, groups = 16, 100
	mem := memory.NewGoAllocator()
	rng := rand.New(rand.NewPCG(7, 8))
	var keys, ints, strs []arrow.Array
	for range batches {
		kb, ib, sb := array.NewInt64Builder(mem), array.NewInt64Builder(mem), array.NewStringBuilder(mem)
		for range benchBatch {
			kb.Append(int64(rng.IntN(groups)))
			v := rng.Int64N(1 << 40)
			ib.Append(v)
			sb.Append(fmt.Sprintf("user-%d", v))
		}
		keys, ints, strs = append(keys, kb.NewArray()), append(ints, ib.NewArray()), append(strs, sb.NewArray())
		kb.Release()
		ib.Release()
		sb.Release()
	}
	defer testutil.ReleaseAll(keys)
	defer testutil.ReleaseAll(ints)
	defer testutil.ReleaseAll(strs)
	for _, c := range []struct {
		name string
		vals []arrow.Array
	}{{"int64", ints}, {"string", strs}} {
		// rsd 0 runs count(col) instead: the cost of the key lookup alone
		for _, rsd := range []float64{0, 0.05, 0.01} {
			name := fmt.Sprintf("%s/rsd=%v", c.name, rsd)
			spec := Spec{Func: ApproxCountDistinct, Name: "n", RSD: rsd}
			if rsd == 0 {
				name, spec = c.name+"/count-baseline", Spec{Func: Count, Name: "n"}
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					tab, err := NewTable([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{c.vals[0].DataType()},
						[]Spec{spec})
					if err != nil {
						b.Fatal(err)
					}
					for i := range keys {
						if err := tab.Update(keys[i:i+1], c.vals[i:i+1], nil); err != nil {
							b.Fatal(err)
						}
					}
				}
				rows := float64(batches * benchBatch)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
				b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
			})
		}
	}
}
