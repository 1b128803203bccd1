package ui

import "testing"

// A missing host listens on loopback only: the UI has no authentication.
func TestListenAddr(t *testing.T) {
	for in, want := range map[string]string{
		"":             "127.0.0.1:4040",
		":4041":        "127.0.0.1:4041",
		"0.0.0.0:4040": "0.0.0.0:4040",
		"[::1]:0":      "[::1]:0",
	} {
		if got, err := listenAddr(in); err != nil || got != want {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := listenAddr("4040"); err == nil {
		t.Error("listenAddr(\"4040\") accepted a port without a colon")
	}
}
