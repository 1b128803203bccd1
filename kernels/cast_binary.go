package kernels

import (
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// castBinary converts between binary and string, as Spark's CAST: string →
// binary keeps the UTF-8 bytes; binary → string reads the bytes as UTF-8,
// with each invalid sequence replaced by U+FFFD (Spark keeps the raw
// bytes, which an Arrow string must not hold: see textdecode's rule for
// invalid UTF-8). Both share a's buffers when no byte changes. ok is false
// for other types.
func castBinary(mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, bool) {
	from := a.DataType().ID()
	switch {
	case from == arrow.STRING && to.ID() == arrow.BINARY:
		return sameLayout(a, arrow.BinaryTypes.Binary), true
	case from == arrow.BINARY && to.ID() == arrow.STRING:
		b := a.(*array.Binary)
		valid := true
		for i := 0; i < b.Len() && valid; i++ {
			valid = b.IsNull(i) || utf8.Valid(b.Value(i))
		}
		if valid {
			return sameLayout(a, arrow.BinaryTypes.String), true
		}
		sb := array.NewStringBuilder(mem)
		defer sb.Release()
		sb.Reserve(b.Len())
		for i := 0; i < b.Len(); i++ {
			if b.IsNull(i) {
				sb.AppendNull()
				continue
			}
			sb.Append(strings.ToValidUTF8(string(b.Value(i)), "\uFFFD"))
		}
		return sb.NewArray(), true
	}
	return nil, false
}

// sameLayout returns a's data under another type with the same buffers
// (binary and string; relabel in conform.go only renames within a type).
func sameLayout(a arrow.Array, to arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(to, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}
