package textdecode

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace/columnar"
)

// kind is the column type dimension of the JSON and CSV readers, fixed per
// column when a reader starts so that per-value code switches on a small
// integer instead of an interface.
type kind uint8

const (
	kindUnsupported kind = iota
	kindBool
	kindInt32
	kindInt64
	kindFloat32
	kindFloat64
	kindString
	kindDate32
	kindTimestamp
)

// Supported reports whether values of type t can be decoded.
func Supported(t arrow.DataType) bool { return kindOf(t) != kindUnsupported }

func kindOf(t arrow.DataType) kind {
	switch t.ID() {
	case arrow.BOOL:
		return kindBool
	case arrow.INT32:
		return kindInt32
	case arrow.INT64:
		return kindInt64
	case arrow.FLOAT32:
		return kindFloat32
	case arrow.FLOAT64:
		return kindFloat64
	case arrow.STRING:
		return kindString
	case arrow.DATE32:
		return kindDate32
	case arrow.TIMESTAMP:
		return kindTimestamp
	}
	return kindUnsupported
}

// slot stages one value of the row being parsed, so that a malformed row
// leaves the builders untouched.
type slot struct {
	valid bool
	i     int64 // bool (0/1), int32, int64, date32, timestamp in the column's unit
	f     float64
	s     []byte // string bytes: into the line, or into Rows.arena
}

// Rows turns staged rows into records of at most BatchRows rows.
type Rows struct {
	schema *arrow.Schema
	kinds  []kind
	units  []arrow.TimeUnit
	rb     *array.RecordBuilder
	bld    []array.Builder
	slots  []slot
	rows   int
	batch  int
	arena  []byte // unescaped JSON strings (and repaired UTF-8) of the current row
	// replaceInvalid stores invalid UTF-8 in string columns with U+FFFD
	// instead of rejecting the row (SetReplaceInvalidUTF8).
	replaceInvalid bool
}

// NewRows returns a builder of records of at most batchRows rows.
func NewRows(mem memory.Allocator, schema *arrow.Schema, batchRows int) *Rows {
	n := schema.NumFields()
	b := &Rows{
		schema: schema,
		kinds:  make([]kind, n),
		units:  make([]arrow.TimeUnit, n),
		rb:     array.NewRecordBuilder(mem, schema),
		bld:    make([]array.Builder, n),
		slots:  make([]slot, n),
		batch:  batchRows,
	}
	for i, f := range schema.Fields() {
		b.kinds[i] = kindOf(f.Type)
		if ts, ok := f.Type.(*arrow.TimestampType); ok {
			b.units[i] = ts.Unit
		}
		b.bld[i] = b.rb.Field(i)
	}
	b.rb.Reserve(b.batch)
	return b
}

// SetReplaceInvalidUTF8 chooses what a string column does with text that is
// not valid UTF-8. By default the value is rejected (an error naming the
// offending byte), because Arrow and Parquet string columns must hold
// UTF-8 and readers such as pyarrow and delta-rs refuse a table that does
// not. With on, each byte that is not part of a valid UTF-8 sequence is
// stored as U+FFFD instead, as Go's range over a string decodes it.
func (b *Rows) SetReplaceInvalidUTF8(on bool) { b.replaceInvalid = on }

// Release frees the builders.
func (b *Rows) Release() { b.rb.Release() }

// StartRow clears the staged values; arenaCap bounds the bytes the row may
// unescape, so that slices into the arena stay valid.
func (b *Rows) StartRow(arenaCap int) {
	for i := range b.slots {
		b.slots[i] = slot{}
	}
	if cap(b.arena) < arenaCap {
		b.arena = make([]byte, 0, arenaCap)
	}
	b.arena = b.arena[:0]
}

// CommitRow appends the staged row to the builders.
func (b *Rows) CommitRow() {
	for c, k := range b.kinds {
		sl := &b.slots[c]
		if !sl.valid {
			b.bld[c].AppendNull()
			continue
		}
		switch k {
		case kindBool:
			b.bld[c].(*array.BooleanBuilder).Append(sl.i != 0)
		case kindInt32:
			b.bld[c].(*array.Int32Builder).Append(int32(sl.i))
		case kindInt64:
			b.bld[c].(*array.Int64Builder).Append(sl.i)
		case kindFloat32:
			b.bld[c].(*array.Float32Builder).Append(float32(sl.f))
		case kindFloat64:
			b.bld[c].(*array.Float64Builder).Append(sl.f)
		case kindString:
			b.bld[c].(*array.StringBuilder).BinaryBuilder.Append(sl.s)
		case kindDate32:
			b.bld[c].(*array.Date32Builder).Append(arrow.Date32(sl.i))
		case kindTimestamp:
			b.bld[c].(*array.TimestampBuilder).Append(arrow.Timestamp(sl.i))
		}
	}
	b.rows++
}

// Full reports that the current record has its maximum number of rows.
func (b *Rows) Full() bool { return b.rows >= b.batch }

// Len is the number of rows staged in the current record.
func (b *Rows) Len() int { return b.rows }

// Flush returns the built record (nil if empty) and starts a new one.
func (b *Rows) Flush() arrow.RecordBatch {
	if b.rows == 0 {
		return nil
	}
	b.rows = 0
	rec := b.rb.NewRecordBatch()
	b.rb.Reserve(b.batch)
	return rec
}

// errType says why a value did not fit its column. Its text is completed by
// the reader with the file, line and field.
type errType struct{ msg string }

func (e *errType) Error() string { return e.msg }

func cannotParse(text []byte, c kind, t arrow.DataType) error {
	s := string(text)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	what := columnar.TypeName(t)
	if c == kindTimestamp {
		what = "timestamp"
	}
	return &errType{fmt.Sprintf("cannot parse %q as %s", s, what)}
}

func outOfNanoRange(text []byte) error {
	return &errType{fmt.Sprintf("%q is outside the range of a nanosecond timestamp (years 1677 to 2262)", text)}
}

// str views b as a string without copying; the result must not outlive b
// (strconv errors holding it are never returned).
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// setMicros stores a timestamp given in microseconds in column c's unit.
// It returns false when the time does not fit the unit: a nanosecond
// timestamp spans only the years 1677 to 2262.
func (b *Rows) setMicros(c int, us int64) bool {
	var v int64
	if ups := columnar.UnitsPerSecond(b.units[c]); ups <= 1_000_000 {
		v = FloorDiv(us, 1_000_000/ups)
	} else {
		m := ups / 1_000_000
		if us > math.MaxInt64/m || us < math.MinInt64/m {
			return false
		}
		v = us * m
	}
	b.slots[c] = slot{valid: true, i: v}
	return true
}

// FloorDiv divides rounding towards negative infinity.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// setInt stores an integer token (JSON number or CSV field) in column c.
// Timestamp columns take it as epoch milliseconds.
func (b *Rows) setInt(c int, text []byte) error {
	k := b.kinds[c]
	v, err := strconv.ParseInt(str(text), 10, 64)
	if err != nil || (k == kindInt32 && (v < math.MinInt32 || v > math.MaxInt32)) {
		return cannotParse(text, k, b.schema.Field(c).Type)
	}
	switch k {
	case kindInt32, kindInt64:
		b.slots[c] = slot{valid: true, i: v}
	case kindFloat32, kindFloat64:
		b.slots[c] = slot{valid: true, f: float64(v)}
	case kindTimestamp:
		if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
			return cannotParse(text, k, b.schema.Field(c).Type)
		}
		if !b.setMicros(c, v*1000) {
			return outOfNanoRange(text)
		}
	default:
		return cannotParse(text, k, b.schema.Field(c).Type)
	}
	return nil
}

// SetText stores a textual value (a CSV field, or a JSON string) in column c
// of any kind. Text for a string column must be UTF-8 (see
// SetReplaceInvalidUTF8).
func (b *Rows) SetText(c int, text []byte) error {
	k := b.kinds[c]
	switch k {
	case kindString:
		return b.setString(c, text)
	case kindBool:
		switch str(text) {
		case "true", "True", "TRUE":
			b.slots[c] = slot{valid: true, i: 1}
			return nil
		case "false", "False", "FALSE":
			b.slots[c] = slot{valid: true}
			return nil
		}
	case kindInt32, kindInt64:
		return b.setInt(c, text)
	case kindFloat32, kindFloat64:
		f, err := strconv.ParseFloat(str(text), 64)
		if err == nil {
			b.slots[c] = slot{valid: true, f: f}
			return nil
		}
	case kindDate32:
		d, rest, ok := parseDate(text)
		if ok && len(rest) == 0 && d >= math.MinInt32 && d <= math.MaxInt32 {
			b.slots[c] = slot{valid: true, i: d}
			return nil
		}
	case kindTimestamp:
		if us, ok := ParseTimestamp(text); ok {
			if !b.setMicros(c, us) {
				return outOfNanoRange(text)
			}
			return nil
		}
		if allDigits(text) {
			return b.setInt(c, text)
		}
	}
	return cannotParse(text, k, b.schema.Field(c).Type)
}

// setString stores text in string column c after checking that it is
// UTF-8. Only values bound for a string column are checked (not field
// names, skipped fields or numbers), and utf8.Valid takes ASCII text 8
// bytes a step, so the check costs little: see textdecode's doc.
func (b *Rows) setString(c int, text []byte) error {
	if !utf8.Valid(text) {
		if !b.replaceInvalid {
			return invalidUTF8(text)
		}
		start := len(b.arena)
		b.arena = appendValidUTF8(b.arena, text)
		text = b.arena[start:]
	}
	b.slots[c] = slot{valid: true, s: text}
	return nil
}

// invalidUTF8 is the error for text that is not UTF-8: it names the first
// bad byte and its place, and the option that would keep the row.
func invalidUTF8(text []byte) error {
	at := 0
	for at < len(text) {
		r, size := utf8.DecodeRune(text[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	return &errType{fmt.Sprintf("invalid UTF-8 in a string: byte 0x%02x at byte %d of the value; fix the producer, or set ReplaceInvalidUTF8 to store U+FFFD in its place", text[at], at)}
}

// appendValidUTF8 appends text to dst with every byte that is not part of
// a valid UTF-8 sequence replaced by U+FFFD.
func appendValidUTF8(dst, text []byte) []byte {
	for len(text) > 0 {
		r, size := utf8.DecodeRune(text)
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, text[:size]...)
		}
		text = text[size:]
	}
	return dst
}

func allDigits(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Schema is the schema of the records the builder makes.
func (b *Rows) Schema() *arrow.Schema { return b.schema }
