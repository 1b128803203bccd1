package arrowgen

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Render returns row i of a as text, walking nested values one by one:
// "null" for a null at any level, lists as [v, ...], structs as
// {name: v, ...}, maps as their entries, dictionaries as the value their
// index names, floats by their bits (so NaN and -0 compare exactly), bytes
// quoted, and other values by ValueStr. Two rows render alike exactly when
// they hold the same logical value.
func Render(a arrow.Array, i int) string {
	var sb strings.Builder
	render(&sb, a, i)
	return sb.String()
}

func render(sb *strings.Builder, a arrow.Array, i int) {
	if a.IsNull(i) || a.DataType().ID() == arrow.NULL {
		sb.WriteString("null")
		return
	}
	switch a := a.(type) {
	case *array.Struct:
		sb.WriteByte('{')
		for f := 0; f < a.NumField(); f++ {
			if f > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(a.DataType().(*arrow.StructType).Field(f).Name + ": ")
			render(sb, a.Field(f), i)
		}
		sb.WriteByte('}')
	case *array.Dictionary:
		sb.WriteString("dict(")
		render(sb, a.Dictionary(), a.GetValueIndex(i))
		sb.WriteByte(')')
	case array.ListLike:
		s, e := a.ValueOffsets(i)
		sb.WriteByte('[')
		for j := s; j < e; j++ {
			if j > s {
				sb.WriteString(", ")
			}
			render(sb, a.ListValues(), int(j))
		}
		sb.WriteByte(']')
	case array.ExtensionArray:
		sb.WriteString("ext(")
		render(sb, a.Storage(), i)
		sb.WriteByte(')')
	case *array.Float64:
		fmt.Fprintf(sb, "f%x", math.Float64bits(a.Value(i)))
	case *array.Float32:
		fmt.Fprintf(sb, "f%x", math.Float32bits(a.Value(i)))
	case *array.Float16:
		fmt.Fprintf(sb, "f%x", a.Value(i).Uint16())
	case *array.Binary:
		fmt.Fprintf(sb, "%q", a.Value(i))
	case *array.LargeBinary:
		fmt.Fprintf(sb, "%q", a.Value(i))
	case *array.FixedSizeBinary:
		fmt.Fprintf(sb, "%q", a.Value(i))
	case *array.String:
		fmt.Fprintf(sb, "%q", a.Value(i))
	case *array.LargeString:
		fmt.Fprintf(sb, "%q", a.Value(i))
	case *array.StringView:
		fmt.Fprintf(sb, "%q", a.Value(i))
	default:
		sb.WriteString(a.ValueStr(i))
	}
}

// Rows renders every row of a.
func Rows(a arrow.Array) []string {
	out := make([]string, a.Len())
	for i := range out {
		out[i] = Render(a, i)
	}
	return out
}

// Validate runs arrow's ValidateFull on a and on every array nested in it,
// and checks that each level's null count matches its validity bitmap.
func Validate(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return fmt.Errorf("%s: %w", a.DataType(), err)
		}
	}
	if a.DataType().ID() != arrow.NULL {
		nulls := 0
		for i := 0; i < a.Len(); i++ {
			if a.IsNull(i) {
				nulls++
			}
		}
		if nulls != a.NullN() {
			return fmt.Errorf("%s: NullN %d but %d slots are null", a.DataType(), a.NullN(), nulls)
		}
	}
	var children []arrow.Array
	switch a := a.(type) {
	case *array.Struct:
		for f := 0; f < a.NumField(); f++ {
			children = append(children, a.Field(f))
		}
	case *array.Dictionary:
		children = append(children, a.Indices(), a.Dictionary())
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) && (a.GetValueIndex(i) < 0 || a.GetValueIndex(i) >= a.Dictionary().Len()) {
				return fmt.Errorf("%s: row %d: index %d outside the dictionary of %d", a.DataType(), i, a.GetValueIndex(i), a.Dictionary().Len())
			}
		}
	case array.ListLike:
		children = append(children, a.ListValues())
	case array.ExtensionArray:
		children = append(children, a.Storage())
	}
	for _, c := range children {
		if err := Validate(c); err != nil {
			return err
		}
	}
	return nil
}
