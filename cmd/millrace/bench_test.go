package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchNexmark runs every implemented query at small scale through the
// CLI and checks that each passes its oracle, in both output formats.
func TestBenchNexmark(t *testing.T) {
	out, _, err := run(t, "bench", "nexmark", "--query", "all", "--events", "60000", "--per-trigger", "20000", "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rs []benchResult
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(rs) != len(selectMust(t, "all")) {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if r.Oracle == nil || !r.Oracle.OK || r.Events != 60000 || r.EventsPerSecond <= 0 || r.InputRows <= 0 {
			t.Fatalf("bad result %+v (oracle %+v)", r, r.Oracle)
		}
	}

	out, _, err = run(t, "bench", "nexmark", "--query", "q2, Q0", "--events", "30000", "--parallelism", "1", "--out-of-order", "7")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"EVENTS/s/CORE", "q2 oracle: ok (rows", "q0 oracle: ok (rows"} {
		if !strings.Contains(out, want) {
			t.Fatalf("table output lacks %q:\n%s", want, out)
		}
	}

	out, _, err = run(t, "bench", "nexmark", "--query", "q0", "--events", "1000", "--no-check", "--format", "json", "--quiet")
	if err != nil || strings.Contains(out, "oracle") {
		t.Fatalf("--no-check: %v\n%s", err, out)
	}
	out, _, err = run(t, "bench", "nexmark", "--query", "all", "--sql", "--events", "30000", "--format", "json", "--quiet")
	if err != nil {
		t.Fatalf("--sql: %v\n%s", err, out)
	}
	rs = nil
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	if len(rs) == 0 {
		t.Fatal("--sql ran no query")
	}
	for _, r := range rs {
		if !r.SQL || r.Oracle == nil || !r.Oracle.OK {
			t.Fatalf("--sql: bad result %+v (oracle %+v)", r, r.Oracle)
		}
	}
	if _, _, err := run(t, "bench", "nexmark", "--query", "q99"); err == nil || !strings.Contains(err.Error(), "unknown query") {
		t.Fatalf("unknown query: %v", err)
	}
}

func selectMust(t *testing.T, list string) []string {
	qs, err := selectQueries(list)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
	}
	return names
}
