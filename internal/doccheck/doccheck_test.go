package doccheck

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRepositoryDocs fails on every name in the repository's docs that the
// code does not have (see the package doc for the rules). Fix the doc, or
// the name, in the same change.
func TestRepositoryDocs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Check(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		t.Error(f)
	}
}

// TestFixture pins what each rule finds, and what it leaves alone, on a
// small tree.
func TestFixture(t *testing.T) {
	fs, err := Check("testdata/repo")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d %s", f.File, f.Line, f.Name))
	}
	want := []string{
		"README.md:3 T.Q",
		"README.md:3 a.Gone",
		"README.md:3 a/b.go",
		"README.md:3 gone.go",
		"README.md:4 a.Vanished",
		"README.md:4 a/nope/",
		"README.md:7 a.Gone2",
		"a/a.go:1 a/nosuch",
		"a/a.go:1 gone.go",
		"a/a.go:2 T.X",
		"a/a.go:2 a.Gone",
		"a/a.go:2 a.Lost",
		"a/a.go:2 a.T.Y",
		"a/a.go:19 Alias.Z",
		"docs/PKGS.md:5 b",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
