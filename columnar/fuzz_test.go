package columnar

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// fuzzKeyTypes are the key tuples FuzzDecodeKeys decodes, chosen by the
// input's first byte.
var fuzzKeyTypes = [][]arrow.DataType{
	{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32, Timestamp, arrow.PrimitiveTypes.Float64,
		arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String, arrow.BinaryTypes.Binary},
	{arrow.BinaryTypes.String},
	{Timestamp, Timestamp, arrow.PrimitiveTypes.Int64},
	{arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.Binary},
}

// FuzzDecodeKeys fuzzes the order-preserving key encoding of the state
// store (group keys of aggregations, dropDuplicates and session windows,
// read back on restart). Properties: no panic or hang; accepted keys decode
// to valid arrays (strings UTF-8) whose re-encoding decodes and re-encodes
// identically.
//
//	go test -run '^$' -fuzz FuzzDecodeKeys -fuzztime 10m -parallel 1 ./columnar/
func FuzzDecodeKeys(f *testing.F) {
	mem := memory.DefaultAllocator
	for i, types := range fuzzKeyTypes {
		b := array.NewRecordBuilder(mem, schemaOf(types))
		for c, t := range types {
			fb := b.Field(c)
			switch t.ID() {
			case arrow.INT64:
				fb.(*array.Int64Builder).AppendValues([]int64{-1, 1 << 62}, nil)
			case arrow.INT32:
				fb.(*array.Int32Builder).AppendValues([]int32{7, -7}, nil)
			case arrow.TIMESTAMP:
				fb.(*array.TimestampBuilder).AppendValues([]arrow.Timestamp{0, 1_700_000_000_000_000}, nil)
			case arrow.FLOAT64:
				fb.(*array.Float64Builder).AppendValues([]float64{-0.5, 3}, nil)
			case arrow.BOOL:
				fb.(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
			case arrow.STRING:
				fb.(*array.StringBuilder).AppendValues([]string{"a\x00b", "café"}, nil)
			case arrow.BINARY:
				fb.AppendNull()
				fb.(*array.BinaryBuilder).Append([]byte{0, 0xff, 1})
			}
		}
		rec := b.NewRecordBatch()
		keys, err := EncodeKeys(nil, rec.Columns(), nil)
		if err != nil {
			f.Fatal(err)
		}
		for _, k := range keys {
			f.Add(byte(i), k)
		}
		rec.Release()
		b.Release()
	}
	f.Fuzz(func(t *testing.T, which byte, key []byte) {
		defer fuzzutil.Watchdog(which, key)()
		types := fuzzKeyTypes[int(which)%len(fuzzKeyTypes)]
		cols, err := DecodeKeys(mem, [][]byte{key}, types)
		if err != nil {
			return
		}
		enc := reencode(t, cols)
		cols2, err := DecodeKeys(mem, [][]byte{enc}, types)
		if err != nil {
			t.Fatalf("key %x re-encodes to %x, which does not decode: %v", key, enc, err)
		}
		if enc2 := reencode(t, cols2); !bytes.Equal(enc, enc2) {
			t.Fatalf("key %x: re-encodings differ: %x, then %x", key, enc, enc2)
		}
	})
}

// reencode validates decoded columns and encodes their one row again.
func reencode(t *testing.T, cols []arrow.Array) []byte {
	t.Helper()
	for _, c := range cols {
		if v, ok := c.(interface{ ValidateFull() error }); ok {
			if err := v.ValidateFull(); err != nil {
				t.Fatalf("decoded an invalid %s column: %v", c.DataType(), err)
			}
		}
	}
	keys, err := EncodeKeys(nil, cols, nil)
	if err != nil {
		t.Fatalf("decoded key does not re-encode: %v", err)
	}
	for _, c := range cols {
		c.Release()
	}
	return keys[0]
}

func schemaOf(types []arrow.DataType) *arrow.Schema {
	fields := make([]arrow.Field, len(types))
	for i, t := range types {
		fields[i] = arrow.Field{Name: string(rune('a' + i)), Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}
