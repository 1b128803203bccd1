package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/testserver"
	"github.com/millrace/millrace/storage"
	_ "github.com/millrace/millrace/storage/s3store" // NewStore opens s3:// locations
)

// RequireEnv is the environment variable that turns a missing server from
// a skipped test into a failed one.
const RequireEnv = "MILLRACE_REQUIRE_S3"

// startTimeout bounds how long the server may take to answer.
const startTimeout = 30 * time.Second

// Server is a running moto S3 server.
type Server struct {
	endpoint string
	cmd      *exec.Cmd
	log      *os.File
	exited   chan struct{}
	// Startup is how long Start took to bring the server up, for reports.
	Startup time.Duration
}

var (
	once       sync.Once
	shared     *Server
	sharedErr  error
	sharedSkip string

	authOnce sync.Once
	authed   *Server
	authErr  error
)

// Endpoint returns the server's URL (http://127.0.0.1:port).
func (s *Server) Endpoint() string { return s.endpoint }

// Binary returns the moto_server executable to run, or an error saying how
// to install it.
func Binary() (string, error) {
	if p := os.Getenv("MILLRACE_MOTO_SERVER"); p != "" {
		return p, nil
	}
	if root, err := testserver.ModuleRoot(); err == nil {
		p := filepath.Join(root, ".venv", "bin", "moto_server")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("moto_server"); err == nil {
		return p, nil
	}
	return "", errors.New("s3test: moto_server not found in .venv/bin, MILLRACE_MOTO_SERVER or PATH (run sh scripts/venv.sh)")
}

// Start returns the test binary's server, starting it at the first call. It
// skips t when moto_server is missing and MILLRACE_REQUIRE_S3 is not set, and
// fails t when the server does not come up.
func Start(t testing.TB) *Server {
	t.Helper()
	once.Do(func() {
		bin, err := Binary()
		if err != nil {
			sharedSkip = err.Error()
			return
		}
		shared, sharedErr = start(bin)
	})
	return check(t, shared, sharedErr)
}

// StartAuth returns a second server of the test binary that checks
// credentials, as S3 does (moto's IAM mode, INITIAL_NO_AUTH_ACTION_COUNT=0):
// it knows no access key, so every request is refused with
// InvalidAccessKeyId. NewBucket does not work on it.
func StartAuth(t testing.TB) *Server {
	t.Helper()
	authOnce.Do(func() {
		bin, err := Binary()
		if err != nil {
			sharedSkip = err.Error()
			return
		}
		authed, authErr = start(bin, "INITIAL_NO_AUTH_ACTION_COUNT=0")
	})
	return check(t, authed, authErr)
}

func check(t testing.TB, s *Server, err error) *Server {
	t.Helper()
	testserver.Check(t, RequireEnv, "S3 server", sharedSkip, err)
	return s
}

// Main runs the tests of m, stops the server if one was started, and exits
// with the tests' exit code. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Stop()
	os.Exit(code)
}

// Stop stops the servers the test binary started; TestMain functions that
// start other servers too call it instead of Main.
func Stop() {
	for _, s := range []*Server{shared, authed} {
		if s != nil {
			s.Stop()
		}
	}
}

func start(bin string, env ...string) (*Server, error) {
	began := time.Now()
	port, err := testserver.FreePort()
	if err != nil {
		return nil, err
	}
	log, err := os.CreateTemp("", "millrace-moto-*.log")
	if err != nil {
		return nil, err
	}
	s := &Server{endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), log: log, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout, s.cmd.Stderr = log, log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := testserver.StartLocked(s.cmd, func() { close(s.exited) }); err != nil {
		log.Close()
		os.Remove(log.Name())
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		resp, err := http.Get(s.endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case <-s.exited:
			tail := s.logTail()
			s.Stop()
			return nil, fmt.Errorf("%s exited at startup:\n%s", bin, tail)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tail := s.logTail()
			s.Stop()
			return nil, fmt.Errorf("%s did not answer at %s within %v:\n%s", bin, s.endpoint, startTimeout, tail)
		}
	}
	s.Startup = time.Since(began)
	return s, nil
}

// Stop kills the server and removes its log.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
	}
	s.log.Close()
	os.Remove(s.log.Name())
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.log.Name())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// NewBucket creates a bucket with a fresh name and returns the name.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	var rnd [6]byte
	rand.Read(rnd[:])
	name := "millrace-test-" + hex.EncodeToString(rnd[:])
	req, err := http.NewRequest(http.MethodPut, s.endpoint+"/"+name, bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("s3test: create bucket %s: %v", name, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("s3test: create bucket %s: HTTP %s", name, resp.Status)
	}
	return name
}

// Setenv points package storage's S3 client at the server for the rest of
// the test (t.Setenv: endpoint with path-style addressing, throwaway
// credentials, region), so tests that use it cannot run in parallel.
func (s *Server) Setenv(t testing.TB) {
	t.Helper()
	t.Setenv("MILLRACE_S3_ENDPOINT", s.endpoint)
	t.Setenv("AWS_ACCESS_KEY_ID", "millrace-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "millrace-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", os.DevNull)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", os.DevNull)
}

// NewStore points package storage's S3 client at the server (Setenv) and
// returns the location s3://<a new bucket>/<prefix> and the Store on it,
// for tests that put or inspect objects there.
func (s *Server) NewStore(t testing.TB, prefix string) (string, storage.Store) {
	t.Helper()
	s.Setenv(t)
	loc := "s3://" + s.NewBucket(t) + "/" + prefix
	st, err := storage.Open(context.Background(), loc)
	if err != nil {
		t.Fatalf("s3test: open %s: %v", loc, err)
	}
	return loc, st
}
