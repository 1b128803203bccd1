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
//   - auth server: a second moto_server in its IAM mode
//     (INITIAL_NO_AUTH_ACTION_COUNT=0), which checks every request's
//     signature and knows no key: StartAuth, for refused credentials.
//   - proxy: Proxy, between a client and the server, injects the faults of
//     production object storage: an outage (Down/Up), slow answers
//     (SetDelay), 503 SlowDown (Throttle), an upload cut off halfway
//     (CutUploads), an answer lost after the server applied a PUT
//     (LoseResponses). moto keeps objects in memory, so restarting it would
//     lose them; the outage is what a client sees of a restart.
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
