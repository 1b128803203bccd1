package e2e_test

import (
	"os"
	"testing"

	_ "github.com/millrace/millrace/storage/s3store"

	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/internal/pgtest"
	"github.com/millrace/millrace/internal/s3test"
)

// TestMain stops the S3 server (internal/s3test), the Kafka broker
// (internal/kafkatest) and the Kinesis server (internal/kinesistest) if a
// test started them.
func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.Stop()
	kinesistest.Stop()
	pgtest.Stop()
	s3test.Stop()
	os.Exit(code)
}
