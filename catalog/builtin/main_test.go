package builtin

import (
	"os"
	"testing"

	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/internal/s3test"
	_ "github.com/millrace/millrace/storage/s3store"
)

// TestMain stops the S3 and PostgreSQL test servers (internal/s3test,
// internal/pgtest) if a test started them.
func TestMain(m *testing.M) {
	code := m.Run()
	s3test.Stop()
	pgtest.Stop()
	os.Exit(code)
}
