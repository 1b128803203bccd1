package file

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// kind is the encoding of one column, resolved once per schema so that the
// per-row loop switches on a small tag instead of calling through
// arrow.Array.
type kind uint8

const (
	kInt8 kind = iota
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat32
	kFloat64
	kBool
	kString
	kLargeString
	kBinary
	kTimestamp
	kDate32
	kDecimal128
	kStruct
	// kOther is every other type (lists, maps, …): JSON through arrow's
	// own marshalling, CSV as that JSON text.
	kOther
)

// tsLayout renders timestamps: RFC 3339, microseconds, always UTC.
const tsLayout = "2006-01-02T15:04:05.000000Z"

// colEnc encodes one column (or struct field). The typed slices are bound
// to a record's arrays by bind, once per record.
type colEnc struct {
	name     string
	jsonKey  []byte // `"name":`
	kind     kind
	unit     arrow.TimeUnit
	children []colEnc

	// bound per record
	valid    []byte
	off      int
	hasNulls bool
	i8       []int8
	i16      []int16
	i32      []int32
	i64      []int64
	u8       []uint8
	u16      []uint16
	u32      []uint32
	u64      []uint64
	f32      []float32
	f64      []float64
	bools    *array.Boolean
	str      *array.String
	lstr     *array.LargeString
	bin      *array.Binary
	ts       []arrow.Timestamp
	dates    []arrow.Date32
	decs     []decimal128.Num
	scale    int32
	other    arrow.Array
}

// newEncoders resolves the encoders of a schema's fields, or says which
// column has a type the sink cannot write. anyType lets types without an
// encoder of their own through as arrow's JSON (RowEncoder); the sink
// refuses them, since the file source could not read them back.
func newEncoders(fields []arrow.Field, anyType bool) ([]colEnc, error) {
	encs := make([]colEnc, len(fields))
	for i, f := range fields {
		e := &encs[i]
		e.name = f.Name
		e.jsonKey = appendJSONString(nil, f.Name)
		e.jsonKey = append(e.jsonKey, ':')
		switch t := f.Type.(type) {
		case *arrow.Int8Type:
			e.kind = kInt8
		case *arrow.Int16Type:
			e.kind = kInt16
		case *arrow.Int32Type:
			e.kind = kInt32
		case *arrow.Int64Type:
			e.kind = kInt64
		case *arrow.Uint8Type:
			e.kind = kUint8
		case *arrow.Uint16Type:
			e.kind = kUint16
		case *arrow.Uint32Type:
			e.kind = kUint32
		case *arrow.Uint64Type:
			e.kind = kUint64
		case *arrow.Float32Type:
			e.kind = kFloat32
		case *arrow.Float64Type:
			e.kind = kFloat64
		case *arrow.BooleanType:
			e.kind = kBool
		case *arrow.StringType:
			e.kind = kString
		case *arrow.LargeStringType:
			e.kind = kLargeString
		case *arrow.BinaryType:
			e.kind = kBinary
		case *arrow.TimestampType:
			e.kind, e.unit = kTimestamp, t.Unit
		case *arrow.Date32Type:
			e.kind = kDate32
		case *arrow.Decimal128Type:
			e.kind, e.scale = kDecimal128, t.Scale
		case *arrow.StructType:
			e.kind = kStruct
			kids, err := newEncoders(t.Fields(), anyType)
			if err != nil {
				return nil, fmt.Errorf("field %s.%w", f.Name, err)
			}
			e.children = kids
		default:
			if !anyType {
				return nil, fmt.Errorf("column %q has type %s, which the file sink cannot write", f.Name, f.Type)
			}
			e.kind = kOther
		}
	}
	return encs, nil
}

// bind points the encoders at a record's columns.
func bind(encs []colEnc, cols []arrow.Array) error {
	if len(cols) != len(encs) {
		return fmt.Errorf("record has %d columns, the schema %d", len(cols), len(encs))
	}
	for i := range encs {
		if err := encs[i].bind(cols[i]); err != nil {
			return err
		}
	}
	return nil
}

func (e *colEnc) bind(a arrow.Array) error {
	e.hasNulls = a.NullN() > 0
	e.valid = a.NullBitmapBytes()
	e.off = a.Data().Offset()
	ok := true
	switch e.kind {
	case kInt8:
		var x *array.Int8
		if x, ok = a.(*array.Int8); ok {
			e.i8 = x.Int8Values()
		}
	case kInt16:
		var x *array.Int16
		if x, ok = a.(*array.Int16); ok {
			e.i16 = x.Int16Values()
		}
	case kInt32:
		var x *array.Int32
		if x, ok = a.(*array.Int32); ok {
			e.i32 = x.Int32Values()
		}
	case kInt64:
		var x *array.Int64
		if x, ok = a.(*array.Int64); ok {
			e.i64 = x.Int64Values()
		}
	case kUint8:
		var x *array.Uint8
		if x, ok = a.(*array.Uint8); ok {
			e.u8 = x.Uint8Values()
		}
	case kUint16:
		var x *array.Uint16
		if x, ok = a.(*array.Uint16); ok {
			e.u16 = x.Uint16Values()
		}
	case kUint32:
		var x *array.Uint32
		if x, ok = a.(*array.Uint32); ok {
			e.u32 = x.Uint32Values()
		}
	case kUint64:
		var x *array.Uint64
		if x, ok = a.(*array.Uint64); ok {
			e.u64 = x.Uint64Values()
		}
	case kFloat32:
		var x *array.Float32
		if x, ok = a.(*array.Float32); ok {
			e.f32 = x.Float32Values()
		}
	case kFloat64:
		var x *array.Float64
		if x, ok = a.(*array.Float64); ok {
			e.f64 = x.Float64Values()
		}
	case kBool:
		e.bools, ok = a.(*array.Boolean)
	case kString:
		e.str, ok = a.(*array.String)
	case kLargeString:
		e.lstr, ok = a.(*array.LargeString)
	case kBinary:
		e.bin, ok = a.(*array.Binary)
	case kTimestamp:
		var x *array.Timestamp
		if x, ok = a.(*array.Timestamp); ok {
			e.ts = x.TimestampValues()
		}
	case kDate32:
		var x *array.Date32
		if x, ok = a.(*array.Date32); ok {
			e.dates = x.Date32Values()
		}
	case kDecimal128:
		var x *array.Decimal128
		if x, ok = a.(*array.Decimal128); ok {
			e.decs = x.Values()
		}
	case kOther:
		e.other = a
	case kStruct:
		var x *array.Struct
		if x, ok = a.(*array.Struct); ok {
			if x.NumField() != len(e.children) {
				return fmt.Errorf("column %q: struct has %d fields, the schema %d", e.name, x.NumField(), len(e.children))
			}
			for f := range e.children {
				if err := e.children[f].bind(x.Field(f)); err != nil {
					return err
				}
			}
		}
	}
	if !ok {
		return fmt.Errorf("column %q: got an array of type %s", e.name, a.DataType())
	}
	return nil
}

// isNull reports whether row i is null.
func (e *colEnc) isNull(i int) bool {
	return e.hasNulls && !bitutil.BitIsSet(e.valid, e.off+i)
}

// appendScalar appends the text of a non-struct value: numbers and
// booleans bare, everything else as the unquoted text (the caller quotes).
// It reports whether the text must be quoted in JSON.
func (e *colEnc) appendScalar(b []byte, i int) ([]byte, bool) {
	switch e.kind {
	case kInt8:
		return strconv.AppendInt(b, int64(e.i8[i]), 10), false
	case kInt16:
		return strconv.AppendInt(b, int64(e.i16[i]), 10), false
	case kInt32:
		return strconv.AppendInt(b, int64(e.i32[i]), 10), false
	case kInt64:
		return strconv.AppendInt(b, e.i64[i], 10), false
	case kUint8:
		return strconv.AppendUint(b, uint64(e.u8[i]), 10), false
	case kUint16:
		return strconv.AppendUint(b, uint64(e.u16[i]), 10), false
	case kUint32:
		return strconv.AppendUint(b, uint64(e.u32[i]), 10), false
	case kUint64:
		return strconv.AppendUint(b, e.u64[i], 10), false
	case kFloat32:
		return appendFloat(b, float64(e.f32[i]), 32)
	case kFloat64:
		return appendFloat(b, e.f64[i], 64)
	case kBool:
		return strconv.AppendBool(b, e.bools.Value(i)), false
	case kTimestamp:
		return appendTimestamp(b, int64(e.ts[i]), e.unit), true
	case kDate32:
		return e.dates[i].ToTime().AppendFormat(b, "2006-01-02"), true
	case kBinary:
		return base64.StdEncoding.AppendEncode(b, e.bin.Value(i)), true
	case kDecimal128:
		// A number with the column's scale (580.70), as Spark's to_json.
		return append(b, e.decs[i].ToString(e.scale)...), false
	}
	return b, true
}

// appendOther appends the JSON of a value of a type without an encoder of
// its own (lists, maps), as arrow marshals it.
func (e *colEnc) appendOther(b []byte, i int) []byte {
	v, err := json.Marshal(e.other.GetOneForMarshal(i))
	if err != nil {
		// Only values JSON cannot hold fail (NaN inside a list): their text.
		return appendJSONString(b, e.other.ValueStr(i))
	}
	return append(b, v...)
}

// appendJSON appends the JSON value of row i.
func (e *colEnc) appendJSON(b []byte, i int) []byte {
	if e.isNull(i) {
		return append(b, "null"...)
	}
	switch e.kind {
	case kString:
		return appendJSONString(b, e.str.Value(i))
	case kLargeString:
		return appendJSONString(b, e.lstr.Value(i))
	case kOther:
		return e.appendOther(b, i)
	case kStruct:
		b = append(b, '{')
		for f := range e.children {
			if f > 0 {
				b = append(b, ',')
			}
			c := &e.children[f]
			b = append(b, c.jsonKey...)
			b = c.appendJSON(b, i)
		}
		return append(b, '}')
	}
	start := len(b)
	b, quote := e.appendScalar(b, i)
	if quote {
		// scalar texts (timestamps, dates, base64, NaN) need no escaping
		b = append(b, 0)
		copy(b[start+1:], b[start:len(b)-1])
		b[start] = '"'
		b = append(b, '"')
	}
	return b
}

// appendCSV appends the CSV fields of row i (several for a struct).
func (e *colEnc) appendCSV(b []byte, i int, first bool, parentNull bool) []byte {
	null := parentNull || e.isNull(i)
	if e.kind == kStruct {
		for f := range e.children {
			b = e.children[f].appendCSV(b, i, first && f == 0, null)
		}
		return b
	}
	if !first {
		b = append(b, ',')
	}
	if null {
		return b
	}
	switch e.kind {
	case kString:
		return appendCSVString(b, e.str.Value(i))
	case kLargeString:
		return appendCSVString(b, e.lstr.Value(i))
	case kOther:
		return appendCSVString(b, string(e.appendOther(nil, i)))
	}
	b, _ = e.appendScalar(b, i)
	return b
}

// appendRow appends row i of the bound encoders as one line of format f.
func appendRow(b []byte, encs []colEnc, i int, f Format) []byte {
	if f == CSV {
		for c := range encs {
			b = encs[c].appendCSV(b, i, c == 0, false)
		}
		return append(b, '\n')
	}
	b = append(b, '{')
	for c := range encs {
		e := &encs[c]
		if c > 0 {
			b = append(b, ',')
		}
		b = append(b, e.jsonKey...)
		b = e.appendJSON(b, i)
	}
	return append(b, '}', '\n')
}

// csvHeader appends the header names of the encoders, structs flattened.
func csvHeader(b []byte, encs []colEnc, prefix string, first bool) []byte {
	for f := range encs {
		e := &encs[f]
		if e.kind == kStruct {
			b = csvHeader(b, e.children, prefix+e.name+".", first && f == 0)
			continue
		}
		if !(first && f == 0) {
			b = append(b, ',')
		}
		b = appendCSVString(b, prefix+e.name)
	}
	return b
}

func appendFloat(b []byte, f float64, bits int) ([]byte, bool) {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...), true
	case math.IsInf(f, 1):
		return append(b, "Infinity"...), true
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...), true
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits), false
}

func appendTimestamp(b []byte, v int64, unit arrow.TimeUnit) []byte {
	return arrow.Timestamp(v).ToTime(unit).AppendFormat(b, tsLayout)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendCSVString appends s as a CSV field, quoted when RFC 4180 needs it
// and always when empty (an empty field is null).
func appendCSVString(b []byte, s string) []byte {
	quote := s == "" || s[0] == ' ' || s[0] == '\t'
	for i := 0; i < len(s) && !quote; i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			quote = true
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
