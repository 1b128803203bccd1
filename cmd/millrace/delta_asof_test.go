package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeltaReadOlderVersionOfUnreadableTable: a table whose latest
// version uses a feature millrace does not read (column mapping, here from
// version 3 on) still reads at --version 0..2, and the error for the latest
// names that version. `delta read --version 0` used to fail on the latest
// version's checkpoint or commit, and its error named that instead of
// version 0.
func TestDeltaReadOlderVersionOfUnreadableTable(t *testing.T) {
	path, _ := makeTable(t)
	upgrade := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["columnMapping"],"writerFeatures":["columnMapping"]}}` + "\n"
	if err := os.WriteFile(filepath.Join(path, "_delta_log", "00000000000000000003.json"), []byte(upgrade), 0o644); err != nil {
		t.Fatal(err)
	}
	sameRows(t, "read --version 0", csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--version", "0", path)), nil)
	sameRows(t, "read --version of the first append",
		csvRows(t, mustRun(t, "delta", "read", "--format", "csv", "--version", "1", path)), wantRows(firstRows))
	if out := mustRun(t, "delta", "files", "--version", "2", path); !strings.Contains(out, "8 records at version 2") {
		t.Fatalf("files --version 2:\n%s", out)
	}
	for _, args := range [][]string{
		{"delta", "read", path},
		{"delta", "files", path},
		{"delta", "read", "--version", "3", path},
	} {
		_, _, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), "version 3") || !strings.Contains(err.Error(), "columnMapping") {
			t.Errorf("millrace %s: error %v, want one naming version 3 and the feature", strings.Join(args, " "), err)
		}
	}
}

// sharedDeltaTable returns a table of ../shared/testdata/delta found by
// walking up from the package directory, or skips the test.
func sharedDeltaTable(t *testing.T, name string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "shared", "testdata", "delta", filepath.FromSlash(name))
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("shared/testdata/delta/%s not found", name)
		}
		dir = parent
	}
}

// TestDeltaReadDeletionVectors reads delta-rs's table-with-dv-small, whose
// version 1 deletes values 0 and 9 with a deletion vector.
func TestDeltaReadDeletionVectors(t *testing.T) {
	path := sharedDeltaTable(t, "delta-rs/table-with-dv-small")
	lines := func(out string) string { return strings.Join(strings.Fields(out), " ") }
	if got := lines(mustRun(t, "delta", "read", "--format", "csv", path)); got != "value 1 2 3 4 5 6 7 8" {
		t.Fatalf("latest: %s", got)
	}
	if got := lines(mustRun(t, "delta", "read", "--format", "csv", "--version", "0", path)); got != "value 0 1 2 3 4 5 6 7 8 9" {
		t.Fatalf("version 0: %s", got)
	}
	if got := mustRun(t, "delta", "read", "--format", "csv", "--where", "value > 5", path); lines(got) != "value 6 7 8" {
		t.Fatalf("--where: %s", got)
	}
	out := mustRun(t, "delta", "files", "--format", "json", path)
	if !strings.Contains(out, `"records": 8`) || !strings.Contains(out, `"deletedRows": 2`) {
		t.Fatalf("files: %s", out)
	}
}
