package lake

import (
	"testing"

	"github.com/millrace/millrace/internal/s3test"
	_ "github.com/millrace/millrace/storage/s3store"
)

func TestMain(m *testing.M) { s3test.Main(m) }
