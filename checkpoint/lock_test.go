package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/millrace/millrace/internal/fsutil"
)

// A second Open of a checkpoint held by a running query is refused with
// the holder's pid and changes nothing; once the holder closes it, the
// checkpoint opens again.
func TestOpenLocks(t *testing.T) {
	d := build(t, 1, true)
	_, err := Open(d.Path())
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	for _, frag := range []string{d.Path(), "in use by another running query", fmt.Sprintf("pid %d", os.Getpid())} {
		if !strings.Contains(err.Error(), frag) {
			t.Errorf("error %q lacks %q", err, frag)
		}
	}
	d2, err := reopen(t, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, comMax := d2.Batches(); comMax != 0 {
		t.Fatalf("reopened checkpoint: latest commit %d, want 0", comMax)
	}
	// Closing twice is harmless; a closed Dir's lock is free.
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
	d3, err := Open(d.Path())
	if err != nil {
		t.Fatal(err)
	}
	d3.Close()
}

// Issue 10, item 9: a refused second Open must not delete the running
// query's temporary files (an offsets file being written): it used to
// clean them up before anything refused it, and the running query's
// rename then failed.
func TestRefusedOpenKeepsTempFiles(t *testing.T) {
	d := build(t, 1, false)
	inFlight := filepath.Join(d.Path(), "offsets", tempPrefix+"1-0123456789ab")
	if err := os.WriteFile(inFlight, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(d.Path()); !errors.Is(err, ErrInUse) {
		t.Fatalf("second Open: %v, want ErrInUse", err)
	}
	if _, err := os.Stat(inFlight); err != nil {
		t.Fatalf("the refused Open removed the running query's temp file: %v", err)
	}
	// The holder itself, restarted, cleans up what a crash left.
	if _, err := reopen(t, d); err != nil {
		t.Fatal(err)
	}
	noTemps(t, d.Path())
}

// Files written once are created with no-overwrite semantics: of many
// concurrent writers exactly one wins, the others get ErrExists, and the
// file holds the winner's complete content.
func TestWriteNoReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "metadata")
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = writeFileNoReplace(p, []byte(fmt.Sprintf(`{"id":"writer-%02d"}`, i)))
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Fatalf("writers %d and %d both wrote %s", won, i, p)
		case err == nil:
			won = i
		case !errors.Is(err, ErrExists):
			t.Fatalf("writer %d: %v, want ErrExists", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no writer won")
	}
	if got, _ := os.ReadFile(p); string(got) != fmt.Sprintf(`{"id":"writer-%02d"}`, won) {
		t.Fatalf("metadata holds %q, the winner was %d", got, won)
	}
	noTemps(t, dir)

	// Metadata written once: a second WriteMetadata leaves it alone.
	d, err := Open(filepath.Join(t.TempDir(), "cp"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.WriteMetadata(Metadata{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMetadata(Metadata{ID: "b"}); !errors.Is(err, ErrExists) {
		t.Fatalf("second metadata: %v", err)
	}
	if m, _, _ := d.Metadata(); m.ID != "a" {
		t.Fatalf("metadata id %q, want a", m.ID)
	}
}

// Issue 10, item 10: a full disk while writing a checkpoint file is an
// error that says so, names the file and says what to do.
func TestDiskFullNamesFile(t *testing.T) {
	d := build(t, 1, false)
	defer fsutil.SetWriteForTest(func(f *os.File, data []byte) (int, error) {
		return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	})()
	cases := []struct {
		file  string
		write func() error
	}{
		{"offsets/1", func() error { return d.WriteOffsets(OffsetEntry{BatchID: 1, Offsets: []string{"1", "2"}}) }},
		{"metadata", func() error {
			e, err := Open(filepath.Join(t.TempDir(), "cp"))
			if err != nil {
				return err
			}
			defer e.Close()
			err = e.WriteMetadata(Metadata{ID: "x"})
			if err != nil {
				err = fmt.Errorf("%w [%s]", err, e.Path())
			}
			return err
		}},
		{"f", func() error { return WriteFileAtomic(filepath.Join(d.Path(), "f"), []byte("x")) }},
	}
	for _, c := range cases {
		err := c.write()
		if !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("%s: %v, want ErrDiskFull wrapping ENOSPC", c.file, err)
		}
		for _, frag := range []string{c.file, "the disk is full", "free space on the filesystem holding"} {
			if !strings.Contains(err.Error(), frag) {
				t.Errorf("%s: error %q lacks %q", c.file, err, frag)
			}
		}
	}
	noTemps(t, d.Path())
	if _, err := os.Stat(filepath.Join(d.Path(), "offsets", "1")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("offsets/1 after a failed write: %v", err)
	}
}
