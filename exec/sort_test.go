package exec

import (
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/plan"
)

// TestSortOrders checks the order of ORDER BY as Spark gives it: nulls
// first ascending and last descending unless told, NaN above every
// number, ties kept in input order, across several input records, and
// the limit.
func TestSortOrders(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	mk := func(fs []any, ss []string) arrow.RecordBatch {
		fb, sb := array.NewFloat64Builder(mem), array.NewStringBuilder(mem)
		defer fb.Release()
		defer sb.Release()
		for i, f := range fs {
			if f == nil {
				fb.AppendNull()
			} else {
				fb.Append(f.(float64))
			}
			sb.Append(ss[i])
		}
		cols := []arrow.Array{fb.NewArray(), sb.NewArray()}
		defer testutil.ReleaseAll(cols)
		return array.NewRecordBatch(schema, cols, int64(len(fs)))
	}
	recs := []arrow.RecordBatch{
		mk([]any{2.0, nil, math.NaN()}, []string{"a", "b", "c"}),
		mk([]any{-1.0, 2.0, nil}, []string{"d", "e", "f"}),
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	f := plan.ColumnRef{Name: "f"}
	for _, c := range []struct {
		keys  []plan.SortKey
		limit int64
		want  string
	}{
		{[]plan.SortKey{{E: f, NullsFirst: true}}, -1, "b f d a e c"},
		{[]plan.SortKey{{E: f}}, -1, "d a e c b f"},
		{[]plan.SortKey{{E: f, Desc: true}}, -1, "c a e d b f"},
		{[]plan.SortKey{{E: f, Desc: true, NullsFirst: true}}, 3, "b f c"},
		{[]plan.SortKey{{E: f, Desc: true}, {E: plan.ColumnRef{Name: "s"}, Desc: true}}, 4, "c e a d"},
		{nil, 2, "a b"},
	} {
		n, err := plan.NewSort(schemaNode{schema}, c.keys, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := checkSort(n, mode("Complete"), true, true)
		if err != nil {
			t.Fatal(err)
		}
		out, err := spec.apply(mem, schema, recs)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := 0; i < int(out.NumRows()); i++ {
			got = append(got, out.Column(1).(*array.String).Value(i))
		}
		out.Release()
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: %s, want %s", n.Describe(), g, c.want)
		}
	}
}

// mode is an output mode by name, for checkSort.
type mode string

func (m mode) String() string { return string(m) }
