package textdecode

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// JSON decodes one JSON object per line into a Rows's slots.
type JSON struct {
	rb     *Rows
	index  map[string]int // field name → column
	keyBuf []byte
	// order remembers the field names of the previous document by position:
	// producers write fields in the same order, so comparing with the name
	// seen at the same position usually replaces a map lookup.
	order []seenField
}

type seenField struct {
	name  []byte
	col   int
	known bool
}

// NewJSON returns a decoder of JSON objects into rb's columns by field
// name; unknown fields are skipped, missing ones are null.
func NewJSON(rb *Rows) *JSON {
	idx := make(map[string]int, rb.schema.NumFields())
	for i, f := range rb.schema.Fields() {
		idx[f.Name] = i
	}
	return &JSON{rb: rb, index: idx}
}

// syntaxError is a malformed line that is not JSON at all.
func syntaxError(p int, format string, args ...any) error {
	return &errType{fmt.Sprintf("invalid JSON at column %d: %s", p+1, fmt.Sprintf(format, args...))}
}

func skipWS(b []byte, p int) int {
	for p < len(b) && (b[p] == ' ' || b[p] == '\t' || b[p] == '\r' || b[p] == '\n') {
		p++
	}
	return p
}

// Parse stages the fields of line (then call CommitRow). On error it returns the field involved
// ("" for syntax errors).
func (j *JSON) Parse(line []byte) (field string, err error) {
	rb := j.rb
	rb.StartRow(len(line))
	p := skipWS(line, 0)
	if p >= len(line) || line[p] != '{' {
		return "", syntaxError(p, "a line must hold one JSON object")
	}
	p = skipWS(line, p+1)
	pos := 0
	if p < len(line) && line[p] == '}' {
		p++
	} else {
		for {
			if p >= len(line) || line[p] != '"' {
				return "", syntaxError(p, "expected a field name")
			}
			ks, ke, esc, np, err := scanString(line, p)
			if err != nil {
				return "", err
			}
			key := line[ks:ke]
			if esc {
				if j.keyBuf, err = unescape(j.keyBuf[:0], key, ks); err != nil {
					return "", err
				}
				key = j.keyBuf
			}
			p = skipWS(line, np)
			if p >= len(line) || line[p] != ':' {
				return "", syntaxError(p, "expected ':' after field name")
			}
			p = skipWS(line, p+1)
			c, known := j.column(key, pos)
			pos++
			if p, err = j.value(line, p, c, known); err != nil {
				if known && !isSyntax(err) {
					return rb.schema.Field(c).Name, err
				}
				return "", err
			}
			p = skipWS(line, p)
			if p < len(line) && line[p] == ',' {
				p = skipWS(line, p+1)
				continue
			}
			if p < len(line) && line[p] == '}' {
				p++
				break
			}
			return "", syntaxError(p, "expected ',' or '}'")
		}
	}
	if p = skipWS(line, p); p != len(line) {
		return "", syntaxError(p, "unexpected text after the object")
	}
	return "", nil
}

func isSyntax(err error) bool {
	e, ok := err.(*errType)
	return ok && len(e.msg) > 12 && e.msg[:12] == "invalid JSON"
}

// value parses the value at line[p] into column c (ignored unless known)
// and returns the position after it.
func (j *JSON) value(line []byte, p, c int, known bool) (int, error) {
	rb := j.rb
	if p >= len(line) {
		return p, syntaxError(p, "expected a value")
	}
	switch ch := line[p]; {
	case ch == '"':
		s, e, esc, np, err := scanString(line, p)
		if err != nil || !known {
			return np, err
		}
		text := line[s:e]
		if esc {
			start := len(rb.arena)
			if rb.arena, err = unescape(rb.arena, text, s); err != nil {
				return np, err
			}
			text = rb.arena[start:]
		}
		return np, rb.SetText(c, text)
	case ch == '{' || ch == '[':
		np, err := skipComposite(line, p)
		if err != nil || !known {
			return np, err
		}
		if rb.kinds[c] == kindString {
			// The object or array's JSON text, whose strings may hold
			// invalid UTF-8 too.
			return np, rb.setString(c, line[p:np])
		}
		what := "an object"
		if ch == '[' {
			what = "an array"
		}
		return np, &errType{fmt.Sprintf("expected %s, found %s", typeWord(rb, c), what)}
	case ch == 't' || ch == 'f' || ch == 'n':
		var lit string
		switch ch {
		case 't':
			lit = "true"
		case 'f':
			lit = "false"
		default:
			lit = "null"
		}
		np := p + len(lit)
		if np > len(line) || string(line[p:np]) != lit {
			return p, syntaxError(p, "unknown literal")
		}
		if !known {
			return np, nil
		}
		switch {
		case ch == 'n':
			rb.slots[c] = slot{}
		case rb.kinds[c] == kindBool:
			rb.slots[c] = slot{valid: true, i: int64(ch-'f') / int64('t'-'f')}
		case rb.kinds[c] == kindString:
			rb.slots[c] = slot{valid: true, s: line[p:np]}
		default:
			return np, &errType{fmt.Sprintf("expected %s, found %s", typeWord(rb, c), lit)}
		}
		return np, nil
	case ch == '-' || (ch >= '0' && ch <= '9'):
		np := p + 1
		isInt := true
		for np < len(line) {
			d := line[np]
			if d >= '0' && d <= '9' {
				np++
				continue
			}
			if d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				isInt = false
				np++
				continue
			}
			break
		}
		if !known {
			return np, nil
		}
		text := line[p:np]
		switch rb.kinds[c] {
		case kindString:
			rb.slots[c] = slot{valid: true, s: text}
			return np, nil
		case kindFloat32, kindFloat64:
			return np, rb.SetText(c, text)
		case kindInt32, kindInt64, kindTimestamp:
			if !isInt {
				return np, cannotParse(text, rb.kinds[c], rb.schema.Field(c).Type)
			}
			return np, rb.setInt(c, text)
		}
		return np, &errType{fmt.Sprintf("expected %s, found the number %s", typeWord(rb, c), text)}
	}
	return p, syntaxError(p, "unexpected character %q", line[p])
}

func typeWord(rb *Rows, c int) string {
	switch rb.kinds[c] {
	case kindBool:
		return "a boolean"
	case kindDate32:
		return "a date"
	case kindTimestamp:
		return "a timestamp"
	case kindString:
		return "a string"
	}
	return "a number"
}

// scanString scans the JSON string starting at line[p] == '"' and returns
// the bounds of its contents, whether it has escapes, and the position
// after the closing quote.
func scanString(line []byte, p int) (s, e int, esc bool, np int, err error) {
	i := p + 1
	// Fast path: jump to the closing quote; fall back to the careful loop
	// when the string has an escape or a control character before it.
	if q := bytes.IndexByte(line[i:], '"'); q >= 0 {
		plain := true
		for _, c := range line[i : i+q] {
			if c == '\\' || c < 0x20 {
				plain = false
				break
			}
		}
		if plain {
			return i, i + q, false, i + q + 1, nil
		}
	}
	for i < len(line) {
		c := line[i]
		switch {
		case c == '"':
			return p + 1, i, esc, i + 1, nil
		case c == '\\':
			esc = true
			i += 2
		case c < 0x20:
			return 0, 0, false, i, syntaxError(i, "control character in string")
		default:
			i++
		}
	}
	return 0, 0, false, len(line), syntaxError(p, "unterminated string")
}

// skipComposite skips the object or array starting at line[p].
func skipComposite(line []byte, p int) (int, error) {
	depth := 0
	for i := p; i < len(line); {
		switch line[i] {
		case '"':
			_, _, _, np, err := scanString(line, i)
			if err != nil {
				return np, err
			}
			i = np
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return len(line), syntaxError(p, "unterminated object or array")
}

func hexVal(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// unescape appends the decoded JSON string contents src (which started at
// column base) to dst.
func unescape(dst, src []byte, base int) ([]byte, error) {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(src) {
			return dst, syntaxError(base+i, "bad escape")
		}
		switch src[i] {
		case '"', '\\', '/':
			dst = append(dst, src[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := hexVal(src[i+1:])
			if !ok {
				return dst, syntaxError(base+i, "bad \\u escape")
			}
			i += 4
			if r >= 0xD800 && r < 0xDC00 && i+6 < len(src) && src[i+1] == '\\' && src[i+2] == 'u' {
				if r2, ok := hexVal(src[i+3:]); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, syntaxError(base+i, "bad escape \\%c", src[i])
		}
	}
	return dst, nil
}

// column returns the column of field name key, the pos-th field of the
// object.
func (j *JSON) column(key []byte, pos int) (int, bool) {
	if pos < len(j.order) && string(j.order[pos].name) == string(key) {
		return j.order[pos].col, j.order[pos].known
	}
	c, known := j.index[string(key)]
	if pos <= len(j.order) && pos < 64 {
		f := seenField{name: append([]byte(nil), key...), col: c, known: known}
		if pos == len(j.order) {
			j.order = append(j.order, f)
		} else {
			j.order[pos] = f
		}
	}
	return c, known
}
