package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/millrace/millrace/internal/testserver"
)

// RequireEnv is the environment variable that turns a missing PostgreSQL
// from a skipped test into a failed one.
const RequireEnv = "MILLRACE_REQUIRE_POSTGRES"

// User is the server's superuser; Password is its password.
const (
	User     = "millrace"
	Password = "pgtest-secret-7f3a"
)

const startTimeout = 60 * time.Second

// Server is a running PostgreSQL server.
type Server struct {
	dir    string // initdb's data directory is dir/data; the socket is in dir
	port   int
	bin    string
	cmd    *exec.Cmd
	log    string
	exited chan struct{}
	tls    bool // ssl=on, and only TLS connections accepted (StartTLS)
	// Startup is how long Start took (initdb + start + first connection).
	Startup time.Duration
}

var (
	once       sync.Once
	shared     *Server
	sharedErr  error
	sharedSkip string

	tlsOnce sync.Once
	tlsSrv  *Server
	tlsErr  error
)

// BinDir returns the directory that holds initdb and postgres, or an error
// saying how to install them.
func BinDir() (string, error) {
	if d := os.Getenv("MILLRACE_PG_BIN"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err != nil {
			return "", fmt.Errorf("pgtest: MILLRACE_PG_BIN=%s holds no initdb", d)
		}
		return d, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", errors.New("pgtest: initdb not found in MILLRACE_PG_BIN, on PATH or in /usr/lib/postgresql/*/bin (run scripts/postgres/install.sh, or apt-get install postgresql)")
}

func version(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

// Start returns the test binary's server, starting it at the first call. It
// skips t when PostgreSQL is missing and MILLRACE_REQUIRE_POSTGRES is not
// set, and fails t when the server does not come up.
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() {
		bin, err := BinDir()
		if err != nil {
			sharedSkip = err.Error()
			return
		}
		shared, sharedErr = start(bin, false)
	})
	return check(t, shared, sharedErr)
}

// StartTLS returns the test binary's second server, which accepts only TLS
// connections (certificates the harness made: CAFile, TLSConnString),
// starting it at the first call; it skips and fails as Start does.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	tlsOnce.Do(func() {
		bin, err := BinDir()
		if err != nil {
			sharedSkip = err.Error()
			return
		}
		tlsSrv, tlsErr = start(bin, true)
	})
	return check(t, tlsSrv, tlsErr)
}

func check(t testing.TB, s *Server, err error) *Server {
	t.Helper()
	testserver.Check(t, RequireEnv, "PostgreSQL", sharedSkip, err)
	return s
}

// Main runs the tests of m, stops the server if one was started, and exits
// with the tests' exit code. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the test binary's server if one was started; TestMain
// functions that start other servers too call it instead of Main.
func Stop() {
	for _, s := range []*Server{shared, tlsSrv} {
		if s != nil {
			s.Stop()
		}
	}
}

// runAs returns the credential to run the server's processes with: nil
// for a non-root test binary, the postgres user's for root.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and there is no postgres user to run the server as (Debian's postgresql package creates it): %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func start(bin string, tls bool) (*Server, error) {
	began := time.Now()
	cred, err := runAs()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "millrace-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, log: filepath.Join(dir, "postgres.log"), exited: make(chan struct{}), tls: tls}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			return fail(err)
		}
	}
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(Password+"\n"), 0o600); err != nil {
		return fail(err)
	}
	if cred != nil {
		os.Chown(pwfile, int(cred.Uid), int(cred.Gid))
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", User,
		"--auth=scram-sha-256", "--pwfile="+pwfile, "-E", "UTF8", "--locale=C", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	os.Remove(pwfile)
	args := []string{"-D", filepath.Join(dir, "data"), "-h", "127.0.0.1", "-k", dir,
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=100", "-c", "shared_buffers=64MB",
		// No parallel workers: their dynamic shared memory needs a
		// /dev/shm that containers often keep tiny.
		"-c", "max_parallel_workers_per_gather=0"}
	if tls {
		if err := writeCerts(dir, cred); err != nil {
			return fail(fmt.Errorf("make TLS certificates: %w", err))
		}
		hba := filepath.Join(dir, "pg_hba.conf")
		if err := os.WriteFile(hba, []byte(tlsHBA), 0o644); err != nil {
			return fail(err)
		}
		args = append(args, "-c", "ssl=on", "-c", "ssl_cert_file="+filepath.Join(dir, certFile),
			"-c", "ssl_key_file="+filepath.Join(dir, keyFile), "-c", "hba_file="+hba)
	}
	if s.port, err = testserver.FreePort(); err != nil {
		return fail(err)
	}
	logf, err := os.Create(s.log)
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), append(args, "-p", strconv.Itoa(s.port))...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	// SIGQUIT is PostgreSQL's immediate shutdown: the postmaster stops its
	// backends and frees its shared memory even when the test binary died.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT, Setpgid: true}
	if err := testserver.StartLocked(s.cmd, func() { close(s.exited) }); err != nil {
		return fail(fmt.Errorf("start postgres: %w", err))
	}
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, s.adminConnString("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			break
		}
		select {
		case <-s.exited:
			tail := s.logTail()
			os.RemoveAll(dir)
			return nil, fmt.Errorf("postgres exited at startup:\n%s", tail)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tail := s.logTail()
			s.Stop()
			return nil, fmt.Errorf("postgres did not accept connections on 127.0.0.1:%d within %v (last: %v):\n%s", s.port, startTimeout, err, tail)
		}
	}
	s.Startup = time.Since(began)
	return s, nil
}

// Stop shuts the server down (fast shutdown, then SIGKILL after 10s) and
// removes its directory.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.exited
		}
	}
	os.RemoveAll(s.dir)
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Addr returns host:port of the server's TCP listener.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// BinDir returns the directory of the server's binaries (psql is usually
// beside them).
func (s *Server) BinDir() string { return s.bin }

// ConnString returns a URL for database db as the superuser, with the
// password in it.
func (s *Server) ConnString(db string) string {
	return fmt.Sprintf("postgres://%s:%s@127.0.0.1:%d/%s?sslmode=disable", User, Password, s.port, db)
}

// adminConnString is ConnString or TLSConnString, as the server takes.
func (s *Server) adminConnString(db string) string {
	if s.tls {
		return s.TLSConnString(db)
	}
	return s.ConnString(db)
}

// NewDatabase creates a database with a fresh name and returns its
// connection string (TLSConnString's on a TLS server); the database is
// dropped when t ends.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	var rnd [6]byte
	rand.Read(rnd[:])
	name := "t_" + hex.EncodeToString(rnd[:])
	s.exec(t, "CREATE DATABASE "+name)
	t.Cleanup(func() { s.exec(t, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	return s.adminConnString(name)
}

func (s *Server) exec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.adminConnString("postgres"))
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
}

// Connect opens a connection to the database of connString for the test's
// own queries; it is closed when t ends.
func Connect(t testing.TB, connString string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
