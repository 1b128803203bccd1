package textdecode

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var utf8Schema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// decodeOne decodes one JSON document (or, with csv, the CSV field for s)
// and returns column s of the committed row, or the error.
func decodeOne(t *testing.T, doc string, replace, csv bool) (string, string, error) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows := NewRows(mem, utf8Schema, 4)
	defer rows.Release()
	rows.SetReplaceInvalidUTF8(replace)
	var field string
	var err error
	if csv {
		rows.StartRow(0)
		err = rows.SetText(1, []byte(doc))
		field = "s"
	} else {
		field, err = NewJSON(rows).Parse([]byte(doc))
	}
	if err != nil {
		return "", field, err
	}
	rows.CommitRow()
	rec := rows.Flush()
	defer rec.Release()
	return rec.Column(1).(*array.String).Value(0), "", nil
}

// TestInvalidUTF8 is the regression test of issue 10 item 11: invalid
// UTF-8 inside a JSON string (or a CSV field) used to be stored as is in a
// string column, which Parquet readers then refuse. It is now an error
// naming the field and the byte, or, with SetReplaceInvalidUTF8, U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	cases := []struct {
		name, doc, want string // want: the value with replacement; "" = same as the input
		csv, invalid    bool
	}{
		{name: "valid multibyte", doc: `{"id": 1, "s": "café ☕ 𝄞"}`, want: "café ☕ 𝄞"},
		{name: "escaped", doc: `{"s": "caf\u00e9 \ud834\udd1e"}`, want: "café 𝄞"},
		{name: "lone surrogate escape", doc: `{"s": "a\ud800b"}`, want: "a\uFFFDb"},
		{name: "bad byte", doc: "{\"id\": 1, \"s\": \"ab\xffcd\"}", want: "ab\uFFFDcd", invalid: true},
		{name: "bad byte with escape", doc: "{\"s\": \"\\n\xc3\x28\"}", want: "\n\uFFFD(", invalid: true},
		{name: "truncated sequence", doc: "{\"s\": \"x\xe2\x82\"}", want: "x\uFFFD\uFFFD", invalid: true},
		{name: "overlong", doc: "{\"s\": \"\xc0\xaf\"}", want: "\uFFFD\uFFFD", invalid: true},
		{name: "in an object for a string column", doc: "{\"s\": {\"k\": \"\xff\"}}", want: "{\"k\": \"\uFFFD\"}", invalid: true},
		{name: "unknown field is skipped", doc: "{\"other\": \"\xff\", \"s\": \"ok\"}", want: "ok"},
		{name: "csv field", doc: "a\xfeb", want: "a\uFFFDb", csv: true, invalid: true},
		{name: "csv valid", doc: "naïve", want: "naïve", csv: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, field, err := decodeOne(t, c.doc, false, c.csv)
			if c.invalid {
				if err == nil || field != "s" || !strings.Contains(err.Error(), "invalid UTF-8") || !strings.Contains(err.Error(), "ReplaceInvalidUTF8") {
					t.Fatalf("default: got %q, field %q, err %v; want an invalid UTF-8 error for field s", got, field, err)
				}
			} else if err != nil || got != c.want {
				t.Fatalf("default: got %q (err %v), want %q", got, err, c.want)
			}
			got, _, err = decodeOne(t, c.doc, true, c.csv)
			if err != nil || got != c.want || !utf8.ValidString(got) {
				t.Fatalf("replace: got %q (err %v), want %q", got, err, c.want)
			}
		})
	}
}
