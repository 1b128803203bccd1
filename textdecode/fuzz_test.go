package textdecode

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/internal/fuzzutil"
)

// Fuzz targets of the decoders of outside bytes: JSON documents (file
// source lines, Kafka values through FromJSON) and CSV fields. Run one with
//
//	go test -run '^$' -fuzz FuzzJSON -fuzztime 10m -parallel 1 ./textdecode/
//
// The properties: no panic and no hang; an error names a schema field or is
// a syntax error; a decoded row holds only UTF-8 in its string columns, and
// re-encoding it (as JSON, or as CSV) and decoding that gives the same row.

var fuzzSchema = arrow.NewSchema([]arrow.Field{
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "tsms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
	{Name: "tss", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
	{Name: "tsns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
}, nil)

var fuzzJSONSeeds = []string{
	`{"b": true, "i32": -7, "i64": 9007199254740993, "f32": 1.5, "f64": -2.5e-3, "s": "caf\u00e9 ☕", "d": "2024-05-01", "ts": "2024-05-01T12:34:56.789012Z", "tsms": 1714521600123, "tss": "2024-05-01 00:00:01+02:00", "tsns": "2024-05-01T00:00:00.123456789-05:30"}`,
	`{"s": {"nested": [1, "two", {"x": null}]}, "i64": null, "unknown": [true, false]}`,
	`{"s": "esc \" \\ \/ \b \f \n \r \t \ud834\udd1e \ud800", "f64": "NaN", "b": "TRUE"}`,
	`{"campaign_id":7,"user_id":42,"event_time":"2026-01-01T00:01:02.000003Z","url":"https://example.com/p/1?ref=ad","price":12.34,"extra":{"a":[1,2,3]}}`,
	`{}`,
	` { "i32" : 2147483647 , "i64" : -9223372036854775808 } `,
	"{\"s\": \"bad \xff byte\"}",
	`{"ts": 0, "d": "1970-01-01", "tss": -1}`,
	`[1, 2]`,
	`{"s": "unterminated`,
}

func FuzzJSON(f *testing.F) {
	for _, s := range fuzzJSONSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, doc []byte, replace bool) {
		defer fuzzutil.Watchdog(doc, replace)()
		rows := decodeJSON(t, doc, replace)
		if rows == nil {
			return
		}
		defer rows.Release()
		again := decodeJSON(t, encodeJSONRow(t, rows), replace)
		if again == nil {
			t.Fatalf("re-encoded row %s does not decode", encodeJSONRow(t, rows))
		}
		defer again.Release()
		sameRow(t, rows, again)
	})
}

// decodeJSON decodes doc into a one-row record, or returns nil when doc is
// rejected, after checking the error names a field of the schema or is a
// syntax error.
func decodeJSON(t *testing.T, doc []byte, replace bool) arrow.RecordBatch {
	t.Helper()
	rows := NewRows(memory.DefaultAllocator, fuzzSchema, 1)
	defer rows.Release()
	rows.SetReplaceInvalidUTF8(replace)
	field, err := NewJSON(rows).Parse(doc)
	if err != nil {
		if field != "" && fuzzSchema.FieldIndices(field) == nil {
			t.Fatalf("error %v names field %q, not in the schema", err, field)
		}
		if field == "" && !isSyntax(err) {
			t.Fatalf("error %v names no field but is not a syntax error", err)
		}
		return nil
	}
	rows.CommitRow()
	rec := rows.Flush()
	checkDecoded(t, rec, replace)
	return rec
}

// checkDecoded checks the invariants of a decoded record.
func checkDecoded(t *testing.T, rec arrow.RecordBatch, replace bool) {
	t.Helper()
	if rec.NumRows() != 1 {
		t.Fatalf("%d rows, want 1", rec.NumRows())
	}
	for c, col := range rec.Columns() {
		if s, ok := col.(*array.String); ok && s.IsValid(0) && !utf8.ValidString(s.Value(0)) {
			t.Fatalf("column %s holds invalid UTF-8 %q (replace %v)", rec.ColumnName(c), s.Value(0), replace)
		}
		if v, ok := col.(interface{ ValidateFull() error }); ok {
			if err := v.ValidateFull(); err != nil {
				t.Fatalf("column %s: %v", rec.ColumnName(c), err)
			}
		}
	}
}

// textOf renders row 0 of column c as text the decoders accept, or ok =
// false when the value has no such form (a timestamp outside years
// 0000-9999 that is not whole milliseconds). num says the text is a JSON
// number rather than a string.
func textOf(col arrow.Array) (text string, num, ok bool) {
	switch a := col.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(0)), false, true
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(0)), 10), true, true
	case *array.Int64:
		return strconv.FormatInt(a.Value(0), 10), true, true
	case *array.Float32:
		return floatText(float64(a.Value(0)), 32)
	case *array.Float64:
		return floatText(a.Value(0), 64)
	case *array.String:
		return a.Value(0), false, true
	case *array.Date32:
		d := time.Unix(int64(a.Value(0))*86400, 0).UTC()
		if d.Year() < 0 || d.Year() > 9999 {
			return "", false, false
		}
		return d.Format("2006-01-02"), false, true
	case *array.Timestamp:
		v := int64(a.Value(0))
		var us int64
		switch a.DataType().(*arrow.TimestampType).Unit {
		case arrow.Second:
			if v > math.MaxInt64/1000 || v < math.MinInt64/1000 {
				return "", false, false
			}
			return strconv.FormatInt(v*1000, 10), true, true // epoch milliseconds
		case arrow.Millisecond:
			return strconv.FormatInt(v, 10), true, true
		case arrow.Microsecond:
			us = v
		case arrow.Nanosecond:
			us = v / 1000
		}
		if us%1000 == 0 {
			return strconv.FormatInt(us/1000, 10), true, true
		}
		tm := time.UnixMicro(us).UTC()
		if tm.Year() < 0 || tm.Year() > 9999 {
			return "", false, false
		}
		return tm.Format("2006-01-02T15:04:05.000000Z"), false, true
	}
	panic("textOf: " + col.DataType().String())
}

// floatText renders a float so that ParseFloat gives it back; NaN and the
// infinities only as strings.
func floatText(f float64, bits int) (string, bool, bool) {
	s := strconv.FormatFloat(f, 'g', -1, bits)
	return s, !math.IsNaN(f) && !math.IsInf(f, 0), true
}

// encodeJSONRow renders row 0 of rec as a JSON object (nulls omitted).
func encodeJSONRow(t *testing.T, rec arrow.RecordBatch) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for c, col := range rec.Columns() {
		if col.IsNull(0) {
			continue
		}
		text, num, ok := textOf(col)
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		fmt.Fprintf(&b, "%q:", rec.ColumnName(c))
		if num {
			b.WriteString(text)
			continue
		}
		q, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(q)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// sameRow compares row 0 of two records column by column (floats by bits,
// so NaN equals NaN); a column textOf cannot render is skipped.
func sameRow(t *testing.T, a, b arrow.RecordBatch) {
	t.Helper()
	for c := range a.Columns() {
		x, y := a.Column(c), b.Column(c)
		if _, _, ok := textOf(x); x.IsValid(0) && !ok {
			continue
		}
		if x.IsNull(0) != y.IsNull(0) {
			t.Fatalf("column %s: null %v, re-decoded %v", a.ColumnName(c), x.IsNull(0), y.IsNull(0))
		}
		if x.IsNull(0) {
			continue
		}
		var same bool
		switch x := x.(type) {
		case *array.Float64:
			same = math.Float64bits(x.Value(0)) == math.Float64bits(y.(*array.Float64).Value(0))
		case *array.Float32:
			same = math.Float32bits(x.Value(0)) == math.Float32bits(y.(*array.Float32).Value(0))
		default:
			same = x.ValueStr(0) == y.ValueStr(0)
		}
		if !same {
			t.Fatalf("column %s: %s, re-decoded %s", a.ColumnName(c), x.ValueStr(0), y.ValueStr(0))
		}
	}
}

// FuzzCSV splits the input with encoding/csv, as the file source does, and
// stores the fields positionally in the columns of fuzzSchema with SetText
// (an empty field is null). Committed rows are re-encoded as CSV and read
// again.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"true,-7,9007199254740993,1.5,-2.5e-3,café,2024-05-01,2024-05-01T12:34:56.789012Z,1714521600123,2024-05-01 00:00:01+02:00,2024-05-01T00:00:00.123456789-05:30\n",
		"TRUE,,,,NaN,\"a,b\"\"c\",,,,,\n",
		"false,1,2,3,4,x\xffy\n",
		"\"unterminated,1\n",
		"False,2147483648\n",
		",,,,-Inf,\"multi\nline\",1970-01-01,0,-1,1,2\r\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, replace bool) {
		defer fuzzutil.Watchdog(data, replace)()
		recs := decodeCSV(t, data, replace)
		for _, rec := range recs {
			defer rec.Release()
			var buf bytes.Buffer
			w := csv.NewWriter(&buf)
			fields := make([]string, rec.NumCols())
			lossy := false
			for c, col := range rec.Columns() {
				if col.IsValid(0) {
					fields[c], _, _ = textOf(col)
					// encoding/csv reads "\r\n" inside quotes as "\n", so
					// such a value cannot come back from its own CSV.
					lossy = lossy || strings.Contains(fields[c], "\r\n")
				}
			}
			if lossy {
				continue
			}
			if err := w.Write(fields); err != nil {
				t.Fatal(err)
			}
			w.Flush()
			again := decodeCSV(t, buf.Bytes(), replace)
			if len(again) != 1 {
				t.Fatalf("re-encoded row %q decodes to %d rows", buf.String(), len(again))
			}
			sameRow(t, rec, again[0])
			again[0].Release()
		}
	})
}

// decodeCSV returns one record per committed row of data (at most 64).
func decodeCSV(t *testing.T, data []byte, replace bool) []arrow.RecordBatch {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rows := NewRows(memory.DefaultAllocator, fuzzSchema, 1)
	defer rows.Release()
	rows.SetReplaceInvalidUTF8(replace)
	var out []arrow.RecordBatch
	for len(out) < 64 {
		fields, err := cr.Read()
		if err != nil {
			if _, ok := err.(*csv.ParseError); ok {
				continue
			}
			break
		}
		rows.StartRow(0)
		ok := true
		for c := 0; c < len(fields) && c < fuzzSchema.NumFields(); c++ {
			if fields[c] == "" {
				continue
			}
			if err := rows.SetText(c, []byte(fields[c])); err != nil {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		rows.CommitRow()
		rec := rows.Flush()
		checkDecoded(t, rec, replace)
		out = append(out, rec)
	}
	return out
}
