package file

import (
	"testing"

	"github.com/millrace/millrace/internal/s3test"
	_ "github.com/millrace/millrace/storage/s3store"
)

// TestMain stops the S3 test server (internal/s3test) if a test started one.
func TestMain(m *testing.M) { s3test.Main(m) }
