package millrace

// Spark's string functions for the Go API (package functions computes
// them; SQL calls the same ones by name). Positions and lengths count
// characters, from 1; a null argument gives null unless said otherwise.

// Length is the number of characters (Spark's length, char_length).
func Length(c Column) Column { return call("length", c) }

// OctetLength is the number of bytes of c's UTF-8 (Spark's octet_length).
func OctetLength(c Column) Column { return call("octet_length", c) }

// BitLength is 8 times OctetLength (Spark's bit_length).
func BitLength(c Column) Column { return call("bit_length", c) }

// Space is n spaces (Spark's space).
func Space(n Column) Column { return call("space", n) }

// Substring is length characters of c from 1-based pos; a negative pos
// counts from the end (Spark's substring).
func Substring(c Column, pos, length int) Column {
	return call("substring", c, int32(pos), int32(length))
}

// Left is the first n characters (Spark's left).
func Left(c Column, n int) Column { return call("left", c, int32(n)) }

// Right is the last n characters (Spark's right).
func Right(c Column, n int) Column { return call("right", c, int32(n)) }

// Concat joins the strings; null if any is null (Spark's concat).
func Concat(cs ...Column) Column { return call("concat", columnsAsArgs(cs)...) }

// ConcatWS joins the non-null strings with sep (Spark's concat_ws); an
// array of strings adds its elements.
func ConcatWS(sep string, cs ...Column) Column {
	return call("concat_ws", append([]any{sep}, columnsAsArgs(cs)...)...)
}

// Trim removes leading and trailing spaces (Spark's trim).
func Trim(c Column) Column { return call("trim", c) }

// LTrim removes leading spaces (Spark's ltrim).
func LTrim(c Column) Column { return call("ltrim", c) }

// RTrim removes trailing spaces (Spark's rtrim).
func RTrim(c Column) Column { return call("rtrim", c) }

// TrimChars removes the characters of chars from both ends (Spark's
// trim(c, chars) in Scala, btrim in SQL).
func TrimChars(c Column, chars string) Column { return call("btrim", c, chars) }

// Split splits around the matches of the regular expression pattern into
// an array of strings (Spark's split; RE2 syntax).
func Split(c Column, pattern string) Column { return call("split", c, pattern) }

// SplitN is Split into at most limit pieces when limit > 0.
func SplitN(c Column, pattern string, limit int) Column {
	return call("split", c, pattern, int32(limit))
}

// Replace replaces every search by replacement (Spark's replace).
func Replace(c Column, search, replacement string) Column {
	return call("replace", c, search, replacement)
}

// RegexpExtract is group idx of the first match of pattern, "" when there
// is none (Spark's regexp_extract).
func RegexpExtract(c Column, pattern string, idx int) Column {
	return call("regexp_extract", c, pattern, int32(idx))
}

// RegexpReplace replaces every match of pattern with replacement, in
// which $1 and ${name} are groups (Spark's regexp_replace).
func RegexpReplace(c Column, pattern, replacement string) Column {
	return call("regexp_replace", c, pattern, replacement)
}

// StartsWith is true where c starts with prefix (Spark's startswith).
func StartsWith(c Column, prefix any) Column { return call("startswith", c, prefix) }

// EndsWith is true where c ends with suffix (Spark's endswith).
func EndsWith(c Column, suffix any) Column { return call("endswith", c, suffix) }

// Contains is true where c contains sub (Spark's contains).
func Contains(c Column, sub any) Column { return call("contains", c, sub) }

// InitCap capitalizes the first letter of each space-separated word and
// lower-cases the rest (Spark's initcap).
func InitCap(c Column) Column { return call("initcap", c) }

// LPad pads c on the left with pad to length characters, or cuts it to
// length (Spark's lpad).
func LPad(c Column, length int, pad string) Column { return call("lpad", c, int32(length), pad) }

// RPad pads c on the right (Spark's rpad).
func RPad(c Column, length int, pad string) Column { return call("rpad", c, int32(length), pad) }

// InStr is the 1-based position of the first sub in c, 0 if none (Spark's
// instr).
func InStr(c Column, sub string) Column { return call("instr", c, sub) }

// Locate is the 1-based position of the first sub in c at or after pos
// (Spark's locate).
func Locate(sub string, c Column, pos int) Column { return call("locate", sub, c, int32(pos)) }

// Reverse reverses the characters (Spark's reverse).
func Reverse(c Column) Column { return call("reverse", c) }

// Repeat repeats c n times (Spark's repeat).
func Repeat(c Column, n int) Column { return call("repeat", c, int32(n)) }

// ASCII is the code point of the first character, 0 for "" (Spark's ascii).
func ASCII(c Column) Column { return call("ascii", c) }

// SubstringIndex is c before the count-th delim, or after the count-th
// from the end when count < 0 (Spark's substring_index).
func SubstringIndex(c Column, delim string, count int) Column {
	return call("substring_index", c, delim, int32(count))
}

// Translate replaces each character of from in c by the character at the
// same place in to, removing those beyond to's length (Spark's translate).
func Translate(c Column, from, to string) Column { return call("translate", c, from, to) }

func columnsAsArgs(cs []Column) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c
	}
	return out
}

// Chr is the character of code n mod 256, "" for n < 0 (Spark's chr).
func Chr(n Column) Column { return call("chr", n) }

// Elt is the n-th of the strings, null when n is out of range (Spark's elt).
func Elt(n Column, cs ...Column) Column {
	return call("elt", append([]any{n}, columnsAsArgs(cs)...)...)
}

// Levenshtein is the edit distance in characters (Spark's levenshtein).
func Levenshtein(a, b Column) Column { return call("levenshtein", a, b) }

// FindInSet is the 1-based place of c among the comma-separated strings
// of list, 0 when absent (Spark's find_in_set).
func FindInSet(c Column, list any) Column { return call("find_in_set", c, list) }

// Base64 is c's bytes in Base64 (Spark's base64).
func Base64(c Column) Column { return call("base64", c) }

// Unbase64 is the bytes the Base64 string c encodes (Spark's unbase64).
func Unbase64(c Column) Column { return call("unbase64", c) }

// RegexpExtractAll is group idx of every match of pattern, as an array of
// strings (Spark's regexp_extract_all).
func RegexpExtractAll(c Column, pattern string, idx int) Column {
	return call("regexp_extract_all", c, pattern, int32(idx))
}

// RegexpCount is the number of matches of pattern (Spark's regexp_count).
func RegexpCount(c Column, pattern string) Column { return call("regexp_count", c, pattern) }

// RegexpSubstr is the first match of pattern, null when none (Spark's
// regexp_substr).
func RegexpSubstr(c Column, pattern string) Column { return call("regexp_substr", c, pattern) }

// RegexpInstr is the 1-based position of the first match of pattern, 0
// when none (Spark's regexp_instr).
func RegexpInstr(c Column, pattern string) Column { return call("regexp_instr", c, pattern) }

// ParseURL is part (HOST, PATH, QUERY, REF, PROTOCOL, FILE, AUTHORITY,
// USERINFO) of the URL c, raw; null when absent (Spark's parse_url).
func ParseURL(c Column, part string) Column { return call("parse_url", c, part) }

// ParseURLQuery is the value of key in the URL's query (Spark's
// parse_url(c, 'QUERY', key)).
func ParseURLQuery(c Column, key string) Column { return call("parse_url", c, "QUERY", key) }

// URLEncode is c form-encoded as Java's URLEncoder (Spark's url_encode).
func URLEncode(c Column) Column { return call("url_encode", c) }

// URLDecode decodes a form-encoded c (Spark's url_decode).
func URLDecode(c Column) Column { return call("url_decode", c) }

// Overlay replaces length characters of c from pos with replace (Spark's
// overlay); a negative length is replace's length.
func Overlay(c Column, replace any, pos, length int) Column {
	return call("overlay", c, replace, int32(pos), int32(length))
}

// Soundex is the American Soundex code of c (Spark's soundex).
func Soundex(c Column) Column { return call("soundex", c) }

// FormatString formats the columns by format as Java's Formatter (Spark's
// format_string, printf): %s %d %x %o %f %e %b %c with flags, width,
// precision and n$ indexes.
func FormatString(format string, cs ...Column) Column {
	return call("format_string", append([]any{format}, columnsAsArgs(cs)...)...)
}

// Encode is the string in charset (utf-8, us-ascii, iso-8859-1, utf-16,
// utf-16be, utf-16le, utf-32) as bytes (Spark's encode).
func Encode(c Column, charset string) Column { return call("encode", c, charset) }

// Decode is the text of bytes in charset (Spark's decode): Decode(value,
// "UTF-8") reads a binary Kafka value as a string.
func Decode(c Column, charset string) Column { return call("decode", c, charset) }
