package millrace_test

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestStringHashJSONWrappersMatchSQL checks that each Go API wrapper of
// the string, hash and JSON functions computes what the SQL call it names
// computes (whose results TestFunctionsMatchSpark checks against Spark),
// split's array<string> included.
func TestStringHashJSONWrappersMatchSQL(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	rows := [][]any{{"Hello, World"}, {"a,b,,c"}, {""}, {nil}, {`{"a": {"b": [1, 2]}}`}, {"日本語😀x"}}
	s := millrace.Col("s")
	pairs := []struct {
		col millrace.Column
		sql string
	}{
		{millrace.Length(s), "length(s)"},
		{millrace.ParseURL(millrace.Concat(millrace.Lit("http://h.com/p?a="), millrace.URLEncode(s)), "QUERY"), "parse_url(concat('http://h.com/p?a=', url_encode(s)), 'QUERY')"},
		{millrace.ParseURLQuery(millrace.Lit("http://h.com/p?a=1&b=2"), "b"), "parse_url('http://h.com/p?a=1&b=2', 'QUERY', 'b')"},
		{millrace.URLDecode(millrace.URLEncode(s)), "url_decode(url_encode(s))"},
		{millrace.Overlay(s, "__", 2, -1), "overlay(s, '__', 2)"},
		{millrace.Soundex(s), "soundex(s)"},
		{millrace.Decode(millrace.Encode(s, "UTF-16LE"), "utf-16le"), "decode(encode(s, 'UTF-16LE'), 'utf-16le')"},
		{millrace.FormatString("%-8s|%05d|%.2f", s, millrace.Length(s), millrace.Lit(2.345)), "format_string('%-8s|%05d|%.2f', s, length(s), 2.345D)"},
		{millrace.OctetLength(s), "octet_length(s)"},
		{millrace.BitLength(s), "bit_length(s)"},
		{millrace.Space(millrace.Length(s)), "space(length(s))"},
		{millrace.Substring(s, -3, 2), "substring(s, -3, 2)"},
		{millrace.Left(s, 2), "left(s, 2)"},
		{millrace.Right(s, 2), "right(s, 2)"},
		{millrace.Concat(s, millrace.Lit("-"), s), "concat(s, '-', s)"},
		{millrace.ConcatWS("|", s, millrace.Lit(nil), s), "concat_ws('|', s, NULL, s)"},
		{millrace.Trim(s), "trim(s)"},
		{millrace.LTrim(s), "ltrim(s)"},
		{millrace.RTrim(s), "rtrim(s)"},
		{millrace.TrimChars(s, "Hx"), "btrim(s, 'Hx')"},
		{millrace.Split(s, ","), "split(s, ',')"},
		{millrace.SplitN(s, ",", 2), "split(s, ',', 2)"},
		{millrace.Replace(s, "l", "L"), "replace(s, 'l', 'L')"},
		{millrace.RegexpExtract(s, `([a-z]+)`, 1), "regexp_extract(s, '([a-z]+)', 1)"},
		{millrace.RegexpReplace(s, `(o)`, "<$1>"), "regexp_replace(s, '(o)', '<$1>')"},
		{millrace.StartsWith(s, "He"), "startswith(s, 'He')"},
		{millrace.EndsWith(s, "c"), "endswith(s, 'c')"},
		{millrace.Contains(s, ","), "contains(s, ',')"},
		{millrace.InitCap(s), "initcap(s)"},
		{millrace.LPad(s, 8, "*"), "lpad(s, 8, '*')"},
		{millrace.RPad(s, 8, "ab"), "rpad(s, 8, 'ab')"},
		{millrace.InStr(s, "o"), "instr(s, 'o')"},
		{millrace.Locate("o", s, 6), "locate('o', s, 6)"},
		{millrace.Reverse(s), "reverse(s)"},
		{millrace.Repeat(s, 2), "repeat(s, 2)"},
		{millrace.ASCII(s), "ascii(s)"},
		{millrace.SubstringIndex(s, ",", -2), "substring_index(s, ',', -2)"},
		{millrace.Translate(s, "lo", "0"), "translate(s, 'lo', '0')"},
		{millrace.Hash(s, millrace.Length(s)), "hash(s, length(s))"},
		{millrace.XXHash64(s), "xxhash64(s)"},
		{millrace.MD5(s), "md5(s)"},
		{millrace.SHA1(s), "sha1(s)"},
		{millrace.SHA2(s, 384), "sha2(s, 384)"},
		{millrace.CRC32(s), "crc32(s)"},
		{millrace.GetJSONObject(s, "$.a.b[1]"), "get_json_object(s, '$.a.b[1]')"},
		{millrace.FromJSON(s, "a STRING, b INT"), "from_json(s, 'a STRING, b INT')"},
		{millrace.JSONArrayLength(millrace.GetJSONObject(s, "$.a.b")), "json_array_length(get_json_object(s, '$.a.b'))"},
		{millrace.JSONObjectKeys(s), "json_object_keys(s)"},
		{millrace.Chr(millrace.Length(s)), "chr(length(s))"},
		{millrace.Elt(millrace.Lit(2), s, millrace.Reverse(s)), "elt(2, s, reverse(s))"},
		{millrace.Levenshtein(s, millrace.Lit("Hello")), "levenshtein(s, 'Hello')"},
		{millrace.FindInSet(millrace.Lit("b"), s), "find_in_set('b', s)"},
		{millrace.SplitPart(s, ",", -1), "split_part(s, ',', -1)"},
		{millrace.Unbase64(millrace.Base64(s)), "unbase64(base64(s))"},
		{millrace.RegexpExtractAll(s, `([a-z])`, 1), "regexp_extract_all(s, '([a-z])', 1)"},
		{millrace.RegexpCount(s, `[a-z]`), "regexp_count(s, '[a-z]')"},
		{millrace.RegexpSubstr(s, `[a-z]+`), "regexp_substr(s, '[a-z]+')"},
		{millrace.RegexpInstr(s, `[a-z]+`), "regexp_instr(s, '[a-z]+')"},
	}
	for _, p := range pairs {
		t.Run(p.sql, func(t *testing.T) {
			run := func(sel func(*millrace.Stream) *millrace.Stream) string {
				src, err := memsrc.New(schema, memsrc.Options{})
				if err != nil {
					t.Fatal(err)
				}
				rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, rows)
				if err != nil {
					t.Fatal(err)
				}
				defer rec.Release()
				if _, err := src.AddBatch(rec); err != nil {
					t.Fatal(err)
				}
				st := sel(millrace.ReadStream(src))
				if st.Err() != nil {
					t.Fatal(st.Err())
				}
				return fmt.Sprint(st.Schema().Field(0).Type, runAll(t, st, millrace.Append))
			}
			api := run(func(st *millrace.Stream) *millrace.Stream { return st.Select(p.col) })
			sql := run(func(st *millrace.Stream) *millrace.Stream { return st.SelectExpr(p.sql) })
			if api != sql {
				t.Errorf("Go API %s, SQL %s", api, sql)
			}
		})
	}
}

// TestSplitThroughFilter carries split's array<string> through a filter
// (the selection is applied with kernels.Take) to the sink.
func TestSplitThroughFilter(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	src, err := memsrc.New(schema, memsrc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, [][]any{{"a,b"}, {"x"}, {nil}, {"c,,d"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if _, err := src.AddBatch(rec); err != nil {
		t.Fatal(err)
	}
	st := millrace.ReadStream(src).
		Select(millrace.Split(millrace.Col("s"), ",").As("parts"), millrace.Col("s")).
		Where(millrace.Contains(millrace.Col("s"), ","))
	if st.Err() != nil {
		t.Fatal(st.Err())
	}
	got := fmt.Sprint(runAll(t, st, millrace.Append))
	if want := "[[[a b] a,b] [[c  d] c,,d]]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestDecodeBinaryValue reads a binary column (a Kafka value) as a string
// with decode and takes a field of its JSON, as a Spark query over Kafka
// does with CAST(value AS STRING).
func TestDecodeBinaryValue(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true}}, nil)
	src, err := memsrc.New(schema, memsrc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := memsrc.BuildRecord(memory.DefaultAllocator, schema, [][]any{{[]byte(`{"user": "ann", "n": 3}`)}, {nil}, {[]byte(`{"user": "bob"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if _, err := src.AddBatch(rec); err != nil {
		t.Fatal(err)
	}
	st := millrace.ReadStream(src).SelectExpr("get_json_object(decode(value, 'UTF-8'), '$.user') AS user", "md5(value) AS h")
	if st.Err() != nil {
		t.Fatal(st.Err())
	}
	got := fmt.Sprint(runAll(t, st, millrace.Append))
	// The digests are Python's hashlib.md5 of the same bytes.
	if want := "[[ann 1a9db3c507784efabbb21b499666f55f] [<nil> <nil>] [bob 182fbb29da9e2a38cc0fd7d206febc47]]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
