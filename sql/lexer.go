package sql

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokKind is the kind of a token.
type tokKind int

const (
	tokEOF    tokKind = iota
	tokWord           // identifier or keyword, unquoted
	tokQuoted         // `backquoted identifier`
	tokString         // 'string' or "string", escapes resolved
	tokNumber         // 12, 1.5, 1e3, 12L, 1.5D …
	tokOp             // punctuation and operators
)

// token is one lexeme. Text is the identifier, the string's value, the
// number's text or the operator; Pos is its byte offset in the input.
type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return "string " + quote(t.text)
	case tokQuoted:
		return "`" + t.text + "`"
	}
	return "'" + t.text + "'"
}

func quote(s string) string {
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return "'" + s + "'"
}

// isWord reports whether t is the unquoted word w, case-insensitively.
func (t token) isWord(w string) bool { return t.kind == tokWord && strings.EqualFold(t.text, w) }

func (t token) isOp(op string) bool { return t.kind == tokOp && t.text == op }

// operators, longest first so that the lexer takes the longest match.
var operators = []string{"<=>", "<>", "!=", "<=", ">=", "==", "||", "::", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", ";", ".", "!", "~", "&", "|", "^", "[", "]", ":"}

// lex splits text into tokens, ending with tokEOF.
func lex(text string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			end := strings.Index(text[i+2:], "*/")
			if end < 0 {
				return nil, errorAt(text, i, "unterminated comment")
			}
			i += 2 + end + 2
		case c == '\'' || c == '"':
			s, n, err := lexString(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tokString, s, i})
			i += n
		case c == '`':
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(text[j:], '`')
				if k < 0 {
					return nil, errorAt(text, i, "unterminated quoted identifier")
				}
				b.WriteString(text[j : j+k])
				j += k + 1
				if j < len(text) && text[j] == '`' { // `` is a backquote
					b.WriteByte('`')
					j++
					continue
				}
				break
			}
			if b.Len() == 0 {
				return nil, errorAt(text, i, "empty quoted identifier")
			}
			toks = append(toks, token{tokQuoted, b.String(), i})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
			j := lexNumber(text, i)
			// A number running into letters (12abc) is an error in Spark
			// unless it is an identifier starting with digits; refuse it.
			if j < len(text) && isWordByte(text[j]) {
				k := j
				for k < len(text) && isWordByte(text[k]) {
					k++
				}
				return nil, errorAt(text, i, fmt.Sprintf("invalid number %q", text[i:k]))
			}
			toks = append(toks, token{tokNumber, text[i:j], i})
			i = j
		case isWordStart(text, i):
			j := i
			for j < len(text) {
				r, n := utf8.DecodeRuneInString(text[j:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				j += n
			}
			toks = append(toks, token{tokWord, text[i:j], i})
			i = j
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(text[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(text[i:])
				return nil, errorAt(text, i, fmt.Sprintf("unexpected character %q", r))
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tokEOF, "", len(text)}), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isWordStart(text string, i int) bool {
	r, _ := utf8.DecodeRuneInString(text[i:])
	return r == '_' || unicode.IsLetter(r)
}

// lexNumber returns the end of the number starting at i: digits, an
// optional fraction, an optional exponent and an optional type suffix
// (L, S, Y, D, F, BD).
func lexNumber(text string, i int) int {
	j := i
	for j < len(text) && isDigit(text[j]) {
		j++
	}
	if j < len(text) && text[j] == '.' {
		j++
		for j < len(text) && isDigit(text[j]) {
			j++
		}
	}
	if j < len(text) && (text[j] == 'e' || text[j] == 'E') {
		k := j + 1
		if k < len(text) && (text[k] == '+' || text[k] == '-') {
			k++
		}
		if k < len(text) && isDigit(text[k]) {
			for k < len(text) && isDigit(text[k]) {
				k++
			}
			j = k
		}
	}
	if j+1 < len(text) && strings.EqualFold(text[j:j+2], "BD") {
		return j + 2
	}
	if j < len(text) && strings.ContainsRune("LlSsYyDdFf", rune(text[j])) {
		return j + 1
	}
	return j
}

// lexString reads a string literal starting at i (its quote) with Spark's
// backslash escapes, and returns its value and length.
func lexString(text string, i int) (string, int, error) {
	q := text[i]
	var b strings.Builder
	j := i + 1
	for j < len(text) {
		c := text[j]
		switch {
		case c == q && j+1 < len(text) && text[j+1] == q: // 'it''s', as Spark
			b.WriteByte(q)
			j += 2
		case c == q:
			return b.String(), j + 1 - i, nil
		case c == '\\' && j+1 < len(text):
			e := text[j+1]
			j += 2
			switch e {
			case '0':
				b.WriteByte(0)
			case 'b':
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'Z':
				b.WriteByte(26)
			case '%', '_': // kept escaped, for LIKE patterns
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'u':
				if j+4 <= len(text) {
					var r rune
					if _, err := fmt.Sscanf(text[j:j+4], "%04x", &r); err == nil && isHex(text[j:j+4]) {
						b.WriteRune(r)
						j += 4
						continue
					}
				}
				b.WriteByte('u')
			default: // \' \" \\ and any other character stand for themselves
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			j++
		}
	}
	return "", 0, errorAt(text, i, "unterminated string")
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return true
}
