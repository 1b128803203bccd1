package storage_test

import (
	_ "github.com/millrace/millrace/storage/s3store"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
)

func TestMain(m *testing.M) { s3test.Main(m) }
