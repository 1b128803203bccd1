package functions

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var (
	tString = arrow.BinaryTypes.String
	tInt    = arrow.PrimitiveTypes.Int32
)

func lit(t arrow.DataType, v any) Arg { return Arg{Type: t, Const: true, Value: v} }

// TestBindErrors checks the calls refused when a query is bound, before it
// runs, and that the error names the function and what to fix.
func TestBindErrors(t *testing.T) {
	s := Arg{Type: tString}
	for _, c := range []struct {
		name string
		args []Arg
		want string
	}{
		{"regexp_extract", []Arg{s, lit(tString, "([0-9]+)"), lit(tInt, int32(3))}, "group index 3 is out of range: the pattern \"([0-9]+)\" has groups 0 to 1"},
		{"regexp_extract", []Arg{s, lit(tString, "[0-9]+")}, "group index 1 is out of range"},
		{"regexp_extract_all", []Arg{s, lit(tString, "([0-9]+)"), lit(tInt, int32(3))}, "regexp_extract_all: group index 3 is out of range: the pattern \"([0-9]+)\" has groups 0 to 1"},
		{"regexp_extract_all", []Arg{s, lit(tString, "[0-9]+")}, "regexp_extract_all: group index 1 is out of range"},
		{"regexp_extract", []Arg{s, lit(tString, "(a)(?<=b)"), lit(tInt, int32(1))}, "RE2 syntax"},
		{"regexp_replace", []Arg{s, lit(tString, "l"), lit(tString, "$$")}, "$ not followed by a group number"},
		{"regexp_replace", []Arg{s, lit(tString, "(l)"), lit(tString, "$2")}, "refers to group 2; the pattern has 1"},
		{"regexp_replace", []Arg{s, lit(tString, "l"), lit(tString, `x\`)}, "ends with \\"},
		{"regexp_replace", []Arg{s, lit(tString, "l"), lit(tString, "x"), lit(tInt, int32(0))}, "position 0 must be positive"},
		{"split", []Arg{s, lit(tString, "(")}, "split: the pattern \"(\""},
		{"rlike", []Arg{s, lit(tString, "a{2,1}")}, "rlike: the pattern"},
		{"like", []Arg{s, lit(tString, `a\b`)}, "not allowed to precede"},
		{"like", []Arg{s, lit(tString, "a%"), s}, "escape (argument 3) must be a string literal of one character"},
		{"md5", []Arg{{Type: tInt}}, "argument 1 must be a string or binary value, not int"},
		{"hash", []Arg{{Type: arrow.MapOf(tString, tString)}}, "argument 1 must be an INT, BIGINT"},
		{"substring", []Arg{s, {Type: arrow.FixedWidthTypes.Boolean}}, "argument 2 must be an integer, not bool"},
		{"from_json", []Arg{s, s}, "schema (argument 2) must be a string literal"},
		{"from_json", []Arg{s, lit(tString, "a ARRAY<INT>")}, "type ARRAY<INT> of field a is not supported by from_json yet"},
		{"from_json", []Arg{s, lit(tString, "a")}, "expected 'name TYPE'"},
		{"from_json", []Arg{s, lit(tString, "a INT, a STRING")}, "field a appears twice"},
		{"concat_ws", []Arg{s, {Type: arrow.ListOf(tInt)}}, "argument 2 must be a string or an array of strings"},
		{"lower", []Arg{s, s}, "lower takes 1 argument, got 2"},
		{"format_string", []Arg{lit(tString, "%g")}, "the conversion %g is not supported"},
		{"decode", []Arg{s, lit(tString, "latin1")}, `the charset "latin1" is not one of iso-8859-1`},
		{"format_string", []Arg{lit(tString, "%-d")}, "the flag - needs a width"},
		{"format_string", []Arg{lit(tString, "abc %")}, "ends in the middle of a specifier"},
	} {
		_, err := Bind(c.name, c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name) {
			t.Errorf("%s%v: got %v, want an error starting with %s and containing %q", c.name, c.args, err, c.name, c.want)
		}
	}
}

func strings1(vals ...string) *array.String {
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray().(*array.String)
}

// TestRuntimeErrors checks the failures that depend on a row: a pattern
// from a column that does not compile, a group index from a column, a
// result too large to build.
func TestRuntimeErrors(t *testing.T) {
	s := strings1("abc", "a(")
	defer s.Release()
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, c := range []struct {
		name string
		args []Arg
		cols []arrow.Array
		want string
	}{
		{"rlike", []Arg{lit(tString, "abc"), {Type: tString}}, []arrow.Array{nil, s}, `rlike: the pattern "a("`},
		{"split", []Arg{lit(tString, "abc"), {Type: tString}}, []arrow.Array{nil, s}, `split: the pattern "a("`},
		{"regexp_extract", []Arg{{Type: tString}, lit(tString, "(b)"), {Type: tInt}}, []arrow.Array{s, nil, ints(2, 0)}, "group index 2 is out of range"},
		{"regexp_extract_all", []Arg{{Type: tString}, lit(tString, "(b)"), {Type: tInt}}, []arrow.Array{s, nil, ints(2, 0)}, "regexp_extract_all: group index 2 is out of range"},
		{"url_decode", []Arg{lit(tString, "a%2")}, []arrow.Array{nil}, `url_decode: "a%2" has an incomplete escape`},
		{"url_decode", []Arg{lit(tString, "a%zz")}, []arrow.Array{nil}, `url_decode: "a%zz" has an invalid escape "%zz"`},
		{"format_string", []Arg{lit(tString, "%d"), {Type: tString}}, []arrow.Array{nil, s}, "format_string: %d cannot format a utf8 value"},
		{"format_string", []Arg{lit(tString, "%s %s"), {Type: tString}}, []arrow.Array{nil, s}, "format_string: the format wants argument 2; there are 1"},
		{"decode", []Arg{lit(tString, "\xff"), lit(tString, "UTF-8")}, []arrow.Array{nil, nil}, "decode: a value is not valid in UTF-8"},
		{"encode", []Arg{lit(tString, "é"), lit(tString, "US-ASCII")}, []arrow.Array{nil, nil}, "encode: a value is not valid in US-ASCII"},
		{"decode", []Arg{lit(tString, "abc"), {Type: tString}}, []arrow.Array{nil, s}, `decode: the charset "abc" is not one of`},
		{"unbase64", []Arg{lit(tString, "aGVsbG8=x")}, []arrow.Array{nil}, `unbase64: "aGVsbG8=x" is not Base64`},
		{"repeat", []Arg{{Type: tString}, lit(tInt, int32(1<<30))}, []arrow.Array{s, nil}, "repeat: the result would be more than"},
		{"lpad", []Arg{{Type: tString}, lit(tInt, int32(1<<30)), lit(tString, "x")}, []arrow.Array{s, nil, nil}, "lpad/rpad: the result would be more than"},
	} {
		b, err := Bind(c.name, c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out, err := b.Eval(mem, c.cols, 2)
		if err == nil {
			out.Release()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

func ints(vals ...int32) *array.Int32 {
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray().(*array.Int32)
}
