package columnar

import (
	"math/bits"
	"os"
	"sync"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Recycler is an Arrow allocator that keeps the buffers released to it and
// hands them out again: every query's default allocator (exec). A query that allocates every batch afresh makes
// Go's allocator zero new memory and fault its pages in, batch after batch,
// and leaves the garbage collector to find the old ones; the file source's
// Parquet batches were 10-20 % of a scan's CPU in that, a filter's
// temporaries another 8 % of Nexmark q2's (BENCHMARKS "Buffer reuse"). A
// recycled buffer is also likely still in cache.
//
// Reuse is only safe when every holder of a buffer's bytes holds a
// reference (Retain) to its array: a value read out of an array without a
// copy (array.String.Value aliases the buffer) must not outlive the
// array's Release. The poisoned test suite found three places that kept
// one (the console sink's cells, a function's literal argument cast to a
// string, the test recorder's rows); they copy now. With MILLRACE_POISON_FREED=1 in the environment (set by
// `make test`), a released buffer is overwritten with 0xDB bytes and never
// reused, and Unzeroed allocations come filled with 0xA5, so that tests
// reading a released value or an unwritten byte see garbage instead of
// passing by luck.
//
// Buffers are kept by size class (powers of two from 64 bytes); at most
// limit bytes are kept, the rest are left to the garbage collector. A
// Recycler is safe for concurrent use.
type Recycler struct {
	mu     sync.Mutex
	free   [maxClass + 1][][]byte
	held   int // bytes in free
	limit  int
	poison bool

	// counts, for tests and benchmarks
	allocs, reused int
}

const (
	minClass = 6  // 64 bytes
	maxClass = 30 // 1 GiB: larger buffers are not kept
)

// PoisonEnv names the environment variable that makes new Recyclers poison
// released buffers instead of reusing them.
const PoisonEnv = "MILLRACE_POISON_FREED"

// NewRecycler returns a Recycler keeping at most limit bytes of released
// buffers.
func NewRecycler(limit int) *Recycler {
	return &Recycler{limit: limit, poison: os.Getenv(PoisonEnv) == "1"}
}

// Allocate returns a zeroed buffer of size bytes, as memory.GoAllocator
// does (arrow-go's builders rely on it).
func (r *Recycler) Allocate(size int) []byte {
	b, recycled := r.get(size)
	if recycled {
		clear(b)
	}
	return b
}

// Reallocate grows b to size bytes, keeping its contents; new bytes are
// zeroed.
func (r *Recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free takes back a buffer this Recycler allocated.
func (r *Recycler) Free(b []byte) {
	b = b[:cap(b)]
	c := bits.Len(uint(len(b))) - 1
	if len(b) == 0 || 1<<c != len(b) || c < minClass || c > maxClass {
		return // not one of ours (or not a class size): the GC's
	}
	if r.poison {
		for i := range b {
			b[i] = 0xDB
		}
		return
	}
	r.mu.Lock()
	if r.held+len(b) <= r.limit {
		r.free[c] = append(r.free[c], b)
		r.held += len(b)
	}
	r.mu.Unlock()
}

// Unzeroed returns a view of r whose Allocate and Reallocate leave a
// recycled buffer's old bytes in place: for callers that write every byte
// they allocate (the Parquet reader's direct columns). Buffers go back to r.
func (r *Recycler) Unzeroed() memory.Allocator { return unzeroed{r} }

// Counts returns how many buffers r handed out and how many of those were
// reused.
func (r *Recycler) Counts() (allocs, reused int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.allocs, r.reused
}

// get returns a buffer of size bytes (capacity its class size), and
// whether it was recycled.
func (r *Recycler) get(size int) ([]byte, bool) {
	c := max(minClass, bits.Len(uint(max(size, 1)-1)))
	if c > maxClass {
		return memory.DefaultAllocator.Allocate(size), false
	}
	r.mu.Lock()
	r.allocs++
	if n := len(r.free[c]); n > 0 {
		b := r.free[c][n-1]
		r.free[c][n-1] = nil
		r.free[c] = r.free[c][:n-1]
		r.held -= len(b)
		r.reused++
		r.mu.Unlock()
		return b[:size], true
	}
	r.mu.Unlock()
	return alignedClass(c)[:size], false
}

// alignedClass returns a new zeroed buffer of 1<<c bytes whose start is
// 64-byte aligned, as Arrow's allocators give.
func alignedClass(c int) []byte {
	n := 1 << c
	raw := make([]byte, n+63)
	shift := int(-uintptr(unsafe.Pointer(&raw[0])) & 63)
	return raw[shift : shift+n : shift+n]
}

type unzeroed struct{ r *Recycler }

func (u unzeroed) Allocate(size int) []byte {
	b, recycled := u.r.get(size)
	if u.r.poison && !recycled {
		for i := range b {
			b[i] = 0xA5
		}
	}
	return b
}

func (u unzeroed) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := u.Allocate(size)
	copy(nb, b)
	u.r.Free(b)
	return nb
}

func (u unzeroed) Free(b []byte) { u.r.Free(b) }

var (
	_ memory.Allocator = (*Recycler)(nil)
	_ memory.Allocator = unzeroed{}
)
