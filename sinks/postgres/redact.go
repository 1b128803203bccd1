package postgres

import (
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// redacted is an error whose message had the connection's password cut
// out; Unwrap keeps errors.As working (a *pgconn.PgError never holds the
// password: the server does not know the client's connection string).
type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// redact returns err with every occurrence of secret (and its URL-escaped
// form) in its message replaced by xxxxx.
func redact(err error, secret string) error {
	if err == nil || secret == "" {
		return err
	}
	msg := err.Error()
	out := msg
	for _, s := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret)} {
		if s != "" {
			out = strings.ReplaceAll(out, s, "xxxxx")
		}
	}
	if out == msg {
		return err
	}
	return &redacted{msg: out, err: err}
}

// passwordIn digs the password out of a connection string pgx cannot
// parse, for redacting its parse error: a URL's user info or a
// password=… key.
func passwordIn(connString string) string {
	if u, err := url.Parse(connString); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			return p
		}
	}
	for _, f := range strings.Fields(connString) {
		if v, ok := strings.CutPrefix(f, "password="); ok {
			return strings.Trim(v, "'")
		}
	}
	return ""
}

// isCode reports whether err is a server error with one of the SQLSTATEs.
func isCode(err error, codes ...string) bool {
	pgErr, ok := err.(*pgconn.PgError)
	if !ok {
		return false
	}
	for _, c := range codes {
		if pgErr.Code == c {
			return true
		}
	}
	return false
}
