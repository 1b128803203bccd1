package kernels

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Binary ↔ string casts keep the bytes; invalid UTF-8 becomes U+FFFD;
// nulls stay null; slices keep their offset.
func TestCastBinaryString(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer bb.Release()
	bb.AppendValues([][]byte{[]byte("skip"), []byte("héllo"), nil, []byte("caf\xe9"), []byte("")}, []bool{true, true, false, true, true})
	full := bb.NewArray()
	defer full.Release()
	bin := array.NewSlice(full, 1, 5)
	defer bin.Release()

	s, err := Cast(mem, bin, arrow.BinaryTypes.String)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	str := s.(*array.String)
	want := []string{"héllo", "", "caf\uFFFD", ""}
	for i, w := range want {
		if i == 1 {
			if !str.IsNull(i) {
				t.Fatalf("row 1 is %q, want null", str.Value(i))
			}
			continue
		}
		if str.IsNull(i) || str.Value(i) != w {
			t.Fatalf("row %d = %q (null %v), want %q", i, str.Value(i), str.IsNull(i), w)
		}
	}

	valid := array.NewSlice(full, 1, 3) // "héllo", null: shared buffers
	defer valid.Release()
	vs, err := Cast(mem, valid, arrow.BinaryTypes.String)
	if err != nil {
		t.Fatal(err)
	}
	defer vs.Release()
	back, err := Cast(mem, vs, arrow.BinaryTypes.Binary)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	if !array.Equal(back, valid) {
		t.Fatalf("string → binary = %v, want %v", back, valid)
	}
}
