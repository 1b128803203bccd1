package functions

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func init() {
	register(&Func{Name: "from_json", MinArgs: 2, MaxArgs: 2, Bind: bindFromJSON})
}

// bindFromJSON is Spark's from_json(json, schema) in its default
// PERMISSIVE mode, for a schema of top-level fields given as a DDL string
// ('a INT, b STRING'; INT, BIGINT, DOUBLE, BOOLEAN, STRING): a struct of
// the fields of a JSON object. A field whose value does not fit its type
// is null (a STRING field takes any value, non-strings as compact JSON); a
// repeated key takes its last value; a malformed document or one that is
// not an object gives a struct of nulls; null or blank text gives null.
func bindFromJSON(args []Arg) (Bound, error) {
	if err := checkArgs(args[:1], "s"); err != nil {
		return Bound{}, err
	}
	ddl, ok := args[1].Value.(string)
	if !args[1].Const || !ok {
		return Bound{}, fmt.Errorf("the schema (argument 2) must be a string literal such as 'a INT, b STRING'")
	}
	fields, err := parseDDLFields(ddl)
	if err != nil {
		return Bound{}, err
	}
	typ := arrow.StructOf(fields...)
	return Bound{Type: typ, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args[:1], cols[:1], n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		sb := array.NewStructBuilder(mem, typ)
		defer sb.Release()
		sb.Reserve(n)
		slots := make([]jsonSlot, len(fields))
		index := make(map[string]int, len(fields))
		for k, f := range fields {
			index[f.Name] = k
		}
		for i := range n {
			if a.null(i) || strings.TrimSpace(a.s[0].value(i)) == "" {
				sb.AppendNull()
				continue
			}
			for k := range slots {
				slots[k].set = false
			}
			d := jsonDoc{s: a.s[0].value(i), nonNumeric: true}
			var err error
			if d.peek() == '{' {
				err = d.fields(func(name string) error {
					k, ok := index[name]
					if !ok {
						return d.copyValue(nil)
					}
					return slots[k].read(&d, fields[k].Type)
				})
			} else {
				err = errJSON
			}
			sb.Append(true)
			for k := range fields {
				slots[k].append(sb.FieldBuilder(k), err == nil)
			}
		}
		return sb.NewArray(), nil
	}}, nil
}

// jsonSlot holds one field's value of the current document.
type jsonSlot struct {
	set  bool
	i    int64
	f    float64
	b    bool
	text []byte
}

// read reads the value at d into the slot as type t; a value that does
// not fit leaves the slot null.
func (s *jsonSlot) read(d *jsonDoc, t arrow.DataType) error {
	s.set = false
	c := d.peek()
	if c == 'n' {
		return d.copyValue(nil)
	}
	switch t.ID() {
	case arrow.STRING:
		s.text = s.text[:0]
		if c == '"' {
			str, err := d.str()
			s.text = append(s.text, str...)
			s.set = err == nil
			return err
		}
		err := d.copyValue(&s.text)
		s.set = err == nil
		return err
	case arrow.BOOL:
		if c == 't' || c == 'f' {
			s.b, s.set = c == 't', true
		}
		return d.copyValue(nil)
	case arrow.INT32, arrow.INT64, arrow.FLOAT64:
		if t.ID() == arrow.FLOAT64 {
			if v, _, ok := d.nonNumericAt(); ok {
				s.f, s.set = v, true
				return d.copyValue(nil)
			}
			if c == '"' { // Spark reads these strings as doubles too
				str, err := d.str()
				s.f, s.set = nonNumericString(str)
				return err
			}
		}
		start := d.pos
		if err := d.copyValue(nil); err != nil {
			return err
		}
		if c != '-' && (c < '0' || c > '9') {
			return nil
		}
		text := d.s[start:d.pos]
		if t.ID() == arrow.FLOAT64 {
			f, err := strconv.ParseFloat(text, 64)
			s.f, s.set = f, err == nil
			return nil
		}
		bits := 64
		if t.ID() == arrow.INT32 {
			bits = 32
		}
		v, err := strconv.ParseInt(text, 10, bits)
		s.i, s.set = v, err == nil
		return nil
	}
	return d.copyValue(nil)
}

func (s *jsonSlot) append(b array.Builder, ok bool) {
	if !ok || !s.set {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		b.BinaryBuilder.Append(s.text)
	case *array.BooleanBuilder:
		b.Append(s.b)
	case *array.Int32Builder:
		b.Append(int32(s.i))
	case *array.Int64Builder:
		b.Append(s.i)
	case *array.Float64Builder:
		b.Append(s.f)
	}
}

// parseDDLFields parses 'name TYPE, …' (or 'struct<name: TYPE, …>') of
// the types from_json supports.
func parseDDLFields(ddl string) ([]arrow.Field, error) {
	var out []arrow.Field
	body, sep := strings.TrimSpace(ddl), " "
	if len(body) > 7 && strings.EqualFold(body[:7], "struct<") && strings.HasSuffix(body, ">") {
		body, sep = body[7:len(body)-1], ":" // struct<name: TYPE, …>
	}
	seen := map[string]bool{}
	for _, part := range strings.Split(body, ",") {
		ws := strings.Fields(strings.Replace(part, sep, " ", 1))
		if len(ws) != 2 {
			return nil, fmt.Errorf("schema %s: expected 'name TYPE' in %q (nested types are not supported yet)", strconv.Quote(ddl), strings.TrimSpace(part))
		}
		name := ws[0]
		if len(name) > 1 && name[0] == '`' && name[len(name)-1] == '`' {
			name = name[1 : len(name)-1]
		} else if strings.IndexFunc(name, func(r rune) bool { return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) >= 0 {
			return nil, fmt.Errorf("schema %s: %q is not a field name (backquote it)", strconv.Quote(ddl), name)
		}
		var t arrow.DataType
		switch strings.ToUpper(ws[1]) {
		case "INT", "INTEGER":
			t = arrow.PrimitiveTypes.Int32
		case "BIGINT", "LONG":
			t = arrow.PrimitiveTypes.Int64
		case "DOUBLE":
			t = arrow.PrimitiveTypes.Float64
		case "BOOLEAN":
			t = arrow.FixedWidthTypes.Boolean
		case "STRING":
			t = arrow.BinaryTypes.String
		default:
			return nil, fmt.Errorf("schema %s: type %s of field %s is not supported by from_json yet (INT, BIGINT, DOUBLE, BOOLEAN, STRING are)", strconv.Quote(ddl), ws[1], name)
		}
		if seen[name] {
			return nil, fmt.Errorf("schema %s: field %s appears twice", strconv.Quote(ddl), name)
		}
		seen[name] = true
		out = append(out, arrow.Field{Name: name, Type: t, Nullable: true})
	}
	return out, nil
}

// nonNumericString is the double a JSON string stands for in a DOUBLE
// field, as Spark's JacksonParser reads it: NaN and the infinities.
func nonNumericString(s string) (float64, bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity", "+INF":
		return math.Inf(1), true
	case "-Infinity", "-INF":
		return math.Inf(-1), true
	}
	return 0, false
}
