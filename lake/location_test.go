package lake

import (
	"path/filepath"
	"testing"
)

// testLoc is the location of a local table at dir.
func testLoc(t testing.TB, dir string) *location {
	t.Helper()
	loc, err := openLocation(dir)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// logPath is the local path of log entry name of the table at root.
func logPath(root, name string) string { return filepath.Join(root, logDir, name) }
