package checkpoint

import (
	"testing"

	"github.com/millrace/millrace/internal/s3test"
)

func TestMain(m *testing.M) { s3test.Main(m) }
