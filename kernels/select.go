package kernels

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// SelectNull returns the rows of sel (every row when nil) where col is null
// (IS NULL).
func SelectNull(col arrow.Array, sel []int32, out []int32) []int32 {
	bm, off := validity(col)
	if bm == nil {
		if col.DataType().ID() == arrow.NULL {
			return selectAll(sel, col.Len(), out)
		}
		return growInt32(out, 0)
	}
	return selectBitmap(bm, off, col.Len(), sel, out, 0)
}

// SelectNotNull returns the rows of sel (every row when nil) where col is
// not null (IS NOT NULL).
func SelectNotNull(col arrow.Array, sel []int32, out []int32) []int32 {
	bm, off := validity(col)
	if bm == nil {
		if col.DataType().ID() == arrow.NULL {
			return growInt32(out, 0)
		}
		return selectAll(sel, col.Len(), out)
	}
	return selectBitmap(bm, off, col.Len(), sel, out, 1)
}

// SelectTrue returns the rows of sel where col is true (and not null).
func SelectTrue(col *array.Boolean, sel []int32, out []int32) []int32 {
	return selectBit(col, sel, out, 1)
}

// SelectFalse returns the rows of sel where col is false (and not null).
func SelectFalse(col *array.Boolean, sel []int32, out []int32) []int32 {
	return selectBit(col, sel, out, 0)
}

// selectBit selects the non-null rows of a boolean column whose value is want.
func selectBit(col *array.Boolean, sel, out []int32, want int) []int32 {
	bm, off := boolBits(col)
	out = selectBitmap(bm, off, col.Len(), sel, out, want)
	if vbm, voff := validity(col); vbm != nil {
		out = filterValid(out, vbm, voff)
	}
	return out
}

// selectBitmap selects the live rows whose bit in bm (at bit offset off) is
// want (0 or 1).
func selectBitmap(bm []byte, off, n int, sel, out []int32, want int) []int32 {
	flip := want ^ 1
	k := 0
	if sel == nil {
		out = growInt32(out, n)
		for i := range out {
			out[k] = int32(i)
			k += bitAt(bm, off+i) ^ flip
		}
		return out[:k]
	}
	out = growInt32(out, len(sel))
	for _, r := range sel {
		out[k] = r
		k += bitAt(bm, off+int(r)) ^ flip
	}
	return out[:k]
}

// Union returns the sorted union of the selections a and b without
// duplicates (OR of two predicates). out must not alias a or b.
func Union(a, b []int32, out []int32) []int32 {
	out = growInt32(out, len(a)+len(b))
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		x, y := a[i], b[j]
		switch {
		case x < y:
			out[k] = x
			i++
		case y < x:
			out[k] = y
			j++
		default:
			out[k] = x
			i++
			j++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	k += copy(out[k:], b[j:])
	return out[:k]
}

// Difference returns the rows of a that are not in b (both sorted). With a
// as the domain and b a predicate's result it computes NOT for columns
// without nulls. out may alias a but not b.
func Difference(a, b []int32, out []int32) []int32 {
	out = growInt32(out, len(a))
	j, k := 0, 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		out[k] = x
		k += b2i(j >= len(b) || b[j] != x)
	}
	return out[:k]
}
