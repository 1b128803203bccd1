package lake

import "testing"

// testLoc is the location of a local table at dir.
func testLoc(t testing.TB, dir string) *location {
	t.Helper()
	loc, err := openLocation(dir)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
