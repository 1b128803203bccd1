package main

import (
	"os"
	"testing"

	"github.com/millrace/millrace/internal/kafkatest"
	"github.com/millrace/millrace/internal/s3test"
)

// TestMain stops the test Kafka broker and S3 server if tests started them.
func TestMain(m *testing.M) {
	code := m.Run()
	kafkatest.Stop()
	s3test.Stop()
	os.Exit(code)
}
