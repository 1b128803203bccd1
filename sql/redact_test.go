package sql

import (
	"strings"
	"testing"
)

// TestErrorRedactsSecretOptions: an error on a line of a CREATE TABLE that
// holds a password or a JAAS config shows the value as stars, at the same
// column, also when the error is a parse error of that statement.
func TestErrorRedactsSecretOptions(t *testing.T) {
	const pw = "Pw-sql-err-31d"
	texts := []string{
		"CREATE TABLE k USING kafka OPTIONS (kafka.bootstrap.servers 'b:1', kafka.sasl.jaas.config 'org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"" + pw + "\";', bogus )",
		"CREATE TABLE k USING kafka OPTIONS ('kafka.ssl.keystore.key' = '-----BEGIN PRIVATE KEY-----\n" + pw + "\n-----END PRIVATE KEY-----', x = )",
		"CREATE TABLE k USING s3 OPTIONS (`fs.s3a.secret.key` \"" + pw + "\", password '" + pw + "' '" + pw + "')",
	}
	for _, text := range texts {
		_, err := ParseStatement(text)
		if err == nil {
			t.Fatalf("%s: parsed", text)
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("parse error shows the secret:\n%v", err)
		}
		if !strings.Contains(err.Error(), "****") {
			t.Errorf("no stars in:\n%v", err)
		}
		// An error placed after the secret keeps its column.
		e := ErrorAt(text, strings.LastIndex(text, ")"), "at the end")
		if strings.Contains(e.Error(), pw) || e.Column != 1+len([]rune(text[strings.LastIndexByte(text, '\n')+1:strings.LastIndex(text, ")")])) {
			t.Errorf("ErrorAt: column %d:\n%v", e.Column, e)
		}
	}
	// Passwords inside values: a URL's userinfo, a connection string's
	// password=.
	for _, text := range []string{
		"CREATE TABLE p USING postgres OPTIONS (url 'postgres://app:" + pw + "@db:5432/x?sslmode=verify-full', bogus )",
		"CREATE TABLE p USING postgres OPTIONS (dsn 'host=db user=app password=" + pw + " dbname=x', bogus )",
		"CREATE TABLE p USING jdbc OPTIONS (url 'jdbc:postgresql://db/x?user=app&password=" + pw + "&ssl=true', bogus )",
	} {
		_, err := ParseStatement(text)
		if err == nil || strings.Contains(err.Error(), pw) || !strings.Contains(err.Error(), "****") {
			t.Errorf("%s: %v", text, err)
		}
	}
	// Ordinary literals stay as they are.
	e := ErrorAt("SELECT * FROM t WHERE key = 'k1' AND value = 'http://example.com/a:b'", 10, "x")
	if !strings.Contains(e.Error(), "'k1'") || !strings.Contains(e.Error(), "http://example.com/a:b") {
		t.Errorf("a key literal was redacted: %v", e)
	}
}
