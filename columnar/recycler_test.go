package columnar

import (
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestRecyclerReuses(t *testing.T) {
	t.Setenv(PoisonEnv, "0") // make test poisons
	r := NewRecycler(1 << 20)
	b := r.Allocate(1000)
	if len(b) != 1000 || cap(b) != 1024 || uintptr(unsafe.Pointer(&b[0]))%64 != 0 {
		t.Fatalf("len %d cap %d, aligned %v", len(b), cap(b), uintptr(unsafe.Pointer(&b[0]))%64 == 0)
	}
	for i := range b {
		b[i] = 7
	}
	r.Free(b)
	// the unzeroed view hands the same buffer back as it was
	u := r.Unzeroed().Allocate(900)
	if &u[0] != &b[0] || u[899] != 7 {
		t.Fatalf("not the freed buffer, or its bytes were changed")
	}
	r.Free(u)
	// Allocate zeroes it
	z := r.Allocate(1024)
	if &z[0] != &b[0] || z[0] != 0 || z[1023] != 0 {
		t.Fatalf("a recycled buffer was not zeroed")
	}
	// growing keeps the contents and zeroes the rest
	z[0] = 1
	g := r.Reallocate(5000, z)
	if g[0] != 1 || g[4999] != 0 || len(g) != 5000 {
		t.Fatalf("Reallocate lost the contents")
	}
	if allocs, reused := r.Counts(); allocs != 4 || reused != 2 {
		t.Fatalf("%d allocations, %d reused; want 4, 2", allocs, reused)
	}
	// beyond the limit, freed buffers are left to the GC
	big := r.Allocate(2 << 20)
	r.Free(big)
	if r.held > r.limit {
		t.Fatalf("holds %d bytes, limit %d", r.held, r.limit)
	}
	// buffers not of a class size are not kept
	r.Free(make([]byte, 100))
	if n := len(r.free[7]); n != 0 {
		t.Fatalf("kept a foreign buffer")
	}
}

func TestRecyclerPoisons(t *testing.T) {
	t.Setenv(PoisonEnv, "1")
	r := NewRecycler(1 << 20)
	b := r.Unzeroed().Allocate(100)
	if b[0] != 0xA5 || b[99] != 0xA5 {
		t.Fatalf("a fresh unzeroed buffer is not filled with garbage")
	}
	r.Free(b)
	if b[0] != 0xDB || b[99] != 0xDB {
		t.Fatalf("a freed buffer is not poisoned")
	}
	if c := r.Allocate(100); &c[0] == &b[0] || c[0] != 0 {
		t.Fatalf("a poisoned buffer came back")
	}
	// an Arrow buffer released to it is poisoned
	buf := memory.NewResizableBuffer(r)
	buf.Resize(64)
	bytes := buf.Bytes()
	buf.Release()
	if bytes[0] != 0xDB {
		t.Fatalf("released Arrow buffer not poisoned")
	}
}
