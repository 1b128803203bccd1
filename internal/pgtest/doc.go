// Package pgtest starts a real PostgreSQL server for tests, from Debian's
// postgresql package (scripts/postgres/install.sh installs it; make test
// runs that script).
//
// # Terms
//
//   - binaries: initdb and postgres, found in $MILLRACE_PG_BIN, else on
//     PATH, else in the newest /usr/lib/postgresql/<version>/bin (where
//     Debian puts them, off PATH).
//   - server: one postgres process per test binary, its data directory made
//     by initdb in a temporary directory, listening on 127.0.0.1 on a free
//     port (and on a Unix socket in that directory), with password
//     authentication (scram-sha-256) for the superuser User, so connection
//     strings carry a password as production ones do. Durability settings
//     are off (fsync, synchronous_commit): the tests kill clients, never
//     the server.
//   - run-as user: postgres refuses to run as root, so when the test binary
//     is root (CI) initdb and postgres run as the postgres user Debian's
//     package creates, through SysProcAttr.Credential (no su/runuser between
//     the test and the server, so Pdeathsig reaches postgres itself).
//   - TLS server: a second server (StartTLS) with ssl=on and a pg_hba.conf
//     that accepts only TLS connections over TCP; its certificate, for
//     127.0.0.1 and localhost, is signed by a throwaway CA the harness
//     makes (CAFile), and TLSConnString verifies it (sslmode=verify-full).
//   - database: each test takes its own (NewDatabase), so tests share the
//     server without seeing each other's tables.
//
// # Invariants
//
//   - Start (StartTLS) starts its server at the first call (sync.Once) and
//     hands the same *Server to every later caller.
//   - When the binaries are missing, Start skips the test with a message
//     naming scripts/postgres/install.sh, unless MILLRACE_REQUIRE_POSTGRES
//     is set (CI sets it), in which case the test fails. A server that does
//     not come up always fails the test, with the tail of its log.
//   - Main (called from TestMain) stops the server (fast shutdown) and
//     removes its directory; if the test binary dies the server gets
//     SIGQUIT (Pdeathsig: immediate shutdown), so none outlives its tests.
//
// Read next: package sinks/postgres, whose tests use the server.
package pgtest
