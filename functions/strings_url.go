package functions

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// URL and text-coding functions: parse_url, url_encode, url_decode, and
// overlay and soundex.
func init() {
	register(&Func{Name: "parse_url", MinArgs: 2, MaxArgs: 3, Bind: bindParseURL})
	// url_encode is Java's URLEncoder (form encoding, UTF-8): letters,
	// digits and . - * _ stay, a space becomes +, every other byte %XX.
	register(toString("url_encode", 1, 1, "s", func(dst []byte, a argCols, i int) []byte {
		const hexDigits = "0123456789ABCDEF"
		s := a.s[0].value(i)
		for j := 0; j < len(s); j++ {
			c := s[j]
			switch {
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '*' || c == '_':
				dst = append(dst, c)
			case c == ' ':
				dst = append(dst, '+')
			default:
				dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			}
		}
		return dst
	}))
	// url_decode is Java's URLDecoder: + is a space, %XX a byte; a
	// malformed escape fails the query, as in Spark.
	register(toString("url_decode", 1, 1, "s", func(dst []byte, a argCols, i int) []byte {
		s := a.s[0].value(i)
		for j := 0; j < len(s); j++ {
			switch c := s[j]; c {
			case '+':
				dst = append(dst, ' ')
			case '%':
				if j+2 >= len(s) {
					return a.fail(dst, fmt.Errorf("url_decode: %s has an incomplete escape (%%) at byte %d", strconv.Quote(s), j))
				}
				v, err := strconv.ParseUint(s[j+1:j+3], 16, 8)
				if err != nil {
					return a.fail(dst, fmt.Errorf("url_decode: %s has an invalid escape %q at byte %d", strconv.Quote(s), s[j:j+3], j))
				}
				dst = append(dst, byte(v))
				j += 2
			default:
				dst = append(dst, c)
			}
		}
		return dst
	}))
	// overlay(s, replace, pos[, len]): s with len characters from pos
	// replaced by replace (len defaults to replace's length).
	register(toString("overlay", 3, 4, "ssii", func(dst []byte, a argCols, i int) []byte {
		s, r, pos := a.s[0].value(i), a.s[1].value(i), a.n[2].value(i)
		length := int32(-1)
		if len(a.n) > 3 {
			length = a.n[3].value(i)
		}
		if length < 0 {
			length = int32(numChars(r))
		}
		dst = append(dst, substringSQL(s, 1, pos-1)...)
		dst = append(dst, r...)
		return append(dst, substringSQL(s, pos+length, 1<<31-1)...)
	}))
	register(toString("soundex", 1, 1, "s", func(dst []byte, a argCols, i int) []byte {
		return appendSoundex(dst, a.s[0].value(i))
	}))
}

// soundexCodes are the American Soundex codes of A to Z; '7' (H, W) is
// skipped without separating equal codes, '0' (vowels, Y) separates them.
const soundexCodes = "01230127022455012623017202"

// appendSoundex is Spark's soundex: a letter and three digits, or s itself
// when it does not start with an ASCII letter.
func appendSoundex(dst []byte, s string) []byte {
	if s == "" {
		return dst
	}
	up := func(c byte) byte {
		if 'a' <= c && c <= 'z' {
			return c - 32
		}
		return c
	}
	b := up(s[0])
	if b < 'A' || b > 'Z' {
		return append(dst, s...)
	}
	sx := [4]byte{b, '0', '0', '0'}
	k := 1
	last := soundexCodes[b-'A']
	for j := 1; j < len(s) && k <= 3; j++ {
		c := up(s[j])
		if c < 'A' || c > 'Z' {
			last = '0'
			continue
		}
		code := soundexCodes[c-'A']
		if code == '7' {
			continue
		}
		if code != '0' && code != last {
			sx[k] = code
			k++
		}
		last = code
	}
	return append(dst, sx[:]...)
}

// javaURIIllegal are the ASCII characters java.net.URI refuses anywhere in
// a URI (Spark's parse_url is null for them, where Go's url.Parse is
// lenient).
const javaURIIllegal = " \"<>\\^`{|}"

// bindParseURL is Spark's parse_url(url, part[, key]): part HOST, PATH,
// QUERY, REF, PROTOCOL, FILE, AUTHORITY or USERINFO of url, raw (not
// decoded); with QUERY and a key, the value of key= in the query. Null for
// a URL Java's URI refuses, an absent part or an unknown part name.
func bindParseURL(args []Arg) (Bound, error) {
	return toStringWith("parse_url", 2, 3, "s", func() func([]byte, argCols, int) []byte {
		keyRes := map[string]*regexp.Regexp{}
		return func(dst []byte, a argCols, i int) []byte {
			v, ok := parseURLPart(a.s[0].value(i), a.s[1].value(i))
			if ok && len(a.s) > 2 {
				if a.s[1].value(i) != "QUERY" {
					ok = false
				} else {
					key := a.s[2].value(i)
					re, seen := keyRes[key]
					if !seen {
						re, _ = regexp.Compile("(&|^)" + key + "=([^&]*)")
						if len(keyRes) > 64 {
							clear(keyRes)
						}
						keyRes[key] = re
					}
					m := []string(nil)
					if re != nil {
						m = re.FindStringSubmatch(v)
					}
					ok = m != nil
					if ok {
						v = m[2]
					}
				}
			}
			if !ok {
				return a.nullRow(dst)
			}
			return append(dst, v...)
		}
	}).Bind(args)
}

func parseURLPart(raw, part string) (string, bool) {
	if strings.ContainsAny(raw, javaURIIllegal) {
		return "", false
	}
	for j := 0; j < len(raw); j++ {
		if raw[j] < 0x20 || raw[j] == 0x7f {
			return "", false
		}
		if raw[j] == '%' && (j+2 >= len(raw) || !isHex(raw[j+1]) || !isHex(raw[j+2])) {
			return "", false
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	switch part {
	case "HOST":
		return u.Hostname(), u.Host != "" && u.Hostname() != ""
	case "PATH":
		return u.EscapedPath(), u.Opaque == ""
	case "QUERY":
		return u.RawQuery, u.RawQuery != "" || u.ForceQuery
	case "REF":
		return u.EscapedFragment(), u.Fragment != "" || strings.HasSuffix(raw, "#")
	case "PROTOCOL":
		return u.Scheme, u.Scheme != ""
	case "FILE":
		if u.Opaque != "" {
			return "", false
		}
		if u.RawQuery != "" || u.ForceQuery {
			return u.EscapedPath() + "?" + u.RawQuery, true
		}
		return u.EscapedPath(), true
	case "AUTHORITY":
		if u.Host == "" {
			return "", false
		}
		if u.User != nil {
			return u.User.String() + "@" + u.Host, true
		}
		return u.Host, true
	case "USERINFO":
		if u.User == nil {
			return "", false
		}
		return u.User.String(), true
	}
	return "", false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
