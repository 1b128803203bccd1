package pqread

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
)

// skipTestFile writes 8 row groups of 50 rows; in group g, row i: k (int64)
// and i32 (int32) are 100g+i, s is "gGG-II", n is null in even groups and
// 100g+i in odd ones, ts a timestamp and u a uint64, both 100g+i.
func skipTestFile(t *testing.T) []byte {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "i32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "u", Type: arrow.PrimitiveTypes.Uint64},
	}, nil)
	return parquetBytes(t, sc, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(50)), func(b *array.RecordBuilder) {
		for g := 0; g < 8; g++ {
			for i := 0; i < 50; i++ {
				v := int64(100*g + i)
				b.Field(0).(*array.Int64Builder).Append(v)
				b.Field(1).(*array.Int32Builder).Append(int32(v))
				b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("g%02d-%02d", g, i))
				if g%2 == 0 {
					b.Field(3).AppendNull()
				} else {
					b.Field(3).(*array.Int64Builder).Append(v)
				}
				b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
				b.Field(5).(*array.Uint64Builder).Append(uint64(v))
			}
		}
	})
}

// TestSkipRowGroupsByStatistics reads with conditions and checks that
// exactly the row groups whose statistics allow a match are read (all
// their rows, in order), through the direct columns and pqarrow's reader,
// and that columns whose order the reader does not judge (timestamps,
// unsigned) skip nothing.
func TestSkipRowGroupsByStatistics(t *testing.T) {
	data := skipTestFile(t)
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for _, c := range []struct {
		conds  []Cond
		groups []int
	}{
		{nil, all},
		{[]Cond{{"k", ">=", int64(350)}}, []int{4, 5, 6, 7}},
		{[]Cond{{"k", ">", int64(349)}}, []int{4, 5, 6, 7}},
		{[]Cond{{"k", "=", int64(249)}}, []int{2}},
		{[]Cond{{"k", "=", int64(250)}}, nil},
		{[]Cond{{"k", "<", int64(0)}}, nil},
		{[]Cond{{"k", "<=", int64(0)}}, []int{0}},
		{[]Cond{{"i32", "<", int64(100)}}, []int{0}},
		{[]Cond{{"s", ">", "g05"}}, []int{5, 6, 7}},
		{[]Cond{{"s", "=", "g03-07"}}, []int{3}},
		{[]Cond{{"n", ">", int64(0)}}, []int{1, 3, 5, 7}},
		{[]Cond{{"n", "=", int64(149)}}, []int{1}},
		{[]Cond{{"n", "=", int64(150)}}, nil},
		{[]Cond{{"k", ">=", int64(350)}, {"s", "<=", "g05-99"}}, []int{4, 5}},
		{[]Cond{{"ts", ">=", int64(10_000)}}, all},
		{[]Cond{{"u", "<", int64(0)}}, all},
		{[]Cond{{"missing", "=", int64(1)}}, all},
		{[]Cond{{"k", "=", "a string"}}, all},
	} {
		var want []string
		for _, g := range c.groups {
			for i := 0; i < 50; i++ {
				want = append(want, fmt.Sprint(100*g+i))
			}
		}
		for _, direct := range []bool{true, false} {
			for _, batch := range []int64{7, 64} {
				readDirect = direct
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				var got []string
				err := ReadFrom(context.Background(), mem, bytes.NewReader(data), "test", batch,
					func(n string) bool { return n == "k" || n == "s" },
					func(rec arrow.RecordBatch, n int64) error {
						for i := 0; i < int(n); i++ {
							got = append(got, rec.Column(0).ValueStr(i))
						}
						return nil
					}, SkipRowGroups(c.conds))
				readDirect = true
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%v, direct %v, batch %d: read %d rows, want the %d of groups %v", c.conds, direct, batch, len(got), len(want), c.groups)
				}
				mem.AssertSize(t, 0)
			}
		}
	}
}
