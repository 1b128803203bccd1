package join

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/columnar"
)

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
	{"window_int32", []arrow.DataType{columnar.Timestamp, columnar.Timestamp, arrow.PrimitiveTypes.Int32}, 20},
}

// genSeq returns n int64 values start, start+1, ... (a row id column).
func genSeq(mem memory.Allocator, start, n int) arrow.Array {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int64(start + i))
	}
	return b.NewArray()
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

func schemaOf(types []arrow.DataType, extra ...arrow.Field) *arrow.Schema {
	var fields []arrow.Field
	for i, t := range types {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("k%d", i), Type: t, Nullable: true})
	}
	return arrow.NewSchema(append(fields, extra...), nil)
}
