package pgtest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// TestServerAnswers starts the server, creates two databases and checks
// they are separate and that the password is required.
func TestServerAnswers(t *testing.T) {
	s := Start(t)
	t.Logf("postgres from %s up in %v", s.BinDir(), s.Startup)
	a, b := Connect(t, s.NewDatabase(t)), Connect(t, s.NewDatabase(t))
	ctx := context.Background()
	if _, err := a.Exec(ctx, "CREATE TABLE x (v int)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("table of database a seen from b: %d, %v", n, err)
	}
	var v string
	if err := a.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	t.Logf("server_version %s", v)
}

// TestTLSServer: the TLS server accepts a client that verifies its
// certificate, over TLS, and refuses one without TLS.
func TestTLSServer(t *testing.T) {
	s := StartTLS(t)
	cs := s.NewDatabase(t)
	conn := Connect(t, cs)
	var ssl bool
	if err := conn.QueryRow(context.Background(), "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil || !ssl {
		t.Fatalf("connection over TLS: %v, %v", ssl, err)
	}
	plain := strings.Replace(cs, "sslmode=verify-full", "sslmode=disable", 1)
	if c, err := pgx.Connect(context.Background(), plain); err == nil {
		c.Close(context.Background())
		t.Fatal("the TLS server accepted a connection without TLS")
	} else {
		t.Logf("without TLS: %v", err)
	}
}
