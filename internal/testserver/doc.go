// Package testserver holds what the harnesses of real servers in tests
// share (internal/kafkatest, internal/s3test, internal/kinesistest,
// internal/pgtest): finding the module root (where make test installs the
// servers), free ports on 127.0.0.1, and the rule for a server that is
// not installed: the test skips with the reason, unless the harness's
// MILLRACE_REQUIRE_* variable is set (CI sets them all), in which case it
// fails.
//
// Read next: internal/s3test, the smallest harness using it.
package testserver
