package testserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// StartLocked starts cmd, then waits for it and calls exited, all on one
// goroutine locked to its OS thread. Every test server sets a Pdeathsig so
// that none outlives a test binary that dies; Linux sends it when the
// thread that forked the child exits, not the process, and Go ends a
// thread when a goroutine locked to it returns without unlocking. A server
// started from a thread the scheduler later lent to such a goroutine died
// mid-test (kinesalite, once: "connection refused"); the locked goroutine
// keeps its thread for as long as the child lives (golang/go#27505).
func StartLocked(cmd *exec.Cmd, exited func()) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		exited()
	}()
	return <-started
}

// ModuleRoot returns the directory of go.mod above the working directory
// (a test's working directory is its package's).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FreePorts returns n distinct ports free on 127.0.0.1 now.
func FreePorts(n int) ([]int, error) {
	ls := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// FreePort returns a port free on 127.0.0.1 now.
func FreePort() (int, error) {
	p, err := FreePorts(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// Check ends t when its server cannot serve it: missing (non-empty: why
// the server is not installed here) skips t, or fails it when requireEnv
// is set; err (the server did not come up) fails it. what names the
// server in the failure ("S3 server").
func Check(t testing.TB, requireEnv, what, missing string, err error) {
	t.Helper()
	if missing != "" {
		if os.Getenv(requireEnv) != "" {
			t.Fatalf("%s (%s is set, so a missing %s is an error)", missing, requireEnv, what)
		}
		t.Skipf("%s; set %s=1 to make this an error", missing, requireEnv)
	}
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
