package join

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

// batchSizes are the sizes every operator test replays over.
var batchSizes = []int{1, 2, 3, 16, 1024, 65536}

var keyCases = []struct {
	name  string
	types []arrow.DataType
	card  int
}{
	{"int64", []arrow.DataType{arrow.PrimitiveTypes.Int64}, 500},
	{"int32", []arrow.DataType{arrow.PrimitiveTypes.Int32}, 100},
	{"timestamp", []arrow.DataType{columnar.Timestamp}, 300},
	{"string", []arrow.DataType{arrow.BinaryTypes.String}, 400},
	{"binary", []arrow.DataType{arrow.BinaryTypes.Binary}, 50},
	{"float64", []arrow.DataType{arrow.PrimitiveTypes.Float64}, 40},
	{"bool", []arrow.DataType{arrow.FixedWidthTypes.Boolean}, 2},
	{"ts_int64", []arrow.DataType{columnar.Timestamp, arrow.PrimitiveTypes.Int64}, 30},
	{"mixed", []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Float64}, 8},
}

// genColumn returns a column of n values of type t drawn from card distinct
// values, each null with probability nullP; a slice with a non-zero offset
// when sliced is set.
func genColumn(mem memory.Allocator, rng *rand.Rand, t arrow.DataType, n, card int, nullP float64, sliced bool) arrow.Array {
	pad := 0
	if sliced {
		pad = 3
	}
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for i := 0; i < n+2*pad; i++ {
		if rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		v := rng.IntN(card)
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.Append(int64(v)*7919 - 1000)
		case *array.Int32Builder:
			bb.Append(int32(v) - 50)
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(int64(v) * 60_000_000))
		case *array.Float64Builder:
			switch v {
			case 0:
				bb.Append(math.NaN())
			case 1:
				bb.Append(math.Copysign(0, -1))
			case 2:
				bb.Append(0)
			default:
				bb.Append(float64(v) / 4)
			}
		case *array.BooleanBuilder:
			bb.Append(v%2 == 0)
		case *array.StringBuilder:
			bb.Append(fmt.Sprintf("k%0*d", v%13, v))
		case *array.BinaryBuilder:
			bb.Append([]byte(fmt.Sprintf("b\x00%d", v)))
		}
	}
	arr := b.NewArray()
	if !sliced {
		return arr
	}
	defer arr.Release()
	return array.NewSlice(arr, int64(pad), int64(pad+n))
}

// genInt64 returns n int64 values start, start+1, ... (a row id column).
func genSeq(mem memory.Allocator, start, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int64(start + i))
	}
	return b.NewArray()
}

// genSel returns a random increasing selection over n rows, or nil.
func genSel(rng *rand.Rand, n int, use bool) []int32 {
	if !use {
		return nil
	}
	sel := []int32{}
	for i := 0; i < n; i++ {
		if rng.IntN(3) != 0 {
			sel = append(sel, int32(i))
		}
	}
	return sel
}

func liveRows(sel []int32, n int) []int32 {
	if sel != nil {
		return sel
	}
	return columnar.Identity(nil, n)
}

// oracleKey returns the encoded key of each row of cols ("" with ok false
// when any key column is null: such rows never match).
func oracleKeys(cols []arrow.Array) ([]string, []bool) {
	n := cols[0].Len()
	enc, err := columnar.EncodeKeys(nil, cols, nil)
	if err != nil {
		panic(err)
	}
	keys := make([]string, n)
	ok := make([]bool, n)
	for i := range keys {
		keys[i] = string(enc[i])
		ok[i] = true
		for _, c := range cols {
			if c.IsNull(i) {
				ok[i] = false
			}
		}
	}
	return keys, ok
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

func schemaOf(types []arrow.DataType, extra ...arrow.Field) *arrow.Schema {
	var fields []arrow.Field
	for i, t := range types {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("k%d", i), Type: t, Nullable: true})
	}
	return arrow.NewSchema(append(fields, extra...), nil)
}
