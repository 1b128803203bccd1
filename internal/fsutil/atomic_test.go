package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	for _, s := range []string{"one", "two"} {
		if err := Write(p, []byte(s)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); string(b) != s {
			t.Fatalf("content %q, want %q", b, s)
		}
	}
	assertNoTemps(t, filepath.Dir(p))
}

func TestWriteNewOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := WriteNew(p, []byte("a")); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(p, []byte("b")); !errors.Is(err, ErrExists) {
		t.Fatalf("second WriteNew: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "a" {
		t.Fatalf("content %q, want a", b)
	}
	assertNoTemps(t, filepath.Dir(p))
}

// A failed write names the final path and leaves no temporary file.
func TestWriteFailureNamesPath(t *testing.T) {
	defer SetWriteForTest(func(f *os.File, data []byte) (int, error) {
		return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	})()
	p := filepath.Join(t.TempDir(), "f")
	err := Write(p, []byte("x"))
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != p || pe.Op != "write" || !IsDiskFull(err) {
		t.Fatalf("err = %v", err)
	}
	assertNoTemps(t, filepath.Dir(p))
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, TempPrefix+"x"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644)
	if err := RemoveTemps(dir); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Fatal(err)
	}
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if len(e.Name()) >= len(TempPrefix) && e.Name()[:len(TempPrefix)] == TempPrefix {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}
