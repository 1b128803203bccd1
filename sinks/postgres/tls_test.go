package postgres

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/sinks"
)

// TestOverTLS writes through a TLS connection that verifies the server's
// certificate (sslmode=verify-full, the CA in sslrootcert), and checks that
// a server requiring TLS refuses the sink without it and that a sink
// verifying against the wrong roots refuses the server, with errors that
// keep the password out.
func TestOverTLS(t *testing.T) {
	srv := pgtest.StartTLS(t)
	cs := srv.NewDatabase(t)
	if !strings.Contains(cs, "sslmode=verify-full") {
		t.Fatalf("not a verifying connection string: %s", cs)
	}
	conn := pgtest.Connect(t, cs)
	mustExec(t, conn, "CREATE TABLE kv (k bigint PRIMARY KEY, v text)")
	s := newSink(t, cs, "kv", Options{KeyColumns: []string{"k"}})
	mustWrite(t, s, 0, sinks.Update, rec(t, kvSchema, `[{"k":1,"v":"a"}]`))
	if got := contents(t, conn, "kv"); got != "1=a" {
		t.Fatalf("got %s", got)
	}
	var ssl int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_ssl JOIN pg_stat_activity USING (pid)
		WHERE ssl AND datname = current_database() AND pid <> pg_backend_pid()`).Scan(&ssl); err != nil || ssl != 1 {
		t.Fatalf("the sink's connection over TLS: %d connections, %v", ssl, err)
	}

	for _, c := range []struct{ name, cs, want string }{
		{"no TLS", strings.Replace(cs, "sslmode=verify-full", "sslmode=disable", 1), "no encryption"},
		{"wrong roots", strings.Replace(cs, "sslrootcert="+srv.CAFile(), "sslrootcert="+otherCA(t), 1), "certificate"},
	} {
		_, err := writeBatch(t, newSink(t, c.cs, "kv", Options{}), 0, sinks.Append, rec(t, kvSchema, `[{"k":2,"v":"b"}]`))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), pgtest.Password) {
			t.Errorf("%s: %v; want an error with %q and no password", c.name, err, c.want)
		}
	}
}

// otherCA writes a CA certificate that signed nothing the server has.
func otherCA(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, ca, ca, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
