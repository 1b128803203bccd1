package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/millrace/millrace"
)

// The bar is drawn on terminals only: redirected output and --quiet get no
// frames, but the totals are kept for the summary.
func TestBarOnlyOnTerminals(t *testing.T) {
	for _, show := range []bool{true, false} {
		var buf bytes.Buffer
		p := newProgressListener(&buf, 100, "x", show)
		p.OnQueryProgress(&millrace.Progress{NumInputRows: 10})
		p.OnQueryTerminated("", "", nil)
		if buf.Len() != 0 {
			t.Fatalf("show=%v: a bar was drawn into a buffer: %q", show, buf.String())
		}
		if p.in.Load() != 10 {
			t.Fatalf("counted %d input rows", p.in.Load())
		}
	}
}

// The bar's clock starts when it is created (its first frame), so the first
// rate is the rows of the first batch over that batch's time.
func TestBarClockStartsAtCreation(t *testing.T) {
	var buf bytes.Buffer
	p := newBar(&buf, 100, "x", true)
	if !p.bar.IsStarted() || !strings.Contains(buf.String(), "x") {
		t.Fatalf("no frame at creation: %q", buf.String())
	}
}

func TestDemoDrawsNoBarWhenRedirected(t *testing.T) {
	for _, args := range [][]string{{"--quiet"}, nil} {
		_, errOut, err := run(t, append([]string{"demo", "--events", "20000", "--per-trigger", "5000", "--console"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(errOut, "\r") || strings.Contains(errOut, "events/s") {
			t.Fatalf("demo %v drew a bar into redirected stderr: %q", args, errOut)
		}
	}
}
