package sql

import (
	"regexp"
	"strings"
)

// secretKey matches an option key whose value is a secret: passwords, JAAS
// configs (which hold passwords), secret keys, tokens, credentials and
// inline private keys (kafka.ssl.keystore.key, fs.s3a.secret.key). A bare
// "key" is not one: it is the Kafka key column of many a WHERE clause.
var secretKey = regexp.MustCompile(`(?i)(password|secret|token|credential|jaas\.config|\.key$)`)

// maybeSecret is a quick test of whole texts: most have no secret key.
var maybeSecret = regexp.MustCompile(`(?i)(password|secret|token|credential|jaas\.config|\.key)`)

// SecretOption reports whether the value of OPTIONS key is a secret, which
// errors, logs and descriptions must not show.
func SecretOption(key string) bool { return secretKey.MatchString(strings.Trim(key, "`'\"")) }

// secretOption finds `key 'value'` and `key = "value"` pairs of an OPTIONS
// list in SQL text; the key group is tested with SecretOption. Values may
// span lines (an inline PEM key).
var secretOption = regexp.MustCompile("([`'\"]?[A-Za-z_][\\w.]*[`'\"]?)(\\s*=?\\s*)('(?:[^'\\\\]|\\\\.|'')*'|\"(?:[^\"\\\\]|\\\\.)*\")")

// inlinePassword finds a password inside any value: the userinfo of a URL
// (postgres://user:pw@host) and a key=value connection string's
// password=pw (libpq, JDBC, ODBC). Group 1 is the password.
var inlinePassword = regexp.MustCompile(`(?i)(?:://[^/\s:@'"]*:([^@\s/'"]+)@|\b(?:password|passwd|pwd)\s*=\s*([^\s;&'"]+))`)

// redactSecrets returns text with the characters of every secret option
// value replaced by '*' (newlines kept, so byte offsets and lines stay
// where they were), and the secret values found, to scrub from messages.
func redactSecrets(text string) (string, []string) {
	if !maybeSecret.MatchString(text) && !strings.Contains(text, "://") && !strings.Contains(strings.ToLower(text), "pwd") {
		return text, nil // the common case: no secret-looking key at all
	}
	var secrets []string
	b := []byte(text)
	for _, m := range inlinePassword.FindAllStringSubmatchIndex(text, -1) {
		lo, hi := m[2], m[3]
		if lo < 0 {
			lo, hi = m[4], m[5]
		}
		secrets = append(secrets, text[lo:hi])
		for i := lo; i < hi; i++ {
			b[i] = '*'
		}
	}
	for _, m := range secretOption.FindAllStringSubmatchIndex(text, -1) {
		if !SecretOption(text[m[2]:m[3]]) {
			continue
		}
		if v := text[m[6]+1 : m[7]-1]; v != "" {
			secrets = append(secrets, v)
		}
		for i := m[6] + 1; i < m[7]-1; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = '*'
			}
		}
	}
	// The same value elsewhere in the text (given twice, or misplaced) is
	// as secret.
	out := string(b)
	for _, s := range secrets {
		if len(s) >= 4 && !strings.Contains(s, "\n") {
			out = strings.ReplaceAll(out, s, strings.Repeat("*", len(s)))
		}
	}
	return out, secrets
}

// scrub replaces each of secrets in msg by "*****". Values shorter than
// four bytes are left: replacing them would garble the message and hide
// nothing worth hiding.
func scrub(msg string, secrets []string) string {
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "*****")
		}
	}
	return msg
}
