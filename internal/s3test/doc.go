// Package s3test starts a real S3-compatible server for tests: moto's
// server (PyPI moto[server], installed into the project's .venv by
// scripts/venv.sh), which implements conditional writes (PUT with
// If-None-Match: * answers 412 when the key exists).
//
// # Terms
//
//   - server: one moto_server process on 127.0.0.1 on a free port, found at
//     $MILLRACE_MOTO_SERVER, else <module root>/.venv/bin/moto_server, else
//     on PATH. It keeps objects in memory, accepts any credentials, and
//     dies with the test binary.
//
// # Invariants
//
//   - One server per test binary: Start starts it at the first call
//     (sync.Once) and hands the same *Server to every later caller; tests
//     share it, so each takes its own bucket (NewBucket).
//   - When moto_server is missing, Start skips the test with a message naming
//     scripts/venv.sh, unless MILLRACE_REQUIRE_S3 is set (CI sets it), in
//     which case the test fails. A server that does not come up always
//     fails the test, with the tail of its log.
//   - Main (called from TestMain) stops the server when the tests end; the
//     process also gets SIGKILL if the test binary dies (Pdeathsig).
//
// Read next: package storage, whose tests use the server.
package s3test
