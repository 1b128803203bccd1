package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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

// bothWays runs f with WriteNew's unnamed file (Linux) and with its named
// temporary file.
func bothWays(t *testing.T, f func(t *testing.T)) {
	for _, unnamed := range []bool{true, false} {
		t.Run(fmt.Sprintf("unnamed=%v", unnamed), func(t *testing.T) {
			old := useUnnamed
			useUnnamed = unnamed
			defer func() { useUnnamed = old }()
			f(t)
		})
	}
}

// On Linux WriteNew writes an unnamed file (O_TMPFILE) and links it: its
// content is written through a file with no temporary name.
func TestWriteNewUnnamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("O_TMPFILE is Linux's")
	}
	p := filepath.Join(t.TempDir(), "f")
	var wrote string
	defer SetWriteForTest(func(f *os.File, data []byte) (int, error) { wrote = f.Name(); return f.Write(data) })()
	if err := WriteNew(p, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if wrote != p {
		t.Fatalf("content written through %q, want the unnamed file for %q", wrote, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "abc" {
		t.Fatalf("content %q", b)
	}
	assertNoTemps(t, filepath.Dir(p))
}

// Both ways: one of racing writers creates the file, the others get
// ErrExists; a full disk names the file and leaves nothing.
func TestWriteNewBothWays(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		const writers = 8
		errs := make(chan error, writers)
		for i := 0; i < writers; i++ {
			go func(i int) { errs <- WriteNew(p, []byte(fmt.Sprint(i))) }(i)
		}
		won := 0
		for i := 0; i < writers; i++ {
			switch err := <-errs; {
			case err == nil:
				won++
			case !errors.Is(err, ErrExists):
				t.Errorf("writer: %v, want ErrExists", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d writers created the file, want 1", won)
		}
		assertNoTemps(t, dir)

		restore := SetWriteForTest(func(f *os.File, data []byte) (int, error) {
			return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
		})
		q := filepath.Join(dir, "g")
		err := WriteNew(q, []byte("x"))
		restore()
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != q || !IsDiskFull(err) {
			t.Fatalf("err = %v, want a full disk naming %s", err, q)
		}
		if _, err := os.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("%s exists after a failed write (%v)", q, err)
		}
		assertNoTemps(t, dir)
	})
}
