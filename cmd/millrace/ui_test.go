package main

import (
	"strings"
	"testing"
)

// --ui serves the web UI for the run and says where; a bad address is an
// error that shows the form wanted.
func TestDemoUI(t *testing.T) {
	_, errOut, err := run(t, "demo", "--events", "50000", "--quiet", "--console", "--ui", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "web UI: http://127.0.0.1:") || !strings.Contains(errOut, "/metrics") {
		t.Fatalf("demo --ui does not say where the UI is:\n%s", errOut)
	}
	if _, _, err := run(t, "demo", "--events", "1000", "--quiet", "--console", "--ui", "4040"); err == nil || !strings.Contains(err.Error(), "host:port") {
		t.Fatalf("demo --ui 4040: %v, want an error asking for host:port", err)
	}
	if _, _, err := run(t, "bench", "nexmark", "--query", "q0", "--events", "1000", "--quiet", "--ui", "4040"); err == nil {
		t.Fatal("bench nexmark --ui 4040 accepted a bad address")
	}
}
