package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/textdecode"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/klauspost/compress/gzip"
	"github.com/millrace/millrace/columnar"
	"github.com/millrace/millrace/sources"
)

var allTypes = arrow.NewSchema([]arrow.Field{
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: columnar.Timestamp, Nullable: true},
	{Name: "tsms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
}, nil)

// readOne reads every file currently in dir with opts and returns the rows.
func readOne(t *testing.T, opts Options) ([]string, error) {
	t.Helper()
	mem := checkedMem(t)
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := s.InitialOffset(context.Background())
	end, err := s.LatestOffset(context.Background(), start, sources.ReadLimit{})
	if err != nil {
		t.Fatal(err)
	}
	return readRange(t, mem, s, start, end)
}

const us20240501 = 1714521600000000

func TestJSONValues(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"all types", `{"s":"x","i":-5,"i32":7,"f":1.5,"f32":2,"b":true,"d":"2024-05-01","ts":"2024-05-01T00:00:01Z","tsms":"2024-05-01 00:00:00.123"}`,
			fmt.Sprintf("x|-5|7|1.5|2|true|19844|%d|%d", us20240501+1_000_000, us20240501/1000+123)},
		{"missing and null", `{"s":null}`, "null|null|null|null|null|null|null|null|null"},
		{"empty object", ` { } `, "null|null|null|null|null|null|null|null|null"},
		{"unknown fields ignored", `{"zz":{"a":[1,{"b":"}"}]},"i":1,"yy":[],"xx":"q\"","ww":null,"vv":-1e5,"uu":false}`, "null|1|null|null|null|null|null|null|null"},
		{"escapes", `{"s":"a\"b\\c\/\n\u00e9\ud83d\ude00"}`, "a\"b\\c/\né😀|null|null|null|null|null|null|null|null"},
		{"escaped key", `{"\u0069":3}`, "null|3|null|null|null|null|null|null|null"},
		{"any value as string", `{"s":{"a": 1}}`, `{"a": 1}|null|null|null|null|null|null|null|null`},
		{"number as string", `{"s":12.5e3}`, "12.5e3|null|null|null|null|null|null|null|null"},
		{"epoch millis", `{"ts":1714521600123,"tsms":-1}`, fmt.Sprintf("null|null|null|null|null|null|null|%d|-1", us20240501+123000)},
		{"offset zone", `{"ts":"2024-05-01T02:00:00+02:00"}`, fmt.Sprintf("null|null|null|null|null|null|null|%d|null", us20240501)},
		{"duplicate key last wins", `{"i":1,"i":2}`, "null|2|null|null|null|null|null|null|null"},
		{"quoted number", `{"i":"42","f":"0.5"}`, "null|42|null|0.5|null|null|null|null|null"},
		{"crlf", "{\"i\":9}\r", "null|9|null|null|null|null|null|null|null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "x.json", tc.line+"\n", 0)
			rows, err := readOne(t, Options{Path: dir, Format: JSON, Schema: allTypes})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0] != tc.want {
				t.Fatalf("got %q\nwant %q", rows, tc.want)
			}
		})
	}
}

func TestJSONMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"bad timestamp", `{"event_time":"abc"}`, `file clicks-3.json line 3: field event_time: cannot parse "abc" as timestamp; fix or remove the line, or give the query a dead-letter sink (DeadLetterSink) to route bad records`},
		{"fraction into int", `{"n":1.5}`, `file clicks-3.json line 3: field n: cannot parse "1.5" as int64; fix`},
		{"string into int", `{"n":"x"}`, `field n: cannot parse "x" as int64`},
		{"bool into int", `{"n":true}`, `field n: expected a number, found true`},
		{"object into int", `{"n":{}}`, `field n: expected a number, found an object`},
		{"not an object", `[1,2]`, `line 3: invalid JSON at column 1: a line must hold one JSON object`},
		{"truncated", `{"user":"a`, `line 3: invalid JSON at column 9: unterminated string`},
		{"missing colon", `{"user" "a"}`, `invalid JSON at column 9: expected ':'`},
		{"trailing", `{"n":1} x`, `unexpected text after the object`},
		{"bad literal", `{"n":nul}`, `unknown literal`},
		{"int overflow", `{"n":99999999999999999999}`, `cannot parse "99999999999999999999" as int64`},
		{"bad date", `{"event_time":"2024-02-30T00:00:00Z"}`, `cannot parse "2024-02-30T00:00:00Z" as timestamp`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			content := `{"user":"ok","n":1}` + "\n\n" + tc.line + "\n" + `{"user":"after","n":2}` + "\n"
			writeFile(t, dir, "clicks-3.json", content, 0)
			_, err := readOne(t, Options{Path: dir, Format: JSON, Schema: clickSchema})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
			if !errors.Is(err, sources.ErrBadRecord) {
				t.Fatal("error does not wrap ErrBadRecord")
			}
			var re *RecordError
			if !errors.As(err, &re) || re.File != "clicks-3.json" || re.Line != 3 {
				t.Fatalf("record error %+v", re)
			}

			// With dead letters the line is routed and the rest is read.
			dl := &deadLetters{}
			rows, err := readOne(t, Options{Path: dir, Format: JSON, Schema: clickSchema, DeadLetters: dl})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, []string{"ok|1|null", "after|2|null"}) {
				t.Fatalf("rows %v", rows)
			}
			if len(dl.recs) != 1 || dl.recs[0].Position != 3 || string(dl.recs[0].Raw) != tc.line ||
				dl.recs[0].Source != "clicks-3.json" || !errors.Is(dl.recs[0].Err, sources.ErrBadRecord) {
				t.Fatalf("dead letters %+v", dl.recs)
			}
			if strings.Contains(dl.recs[0].Err.Error(), "set DeadLetters") {
				t.Fatal("routed error suggests setting DeadLetters")
			}
		})
	}
}

func TestCSV(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.csv", "event_time;extra;user;n\n2024-05-01 00:00:00;x;alice;1\n;y;;\n1714521600000;z;bob;3\n", 0)
	rows, err := readOne(t, Options{Path: dir, Format: CSV, Schema: clickSchema, Header: true, Delimiter: ';'})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("alice|1|%d", us20240501),
		"null|null|null",
		fmt.Sprintf("bob|3|%d", us20240501),
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("rows %v\nwant %v", rows, want)
	}

	// Without a header, columns are positional.
	dir2 := t.TempDir()
	writeFile(t, dir2, "b.csv", "carol,4,2024-05-01T00:00:00Z\n\"d,e\",5,\n", 0)
	rows, err = readOne(t, Options{Path: dir2, Format: CSV, Schema: clickSchema})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rows, []string{fmt.Sprintf("carol|4|%d", us20240501), "d,e|5|null"}) {
		t.Fatalf("rows %v", rows)
	}
}

func TestCSVMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, row, want, raw string
	}{
		{"bad int", "bob,x1,2024-05-01", `file c.csv line 3: field n: cannot parse "x1" as int64; fix or remove the line`, "bob,x1,2024-05-01"},
		{"too few fields", "bob,1", `file c.csv line 3: has 2 fields, expected 3`, "bob,1"},
		{"bad timestamp", "bob,1,yesterday", `line 3: field event_time: cannot parse "yesterday" as timestamp`, "bob,1,yesterday"},
		{"bare quote", `bo"b,1,`, `line 3: bare " in non-quoted-field`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "c.csv", "user,n,event_time\nann,1,\n"+tc.row+"\nzed,2,\n", 0)
			_, err := readOne(t, Options{Path: dir, Format: CSV, Schema: clickSchema, Header: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, sources.ErrBadRecord) {
				t.Fatalf("error %v\nwant %q", err, tc.want)
			}
			dl := &deadLetters{}
			rows, err := readOne(t, Options{Path: dir, Format: CSV, Schema: clickSchema, Header: true, DeadLetters: dl})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, []string{"ann|1|null", "zed|2|null"}) {
				t.Fatalf("rows %v", rows)
			}
			if len(dl.recs) != 1 || dl.recs[0].Position != 3 || string(dl.recs[0].Raw) != tc.raw {
				t.Fatalf("dead letters %+v", dl.recs)
			}
		})
	}
}

func TestBatchSizeAndGzip(t *testing.T) {
	dir := t.TempDir()
	var buf bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&buf, `{"user":"u%d","n":%d,"event_time":%d}`+"\n", i%7, i, 1714521600000+int64(i))
	}
	writeFile(t, dir, "big.json", buf.String(), 0)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(buf.Bytes())
	w.Close()
	writeFile(t, dir, "big2.json.gz", gz.String(), 1)
	rows, err := readOne(t, Options{Path: dir, Format: JSON, Schema: clickSchema})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 40000 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		j := i % 20000
		if want := fmt.Sprintf("u%d|%d|%d", j%7, j, us20240501+int64(j)*1000); r != want {
			t.Fatalf("row %d = %s, want %s", i, r, want)
		}
	}
}

func TestParseTimestampOracle(t *testing.T) {
	layouts := []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		ts := time.Unix(r.Int64N(8e9)-4e9, r.Int64N(1e9)).In(time.FixedZone("", (r.IntN(49)-24)*1800))
		if r.IntN(4) == 0 {
			ts = ts.Truncate(time.Second)
		}
		s := ts.Format(layouts[r.IntN(len(layouts))])
		want, err := time.Parse(strings.Replace(layouts[0], "T", "T", 1), strings.Replace(s, " ", "T", 1))
		if err != nil {
			want, err = time.Parse("2006-01-02T15:04:05.999999999", strings.Replace(s, " ", "T", 1))
		}
		if err != nil {
			want, err = time.Parse("2006-01-02", s)
		}
		if err != nil {
			t.Fatalf("oracle cannot parse %q: %v", s, err)
		}
		got, ok := textdecode.ParseTimestamp([]byte(s))
		if !ok || got != want.Truncate(time.Microsecond).UnixMicro() {
			t.Fatalf("%q: got %d %v, want %d", s, got, ok, want.UnixMicro())
		}
	}
	for _, bad := range []string{"", "2024", "2024-13-01", "2024-01-32", "2024-01-01T25:00:00", "2024-01-01T00:00", "2024-01-01T00:00:00.", "2024-01-01T00:00:00+1", "2024-01-01x", "2024-01-01T00:00:00Zjunk", "2023-02-29"} {
		if _, ok := textdecode.ParseTimestamp([]byte(bad)); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func BenchmarkJSONRead(b *testing.B) {
	dir := b.TempDir()
	var buf bytes.Buffer
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&buf, `{"user":"user-%d","n":%d,"event_time":"2024-05-01T12:%02d:%02d.%06dZ","extra":{"a":[1,2]}}`+"\n", i%1000, i, i/60%60, i%60, i)
	}
	writeFileB(b, dir, "x.json", buf.Bytes())
	s, _ := New(Options{Path: dir, Format: JSON, Schema: clickSchema})
	p := &Partition{File: "x.json", src: s}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Read(context.Background(), memAlloc, func(rec arrow.RecordBatch) error { rec.Release(); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100000/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkCSVRead(b *testing.B) {
	dir := b.TempDir()
	var buf bytes.Buffer
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&buf, "user-%d,%d,2024-05-01T12:%02d:%02d.%06dZ\n", i%1000, i, i/60%60, i%60, i)
	}
	writeFileB(b, dir, "x.csv", buf.Bytes())
	s, _ := New(Options{Path: dir, Format: CSV, Schema: clickSchema})
	p := &Partition{File: "x.csv", src: s}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := p.Read(context.Background(), memAlloc, func(rec arrow.RecordBatch) error { rec.Release(); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*100000/b.Elapsed().Seconds(), "rows/s")
}
