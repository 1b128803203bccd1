package columnar

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Batch is an Arrow record with an optional selection vector of live rows.
// See the package documentation for the ownership rules.
type Batch struct {
	// Rec holds the columns. It is never nil in a valid Batch.
	Rec arrow.RecordBatch
	// Sel lists live row indices in strictly increasing order; nil means all.
	Sel []int32
}

// NewBatch wraps rec (taking over the caller's reference) with selection sel.
func NewBatch(rec arrow.RecordBatch, sel []int32) Batch {
	return Batch{Rec: rec, Sel: sel}
}

// NumRows returns the number of live rows.
func (b Batch) NumRows() int {
	if b.Sel != nil {
		return len(b.Sel)
	}
	return int(b.Rec.NumRows())
}

// Schema returns the record's schema.
func (b Batch) Schema() *arrow.Schema { return b.Rec.Schema() }

// Column returns column i of the record (not materialised: respect Sel).
func (b Batch) Column(i int) arrow.Array { return b.Rec.Column(i) }

// Retain adds a reference to the record.
func (b Batch) Retain() { b.Rec.Retain() }

// Release drops the holder's reference to the record.
func (b Batch) Release() {
	if b.Rec != nil {
		b.Rec.Release()
	}
}

// WithSel returns a batch sharing b's record (with a new reference) whose
// selection is sel.
func (b Batch) WithSel(sel []int32) Batch {
	b.Rec.Retain()
	return Batch{Rec: b.Rec, Sel: sel}
}

// Validate checks the batch invariants: a record is present and the
// selection is strictly increasing and within bounds.
func (b Batch) Validate() error {
	if b.Rec == nil {
		return fmt.Errorf("columnar: batch has no record")
	}
	n := int32(b.Rec.NumRows())
	prev := int32(-1)
	for i, r := range b.Sel {
		if r <= prev || r >= n {
			return fmt.Errorf("columnar: selection[%d]=%d is not increasing within [0,%d)", i, r, n)
		}
		prev = r
	}
	return nil
}

// Identity returns the selection vector 0..n-1, reusing buf when large enough.
func Identity(buf []int32, n int) []int32 {
	if cap(buf) < n {
		buf = make([]int32, n)
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = int32(i)
	}
	return buf
}
