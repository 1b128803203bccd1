package exec

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/agg"
)

// TestIntKeyEncodingMatches holds appendIntKey (the aggregation's direct
// delta encoding) to columnar.EncodeKeys, which restores decode with:
// every integer key type, nulls included.
func TestIntKeyEncodingMatches(t *testing.T) {
	mem := memory.DefaultAllocator
	types := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32,
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, arrow.FixedWidthTypes.Date32}
	ht, err := agg.NewHashTable(types)
	if err != nil {
		t.Fatal(err)
	}
	i64 := array.NewInt64Builder(mem)
	i32 := array.NewInt32Builder(mem)
	ts := array.NewTimestampBuilder(mem, types[2].(*arrow.TimestampType))
	d32 := array.NewDate32Builder(mem)
	for i, v := range []int64{-1 << 62, -1, 0, 1, 1 << 62, 7} {
		if i == 5 {
			i64.AppendNull()
			i32.AppendNull()
			ts.AppendNull()
			d32.AppendNull()
			continue
		}
		i64.Append(v)
		i32.Append(int32(v >> 33))
		if i == 2 {
			ts.AppendNull()
		} else {
			ts.Append(arrow.Timestamp(v))
		}
		d32.Append(arrow.Date32(v >> 40))
	}
	cols := []arrow.Array{i64.NewArray(), i32.NewArray(), ts.NewArray(), d32.NewArray()}
	groups, err := ht.Lookup(cols, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeGroupKeys(ht, groups)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range groups {
		got := appendIntKey(nil, ht, len(types), g)
		n, k := binary.Uvarint(got)
		if int(n) != len(got)-k || !bytes.Equal(got[k:], want[i]) {
			t.Errorf("group %d: appendIntKey %x, EncodeKeys %x", g, got, want[i])
		}
	}
}
