package sql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a syntax error, or a construct that Millrace does not support,
// at a position of the SQL text. Line and Column count from 1; Column
// counts characters (runes), not bytes.
type Error struct {
	Line, Column int
	Msg          string
	// Source is the line of the text the error is on.
	Source string
}

// Error renders "line:col: msg", then the source line and a caret under
// the position:
//
//	1:9: unexpected ')'
//	 price * )
//	         ^
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Column) + ": " + e.Msg)
	b.WriteString("\n " + e.Source + "\n ")
	// Keep the line's tabs so that the caret lines up under them.
	n := 0
	for _, r := range e.Source {
		if n >= e.Column-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < e.Column-1; n++ {
		b.WriteByte(' ')
	}
	b.WriteByte('^')
	return b.String()
}

// errorAt makes an Error at byte offset off of text.
func errorAt(text string, off int, msg string) *Error {
	// The line quoted may hold an OPTIONS value that is a secret (a
	// password, a JAAS config): show it as stars.
	text, secrets := redactSecrets(text)
	msg = scrub(msg, secrets)
	if off > len(text) {
		off = len(text)
	}
	line := 1 + strings.Count(text[:off], "\n")
	start := strings.LastIndexByte(text[:off], '\n') + 1
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += off
	}
	src := strings.TrimRight(text[start:end], "\r")
	return &Error{Line: line, Column: 1 + utf8.RuneCountInString(text[start:off]), Msg: msg, Source: src}
}
