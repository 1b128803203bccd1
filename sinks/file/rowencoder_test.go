package file

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RowEncoder writes decimals with their scale and types without an encoder
// of their own (a list) as arrow's JSON, in both formats.
func TestRowEncoder(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	b.Field(0).(*array.Decimal128Builder).Append(decimal128.FromI64(58070))
	b.Field(0).AppendNull()
	lb := b.Field(1).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b,c"}, nil)
	lb.AppendNull()
	rec := b.NewRecordBatch()
	defer rec.Release()
	for f, want := range map[Format]string{
		JSONLines: "{\"amount\":580.70,\"tags\":[\"a\",\"b,c\"]}\n{\"amount\":null,\"tags\":null}\n",
		CSV:       "amount,tags\n580.70,\"[\"\"a\"\",\"\"b,c\"\"]\"\n,\n",
	} {
		e, err := NewRowEncoder(sc, f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := e.AppendRows(e.AppendHeader(nil), rec)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != want {
			t.Errorf("%v:\n%s\nwant:\n%s", f, out, want)
		}
	}
}
