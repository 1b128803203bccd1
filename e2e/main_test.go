package e2e_test

import (
	_ "github.com/millrace/millrace/storage/s3store"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
)

// TestMain stops the S3 server (internal/s3test) if a test started one.
func TestMain(m *testing.M) { s3test.Main(m) }
