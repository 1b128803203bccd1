package functions

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestStringHashJSONRelease evaluates each string, hash and JSON function over columns
// (nulls included) and literals with a checked allocator: every buffer
// made is released or handed to the caller.
func TestStringHashJSONRelease(t *testing.T) {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.AppendValues([]string{"a,b", `{"a":[1,{"b":2}]}`, "", "héllo wörld"}, []bool{true, true, true, true})
	sb.AppendNull()
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	ib := array.NewInt32Builder(memory.DefaultAllocator)
	ib.AppendValues([]int32{1, -2, 0, 3}, nil)
	ib.AppendNull()
	in := ib.NewArray()
	ib.Release()
	defer in.Release()
	col := map[byte]Arg{'s': {Type: tString}, 'i': {Type: tInt}}
	for _, c := range []struct{ name, kinds string }{
		{"length", "s"}, {"octet_length", "s"}, {"substring", "sii"}, {"left", "si"}, {"right", "si"},
		{"substring_index", "ssi"}, {"lpad", "sis"}, {"rpad", "sis"}, {"trim", "ss"}, {"btrim", "s"},
		{"instr", "ss"}, {"locate", "ssi"}, {"startswith", "ss"}, {"contains", "ss"}, {"reverse", "s"},
		{"repeat", "si"}, {"space", "i"}, {"ascii", "s"}, {"initcap", "s"}, {"translate", "sss"},
		{"concat", "ss"}, {"concat_ws", "sss"}, {"replace", "sss"}, {"regexp_extract", "ssi"},
		{"regexp_replace", "sssi"}, {"split", "ssi"}, {"like", "ss"}, {"rlike", "ss"},
		{"hash", "si"}, {"xxhash64", "si"}, {"md5", "s"}, {"sha2", "si"}, {"crc32", "s"},
		{"get_json_object", "ss"}, {"lower", "s"}, {"chr", "i"}, {"elt", "iss"}, {"levenshtein", "ssi"},
		{"find_in_set", "ss"}, {"base64", "s"}, {"unbase64", "s"},
		{"regexp_extract_all", "ssi"}, {"regexp_count", "ss"}, {"regexp_substr", "ss"}, {"regexp_instr", "ss"},
		{"json_array_length", "s"}, {"json_object_keys", "s"}, {"parse_url", "sss"}, {"url_encode", "s"},
		{"url_decode", "s"}, {"overlay", "ssii"}, {"soundex", "s"}, {"format_string", "ssi"}, {"encode", "ss"}, {"decode", "ss"},
	} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		args := make([]Arg, len(c.kinds))
		cols := make([]arrow.Array, len(c.kinds))
		for k := range c.kinds {
			args[k] = col[c.kinds[k]]
			cols[k] = s
			if c.kinds[k] == 'i' {
				cols[k] = in
			}
		}
		b, err := Bind(c.name, args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out, err := b.Eval(mem, cols, s.Len())
		if err == nil {
			out.Release()
		}
		mem.AssertSize(t, 0)
	}
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	b, err := Bind("from_json", []Arg{{Type: tString}, lit(tString, "a STRING, b INT")})
	if err != nil {
		t.Fatal(err)
	}
	out, err := b.Eval(mem, []arrow.Array{s, nil}, s.Len())
	if err != nil {
		t.Fatal(err)
	}
	out.Release()
	mem.AssertSize(t, 0)
}
