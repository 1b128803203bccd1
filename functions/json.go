package functions

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/millrace/millrace/kernels"
)

func init() {
	register(&Func{Name: "get_json_object", MinArgs: 2, MaxArgs: 2, Bind: bindGetJSONObject})
}

// bindGetJSONObject is Spark's get_json_object(json, path): the value at
// path ($.a.b, $.a[0], $['a'], $.a[*].b) rendered as Spark renders it: a
// string without its quotes, anything else as compact JSON (numbers as
// Java prints a double or as the integer written); null when the document
// is malformed, the path invalid, or nothing (or a JSON null) is there.
// A literal path is parsed once.
func bindGetJSONObject(args []Arg) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	var litPath []pathStep
	litOK := false
	if p, ok := args[1].Value.(string); ok && args[1].Const {
		litPath, litOK = parseJSONPath(p)
	}
	return Bound{Type: arrow.BinaryTypes.String, Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		o := newStringsOut(mem, n, 0)
		defer o.release()
		path, pathOK := litPath, litOK
		lastPath, parsed := "", false // the column's path last parsed
		var g jsonGen
		for i := range n {
			if a.null(i) {
				o.null()
				continue
			}
			if cols[1] != nil {
				if p := a.s[1].value(i); !parsed || p != lastPath {
					path, pathOK = parseJSONPath(p)
					lastPath, parsed = p, true
				}
			}
			if !pathOK {
				o.null()
				continue
			}
			g.reset()
			doc := jsonDoc{s: a.s[0].value(i)}
			doc.ws()
			if doc.pos == len(doc.s) {
				o.null()
				continue
			}
			ok, err := doc.eval(&g, styleRaw, path)
			if err != nil || !ok {
				o.null()
				continue
			}
			o.bytes(g.buf)
		}
		return o.finish(), nil
	}}, nil
}

// pathStep is one instruction of a JSON path, as Spark's JsonPathParser
// makes them.
type pathStep struct {
	kind  byte // 'k' field name, 'i' index, '*' array wildcard, 'x' never matches
	name  string
	index int64
}

// parseJSONPath parses $ followed by .name, ['name'], [n], [*]; .* and
// ['*'] parse (as Spark) but match nothing.
func parseJSONPath(p string) ([]pathStep, bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false
	}
	p = p[1:]
	var out []pathStep
	for p != "" {
		switch {
		case strings.HasPrefix(p, ".*") || strings.HasPrefix(p, "['*']"):
			out = append(out, pathStep{kind: 'x'})
			if p[0] == '.' {
				p = p[2:]
			} else {
				p = p[5:]
			}
		case p[0] == '.':
			j := strings.IndexAny(p[1:], ".[")
			if j < 0 {
				j = len(p) - 1
			}
			if j == 0 {
				return nil, false
			}
			out = append(out, pathStep{kind: 'k', name: p[1 : 1+j]})
			p = p[1+j:]
		case strings.HasPrefix(p, "['"):
			j := strings.IndexByte(p[2:], '\'')
			if j <= 0 || !strings.HasPrefix(p[2+j:], "']") {
				return nil, false
			}
			out = append(out, pathStep{kind: 'k', name: p[2 : 2+j]})
			p = p[2+j+2:]
		case strings.HasPrefix(p, "[*]"):
			out = append(out, pathStep{kind: '*'})
			p = p[3:]
		case p[0] == '[':
			j := strings.IndexByte(p, ']')
			if j < 2 {
				return nil, false
			}
			for _, c := range p[1:j] {
				if c < '0' || c > '9' {
					return nil, false
				}
			}
			n, err := strconv.ParseInt(p[1:j], 10, 64)
			if err != nil {
				return nil, false
			}
			out = append(out, pathStep{kind: 'i', index: n})
			p = p[j+1:]
		default:
			return nil, false
		}
	}
	return out, true
}

// The write styles of Spark's GetJsonObject: a string at the end of the
// path is written raw at the top, quoted inside an array of matches, and
// arrays are flattened under a double wildcard.
const (
	styleRaw = iota
	styleQuoted
	styleFlatten
)

// jsonGen writes JSON compactly as Jackson's generator does: a comma
// between the values of an array.
type jsonGen struct {
	buf   []byte
	first []bool // per open array: no value written yet
}

func (g *jsonGen) reset() { g.buf, g.first = g.buf[:0], g.first[:0] }

func (g *jsonGen) beginValue() {
	if k := len(g.first); k > 0 {
		if !g.first[k-1] {
			g.buf = append(g.buf, ',')
		}
		g.first[k-1] = false
	}
}

func (g *jsonGen) startArray() {
	g.beginValue()
	g.buf = append(g.buf, '[')
	g.first = append(g.first, true)
}

func (g *jsonGen) endArray() {
	g.first = g.first[:len(g.first)-1]
	g.buf = append(g.buf, ']')
}

var errJSON = errors.New("malformed JSON")

// jsonDoc reads one JSON document (strictly, but allowing control
// characters in strings, as Spark's parser does).
type jsonDoc struct {
	s   string
	pos int
	// nonNumeric accepts NaN, Infinity, +Infinity and -Infinity as
	// numbers, as from_json's parser does (get_json_object's does not);
	// they are written quoted, as Jackson writes them.
	nonNumeric bool
}

// nonNumericAt returns the value of the non-numeric number at d.pos and
// its length, if there is one and d accepts them.
func (d *jsonDoc) nonNumericAt() (float64, int, bool) {
	if !d.nonNumeric {
		return 0, 0, false
	}
	for _, w := range [...]struct {
		text string
		v    float64
	}{{"NaN", math.NaN()}, {"Infinity", math.Inf(1)}, {"+Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)}} {
		if strings.HasPrefix(d.s[d.pos:], w.text) {
			return w.v, len(w.text), true
		}
	}
	return 0, 0, false
}

func (d *jsonDoc) ws() {
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonDoc) peek() byte {
	d.ws()
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

func (d *jsonDoc) expect(c byte) error {
	if d.peek() != c {
		return errJSON
	}
	d.pos++
	return nil
}

// eval is Spark's evaluatePath over the value at d.pos, writing matches
// to g; it reports whether anything matched.
func (d *jsonDoc) eval(g *jsonGen, style int, path []pathStep) (bool, error) {
	c := d.peek()
	if len(path) == 0 {
		switch {
		case c == '"' && style == styleRaw:
			str, err := d.str()
			if err != nil {
				return false, err
			}
			g.buf = append(g.buf, str...)
			return true, nil
		case c == '[' && style == styleFlatten:
			dirty := false
			err := d.elements(func() error {
				ok, err := d.eval(g, style, nil)
				dirty = dirty || ok
				return err
			})
			return dirty, err
		}
		g.beginValue()
		return true, d.copyValue(&g.buf)
	}
	st, rest := path[0], path[1:]
	switch {
	case st.kind == 'k' && c == '{':
		dirty := false
		err := d.fields(func(name string) error {
			if dirty || name != st.name || d.peek() == 'n' {
				return d.copyValue(nil)
			}
			ok, err := d.eval(g, style, rest)
			dirty = ok
			return err
		})
		return dirty, err
	case st.kind == '*' && c == '[' && len(rest) >= 1 && rest[0].kind == '*':
		dirty := false
		g.startArray()
		err := d.elements(func() error {
			ok, err := d.eval(g, styleFlatten, rest[1:])
			dirty = dirty || ok
			return err
		})
		g.endArray()
		return dirty, err
	case st.kind == '*' && c == '[' && style != styleQuoted:
		next := styleQuoted
		if style == styleFlatten {
			next = styleFlatten
		}
		var sub jsonGen
		sub.startArray()
		matches := 0
		err := d.elements(func() error {
			ok, err := d.eval(&sub, next, rest)
			if ok {
				matches++
			}
			return err
		})
		sub.endArray()
		if err != nil {
			return false, err
		}
		switch {
		case matches > 1:
			g.beginValue()
			g.buf = append(g.buf, sub.buf...)
		case matches == 1:
			g.beginValue()
			g.buf = append(g.buf, sub.buf[1:len(sub.buf)-1]...)
		}
		return matches > 0, nil
	case st.kind == '*' && c == '[':
		dirty := false
		g.startArray()
		err := d.elements(func() error {
			ok, err := d.eval(g, styleQuoted, rest)
			dirty = dirty || ok
			return err
		})
		g.endArray()
		return dirty, err
	case st.kind == 'i' && c == '[':
		if len(rest) > 0 && rest[0].kind == '*' {
			style = styleQuoted
		}
		dirty := false
		k := int64(0)
		err := d.elements(func() error {
			defer func() { k++ }()
			if k != st.index {
				return d.copyValue(nil)
			}
			ok, err := d.eval(g, style, rest)
			dirty = ok
			return err
		})
		return dirty, err
	}
	return false, d.copyValue(nil)
}

// elements calls f with d at each element of the array at d.pos.
func (d *jsonDoc) elements(f func() error) error {
	if err := d.expect('['); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.pos++
		return nil
	}
	for {
		if err := f(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return nil
		default:
			return errJSON
		}
	}
}

// fields calls f with each field name of the object at d.pos, with d at
// the field's value.
func (d *jsonDoc) fields(f func(name string) error) error {
	if err := d.expect('{'); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.peek() != '"' {
			return errJSON
		}
		name, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if err := f(name); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return errJSON
		}
	}
}

// str reads a string token and returns its text, unescaped (a slice of
// the document when it has no escapes).
func (d *jsonDoc) str() (string, error) {
	d.pos++ // "
	start := d.pos
	for d.pos < len(d.s) {
		switch d.s[d.pos] {
		case '"':
			d.pos++
			return d.s[start : d.pos-1], nil
		case '\\':
			return d.strSlow(start)
		}
		d.pos++
	}
	return "", errJSON
}

func (d *jsonDoc) strSlow(start int) (string, error) {
	b := []byte(d.s[start:d.pos])
	for d.pos < len(d.s) {
		c := d.s[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(b), nil
		case c == '\\':
			if d.pos+1 >= len(d.s) {
				return "", errJSON
			}
			e := d.s[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", errJSON
				}
				if utf16IsHigh(r) && strings.HasPrefix(d.s[d.pos:], `\u`) {
					d.pos += 2
					lo, ok := d.hex4()
					if !ok {
						return "", errJSON
					}
					r = (r-0xd800)<<10 + (lo - 0xdc00) + 0x10000
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", errJSON
			}
		default:
			b = append(b, c)
			d.pos++
		}
	}
	return "", errJSON
}

func utf16IsHigh(r rune) bool { return r >= 0xd800 && r < 0xdc00 }

func (d *jsonDoc) hex4() (rune, bool) {
	if d.pos+4 > len(d.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(d.s[d.pos:d.pos+4], 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(v), true
}

// copyValue reads the value at d.pos and, when dst is not nil, writes it
// compactly as Jackson's copyCurrentStructure does.
func (d *jsonDoc) copyValue(dst *[]byte) error {
	switch c := d.peek(); {
	case c == '{':
		if dst != nil {
			*dst = append(*dst, '{')
		}
		first := true
		err := d.fields(func(name string) error {
			if dst != nil {
				if !first {
					*dst = append(*dst, ',')
				}
				*dst = appendJSONString(*dst, name)
				*dst = append(*dst, ':')
			}
			first = false
			return d.copyValue(dst)
		})
		if dst != nil {
			*dst = append(*dst, '}')
		}
		return err
	case c == '[':
		if dst != nil {
			*dst = append(*dst, '[')
		}
		first := true
		err := d.elements(func() error {
			if dst != nil && !first {
				*dst = append(*dst, ',')
			}
			first = false
			return d.copyValue(dst)
		})
		if dst != nil {
			*dst = append(*dst, ']')
		}
		return err
	case c == '"':
		s, err := d.str()
		if dst != nil {
			*dst = appendJSONString(*dst, s)
		}
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, w := range []string{"true", "false", "null"} {
			if strings.HasPrefix(d.s[d.pos:], w) {
				d.pos += len(w)
				if dst != nil {
					*dst = append(*dst, w...)
				}
				return nil
			}
		}
		return errJSON
	case c == 'N' || c == 'I' || c == '+' || c == '-':
		if _, n, ok := d.nonNumericAt(); ok {
			if dst != nil {
				*dst = appendJSONString(*dst, d.s[d.pos:d.pos+n])
			}
			d.pos += n
			return nil
		}
		if c == '-' {
			return d.number(dst)
		}
	case c >= '0' && c <= '9':
		return d.number(dst)
	}
	return errJSON
}

// number reads a number: an integer is written as read (-0 as 0), a
// fraction or exponent as Java's Double.toString of its value.
func (d *jsonDoc) number(dst *[]byte) error {
	start := d.pos
	if d.s[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		k := d.pos
		for d.pos < len(d.s) && d.s[d.pos] >= '0' && d.s[d.pos] <= '9' {
			d.pos++
		}
		return d.pos - k
	}
	intStart := d.pos
	n := digits()
	if n == 0 || (n > 1 && d.s[intStart] == '0') {
		return errJSON
	}
	isFloat := false
	if d.pos < len(d.s) && d.s[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return errJSON
		}
		isFloat = true
	}
	if d.pos < len(d.s) && (d.s[d.pos] == 'e' || d.s[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.s) && (d.s[d.pos] == '+' || d.s[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return errJSON
		}
		isFloat = true
	}
	if dst == nil {
		return nil
	}
	text := d.s[start:d.pos]
	if !isFloat {
		if text == "-0" {
			text = "0"
		}
		*dst = append(*dst, text...)
		return nil
	}
	f, _ := strconv.ParseFloat(text, 64) // out of range is ±Inf, as Java's
	*dst = kernels.AppendJavaDouble(*dst, f, 64)
	return nil
}

// appendJSONString writes s quoted as Jackson does: \" \\ and the short
// escapes of control characters, \u00XX for the others; non-ASCII as is.
func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789ABCDEF"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return append(dst, '"')
}

func init() {
	// json_array_length(s): the number of elements of the JSON array s;
	// null when s is not one (or is malformed).
	register(&Func{Name: "json_array_length", MinArgs: 1, MaxArgs: 1, Bind: func(args []Arg) (Bound, error) {
		return toIntWith("json_array_length", "s", args, func() func(a argCols, i int) (int32, bool) {
			return func(a argCols, i int) (int32, bool) {
				d := jsonDoc{s: a.s[0].value(i)}
				if d.peek() != '[' {
					return 0, false
				}
				k := int32(0)
				err := d.elements(func() error { k++; return d.copyValue(nil) })
				return k, err == nil
			}
		})
	}})
	register(&Func{Name: "json_object_keys", MinArgs: 1, MaxArgs: 1, Bind: bindJSONObjectKeys})
}

// bindJSONObjectKeys is json_object_keys(s): the keys of the JSON object
// s, in order; null when s is not one (or is malformed).
func bindJSONObjectKeys(args []Arg) (Bound, error) {
	if err := checkArgs(args, "s"); err != nil {
		return Bound{}, err
	}
	return Bound{Type: arrow.ListOf(arrow.BinaryTypes.String), Eval: func(mem memory.Allocator, cols []arrow.Array, n int) (arrow.Array, error) {
		a, err := loadArgs(mem, args, cols, n, "s")
		if err != nil {
			return nil, err
		}
		defer a.release()
		lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
		defer lb.Release()
		vb := lb.ValueBuilder().(*array.StringBuilder)
		lb.Reserve(n)
		var keys []string
		for i := range n {
			if a.null(i) {
				lb.AppendNull()
				continue
			}
			d := jsonDoc{s: a.s[0].value(i)}
			keys = keys[:0]
			if d.peek() != '{' || d.fields(func(name string) error {
				keys = append(keys, name)
				return d.copyValue(nil)
			}) != nil {
				lb.AppendNull()
				continue
			}
			lb.Append(true)
			for _, k := range keys {
				vb.Append(k)
			}
		}
		return lb.NewArray(), nil
	}}, nil
}
