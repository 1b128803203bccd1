package e2e_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
	"github.com/millrace/millrace/state"
)

// runCheckpointed runs the click aggregation over three chunks with a
// checkpoint in dir.
func runCheckpointed(t *testing.T, dir string) {
	t.Helper()
	ctx := context.Background()
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	q, err := clickQuery(src, windowSpec{size: 60 * second, slide: 60 * second}, time.Second).
		WriteStream(testutil.NewRecorder()).OutputMode(millrace.Update).Checkpoint(dir).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, ctx, q, src, split(genClicks(600, 5, 0), 3))
}

func restart(dir string) error {
	src := testutil.Must(memsrc.New(clickSchema, memsrc.Options{}))
	q, err := clickQuery(src, windowSpec{size: 60 * second, slide: 60 * second}, time.Second).
		WriteStream(testutil.NewRecorder()).OutputMode(millrace.Update).Checkpoint(dir).Start(context.Background())
	if err != nil {
		return err
	}
	if err := q.ProcessAllAvailable(context.Background()); err != nil {
		return err
	}
	return q.Stop()
}

// TestCorruptCheckpoint: a damaged checkpoint is never silently replaced
// by a fresh start; the error names the file and what to do.
func TestCorruptCheckpoint(t *testing.T) {
	latest := func(dir, log string) string {
		entries, _ := os.ReadDir(filepath.Join(dir, log))
		best := ""
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") && (len(e.Name()) > len(best) || (len(e.Name()) == len(best) && e.Name() > best)) {
				best = e.Name()
			}
		}
		return filepath.Join(dir, log, best)
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns what the error must name
		is     error
	}{
		{"truncated offsets", func(t *testing.T, dir string) string {
			p := latest(dir, "offsets")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)/2], 0o644)
			return p
		}, checkpoint.ErrCorrupt},
		{"garbled commit", func(t *testing.T, dir string) string {
			p := latest(dir, "commits")
			os.WriteFile(p, []byte("v1\n{\"nextBatchWatermarkMs\": oops"), 0o644)
			return p
		}, checkpoint.ErrCorrupt},
		{"missing state directory", func(t *testing.T, dir string) string {
			os.RemoveAll(filepath.Join(dir, "state"))
			return filepath.Join(dir, "state")
		}, state.ErrMissing},
		{"state store of another query", func(t *testing.T, dir string) string {
			other := t.TempDir()
			runCheckpointed(t, other)
			os.RemoveAll(filepath.Join(dir, "state"))
			if err := os.Rename(filepath.Join(other, "state"), filepath.Join(dir, "state")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "state")
		}, state.ErrWrongQuery},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			runCheckpointed(t, dir)
			named := c.damage(t, dir)
			err := restart(dir)
			if err == nil {
				t.Fatal("the query restarted on a damaged checkpoint")
			}
			if !errors.Is(err, c.is) {
				t.Fatalf("error %v is not %v", err, c.is)
			}
			t.Log(err)
			if !strings.Contains(err.Error(), named) {
				t.Fatalf("error %q does not name %s", err, named)
			}
		})
	}
}
