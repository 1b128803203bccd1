package kernels

import (
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestConformTimestamps rescales (flooring) and relabels timestamps, also
// of a slice with a non-zero offset, as a Parquet read needs.
func TestConformTimestamps(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	defer b.Release()
	b.AppendValues([]arrow.Timestamp{-1500, 2500, 0, 4999}, []bool{true, true, false, true})
	full := b.NewArray()
	defer full.Release()
	sliced := array.NewSlice(full, 1, 4) // non-zero offset
	defer sliced.Release()
	for _, tc := range []struct {
		in   arrow.Array
		want arrow.DataType
		out  string
	}{
		{full, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "-2|2|null|4"},
		{sliced, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, "2|null|4"},
		{sliced, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, "2500|null|4999"},
	} {
		got, err := Conform(mem, tc.in, tc.want)
		if err != nil {
			t.Fatal(err)
		}
		var cells []string
		ts := got.(*array.Timestamp)
		for i := 0; i < got.Len(); i++ {
			if ts.IsNull(i) {
				cells = append(cells, "null")
			} else {
				cells = append(cells, strconv.FormatInt(int64(ts.Value(i)), 10))
			}
		}
		if s := strings.Join(cells, "|"); s != tc.out || !arrow.TypeEqual(got.DataType(), tc.want) {
			t.Errorf("Conform → %s %s, want %s", s, got.DataType(), tc.out)
		}
		got.Release()
	}
}

// TestConformRefuses names both types when the layouts differ.
func TestConformRefuses(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt32Builder(mem)
	defer b.Release()
	b.Append(1)
	a := b.NewArray()
	defer a.Release()
	_, err := Conform(mem, a, arrow.BinaryTypes.String)
	if err == nil || err.Error() != "type int32 cannot be read as utf8" {
		t.Fatalf("err = %v", err)
	}
}
