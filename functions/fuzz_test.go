package functions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fuzzFuncs are the row-wise functions FuzzStringFunctions calls, with
// the kinds of their arguments (s string, i INT).
var fuzzFuncs = []struct{ name, kinds string }{
	{"length", "s"}, {"substring", "sii"}, {"left", "si"}, {"right", "si"}, {"substring_index", "ssi"},
	{"lpad", "sis"}, {"rpad", "sis"}, {"trim", "ss"}, {"ltrim", "ss"}, {"btrim", "ss"}, {"instr", "ss"},
	{"locate", "ssi"}, {"reverse", "s"}, {"repeat", "si"}, {"ascii", "s"}, {"initcap", "s"},
	{"translate", "sss"}, {"concat_ws", "sss"}, {"replace", "sss"}, {"regexp_extract", "ssi"},
	{"regexp_replace", "sssi"}, {"split", "ssi"}, {"like", "ss"}, {"rlike", "ss"}, {"ilike", "ss"},
	{"regexp_extract_all", "ssi"}, {"regexp_count", "ss"}, {"regexp_substr", "ss"}, {"regexp_instr", "ss"},
	{"get_json_object", "ss"}, {"json_array_length", "s"}, {"json_object_keys", "s"}, {"levenshtein", "ss"},
	{"find_in_set", "ss"}, {"unbase64", "s"}, {"parse_url", "ss"}, {"url_decode", "s"}, {"overlay", "ssii"},
	{"soundex", "s"}, {"hash", "si"}, {"xxhash64", "si"}, {"elt", "iss"}, {"format_string", "ssi"}, {"encode", "ss"}, {"decode", "ss"},
}

// FuzzStringFunctions calls every function above with the fuzzer's
// strings and integers, both as columns and as literals: none may panic
// (an error is fine), and a result has one row per input row.
func FuzzStringFunctions(f *testing.F) {
	f.Add("Hello, World", "o", "$.a", int32(2), int32(-3))
	f.Add(`{"a":[1,{"b":"x"}]}`, "$.a[*].b", "[a-z]+", int32(0), int32(1<<31-1))
	f.Add("日本語😀\xff\xfe", "", "(a)|b*", int32(-1<<31), int32(5))
	f.Add("a%2", "%", `\`, int32(1), int32(0))
	f.Fuzz(func(t *testing.T, s1, s2, s3 string, n1, n2 int32) {
		if len(s1)+len(s2)+len(s3) > 1<<12 || n1 > 1<<12 || n2 > 1<<12 {
			return // no giant results (repeat, lpad)
		}
		mem := memory.NewGoAllocator()
		strs := []string{s1, s2, s3}
		ints := []int32{n1, n2}
		for _, fn := range fuzzFuncs {
			for _, asLit := range []bool{false, true} {
				args := make([]Arg, len(fn.kinds))
				cols := make([]arrow.Array, len(fn.kinds))
				si, ii := 0, 0
				for k := range fn.kinds {
					var v any
					var typ arrow.DataType
					if fn.kinds[k] == 'i' {
						v, typ = ints[ii%2], arrow.PrimitiveTypes.Int32
						ii++
					} else {
						v, typ = strs[si%3], arrow.BinaryTypes.String
						si++
					}
					if asLit && k > 0 {
						args[k] = Arg{Type: typ, Const: true, Value: v}
						continue
					}
					args[k] = Arg{Type: typ}
					cols[k] = column1(mem, typ, v)
				}
				b, err := Bind(fn.name, args)
				if err == nil {
					out, err := b.Eval(mem, cols, 2)
					if err == nil {
						if out.Len() != 2 {
							t.Fatalf("%s: %d rows for 2", fn.name, out.Len())
						}
						out.Release()
					}
				}
				for _, c := range cols {
					if c != nil {
						c.Release()
					}
				}
			}
		}
	})
}

// column1 is a column of v and a null.
func column1(mem memory.Allocator, typ arrow.DataType, v any) arrow.Array {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	switch bb := b.(type) {
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.Int32Builder:
		bb.Append(v.(int32))
	}
	b.AppendNull()
	return b.NewArray()
}

// FuzzJSONReader checks the JSON reader of get_json_object and from_json
// against encoding/json: a document it reads whole ($) is valid JSON and
// what it writes parses to the same value; a valid document is read.
func FuzzJSONReader(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.5e3, "x\u00e9\n"], "b": {"c": null}}`, `[]`, `"s"`, `-0`, `1e400`, `{"a":1,}`, `[1 2]`, `"\ud83d\ude00"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		d := jsonDoc{s: doc}
		var out []byte
		err := d.copyValue(&out)
		d.ws()
		readWhole := err == nil && d.pos == len(doc)
		valid := json.Valid([]byte(doc)) && strings.TrimSpace(doc) != ""
		if readWhole != valid {
			if !valid && strings.IndexFunc(doc, func(r rune) bool { return r < 0x20 }) >= 0 {
				return // control characters in strings: Spark's parser allows them, as ours does
			}
			t.Fatalf("%q: read whole %v (err %v), encoding/json valid %v", doc, readWhole, err, valid)
		}
		if readWhole && !json.Valid(out) && !strings.Contains(string(out), "Infinity") {
			t.Fatalf("%q: wrote invalid JSON %q", doc, out)
		}
	})
}
