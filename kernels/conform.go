package kernels

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// Conform returns a new reference to an array of type want holding arr's
// values, for columns read from a file whose type differs from the
// schema's only in what Parquet does not keep: arr itself when the types
// are equal, arr relabelled when only field names, nullability or time
// zones differ (nested types included), top-level timestamps rescaled
// (Cast, flooring) when units differ. Anything else is an error naming both
// types; callers add the file and column.
func Conform(mem memory.Allocator, arr arrow.Array, want arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), want) {
		arr.Retain()
		return arr, nil
	}
	hts, ok1 := arr.DataType().(*arrow.TimestampType)
	wts, ok2 := want.(*arrow.TimestampType)
	if ok1 && ok2 && hts.Unit != wts.Unit {
		return Cast(mem, arr, want)
	}
	d, err := relabel(arr.Data(), want)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// relabel returns data with type want when only names, nullability or
// time zones differ.
func relabel(d arrow.ArrayData, want arrow.DataType) (arrow.ArrayData, error) {
	have := d.DataType()
	if have.ID() != want.ID() {
		return nil, fmt.Errorf("type %s cannot be read as %s", columnar.TypeName(have), columnar.TypeName(want))
	}
	if ts, ok := have.(*arrow.TimestampType); ok && ts.Unit != want.(*arrow.TimestampType).Unit {
		return nil, fmt.Errorf("nested timestamp unit %s cannot be read as %s", have, want)
	}
	var wantChildren []arrow.DataType
	switch w := want.(type) {
	case *arrow.StructType:
		for _, f := range w.Fields() {
			wantChildren = append(wantChildren, f.Type)
		}
	case *arrow.ListType:
		wantChildren = []arrow.DataType{w.Elem()}
	case *arrow.MapType:
		wantChildren = []arrow.DataType{w.Elem()}
	}
	if len(wantChildren) != len(d.Children()) {
		return nil, fmt.Errorf("type %s cannot be read as %s", columnar.TypeName(have), columnar.TypeName(want))
	}
	children := make([]arrow.ArrayData, 0, len(wantChildren))
	defer func() { columnar.ReleaseAll(children) }()
	for i, c := range d.Children() {
		nc, err := relabel(c, wantChildren[i])
		if err != nil {
			return nil, err
		}
		children = append(children, nc)
	}
	return array.NewData(want, d.Len(), d.Buffers(), children, d.NullN(), d.Offset()), nil
}
