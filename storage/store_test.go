package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/storage"
)

// backends returns a fresh store of each kind: local disk always, S3 on the
// test server when it runs here.
func backends(t *testing.T) map[string]func(t *testing.T) storage.Store {
	return map[string]func(t *testing.T) storage.Store{
		"local": func(t *testing.T) storage.Store {
			st, err := storage.Open(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
		"s3": func(t *testing.T) storage.Store {
			srv := s3test.Start(t)
			srv.Setenv(t)
			st, err := storage.Open(context.Background(), "s3://"+srv.NewBucket(t)+"/ckpt/q1")
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
}

func TestStoreOperations(t *testing.T) {
	ctx := context.Background()
	for kind, open := range backends(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			if err := st.WriteNew(ctx, "offsets/0", []byte("v1\nzero")); err != nil {
				t.Fatal(err)
			}
			got, err := st.Read(ctx, "offsets/0")
			if err != nil || string(got) != "v1\nzero" {
				t.Fatalf("read offsets/0 = %q, %v", got, err)
			}
			err = st.WriteNew(ctx, "offsets/0", []byte("other"))
			if !errors.Is(err, storage.ErrExists) {
				t.Fatalf("second WriteNew: want ErrExists, got %v", err)
			}
			if got, _ := st.Read(ctx, "offsets/0"); string(got) != "v1\nzero" {
				t.Fatalf("WriteNew that lost replaced the object: %q", got)
			}
			if err := st.Write(ctx, "metadata", []byte("a")); err != nil {
				t.Fatal(err)
			}
			if err := st.Write(ctx, "metadata", []byte("bb")); err != nil {
				t.Fatal(err)
			}
			if got, _ := st.Read(ctx, "metadata"); string(got) != "bb" {
				t.Fatalf("Write did not replace: %q", got)
			}
			info, err := st.Stat(ctx, "metadata")
			if err != nil || info.Size != 2 || info.Name != "metadata" || info.ModTime.IsZero() {
				t.Fatalf("stat metadata = %+v, %v", info, err)
			}
			for _, n := range []string{"offsets/2", "offsets/10", "offsets/1", "commits/0"} {
				if err := st.WriteNew(ctx, n, []byte(n)); err != nil {
					t.Fatal(err)
				}
			}
			list, err := st.List(ctx, "offsets/")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := names(list), "offsets/0 offsets/1 offsets/10 offsets/2"; got != want {
				t.Fatalf("list offsets/ = %s, want %s", got, want)
			}
			list, _ = st.List(ctx, "")
			if got, want := names(list), "commits/0 metadata offsets/0 offsets/1 offsets/10 offsets/2"; got != want {
				t.Fatalf("list all = %s, want %s", got, want)
			}
			if list, err := st.List(ctx, "state/"); err != nil || len(list) != 0 {
				t.Fatalf("list of an unused prefix = %v, %v; want empty", list, err)
			}
			if err := st.Delete(ctx, "offsets/1"); err != nil {
				t.Fatal(err)
			}
			if err := st.Delete(ctx, "offsets/1"); err != nil {
				t.Fatalf("delete of a missing object: %v", err)
			}
			list, _ = st.List(ctx, "offsets/")
			if got, want := names(list), "offsets/0 offsets/10 offsets/2"; got != want {
				t.Fatalf("list after delete = %s, want %s", got, want)
			}
			_, err = st.Read(ctx, "offsets/1")
			if !errors.Is(err, storage.ErrNotExist) || !strings.Contains(err.Error(), "offsets/1") || !strings.Contains(err.Error(), "read") {
				t.Fatalf("read of a missing object: want ErrNotExist naming it, got %v", err)
			}
			if _, err := st.Stat(ctx, "nope"); !errors.Is(err, storage.ErrNotExist) {
				t.Fatalf("stat of a missing object: want ErrNotExist, got %v", err)
			}
			if err := st.Write(ctx, "../escape", nil); err == nil {
				t.Fatal("a name with .. was accepted")
			}
		})
	}
}

// Two writers racing to create one name: exactly one wins, the other gets
// ErrExists, and the object holds the winner's bytes.
func TestWriteNewRace(t *testing.T) {
	ctx := context.Background()
	for kind, open := range backends(t) {
		t.Run(kind, func(t *testing.T) {
			st := open(t)
			for round := range 20 {
				name := fmt.Sprintf("commits/%d", round)
				var wg sync.WaitGroup
				errs := make([]error, 2)
				for w := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs[w] = st.WriteNew(ctx, name, bytes.Repeat([]byte{byte('a' + w)}, 1000))
					}()
				}
				wg.Wait()
				wins := 0
				for w, err := range errs {
					switch {
					case err == nil:
						wins++
						got, rerr := st.Read(ctx, name)
						if rerr != nil || !bytes.Equal(got, bytes.Repeat([]byte{byte('a' + w)}, 1000)) {
							t.Fatalf("%s: winner %d's bytes not there (%v)", name, w, rerr)
						}
					case !errors.Is(err, storage.ErrExists):
						t.Fatalf("%s: loser got %v, want ErrExists", name, err)
					}
				}
				if wins != 1 {
					t.Fatalf("%s: %d writers won, want exactly 1 (errors %v)", name, wins, errs)
				}
			}
		})
	}
}

func names(list []storage.ObjectInfo) string {
	var s []string
	for _, o := range list {
		s = append(s, o.Name)
	}
	return strings.Join(s, " ")
}

func TestOpenLocations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := storage.Open(ctx, "file://"+dir)
	if err != nil || st.Location() != dir {
		t.Fatalf("file:// = %v, %v", st, err)
	}
	s3st, err := storage.Open(ctx, "s3a://bucket/a/b/")
	if err != nil || s3st.Location() != "s3://bucket/a/b/" {
		t.Fatalf("s3a:// = %v, %v", s3st, err)
	}
	if _, err := storage.Open(ctx, "gs://bucket/x"); err == nil || !strings.Contains(err.Error(), "unknown scheme") {
		t.Fatalf("gs:// = %v, want unknown scheme", err)
	}
	if _, err := storage.Open(ctx, "s3:///x"); err == nil {
		t.Fatal("s3:// without a bucket was accepted")
	}
}
