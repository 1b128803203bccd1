package storage_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/millrace/millrace/storage/s3store"
	"net/http"
	"net/http/httptest"
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

// Refused credentials name the bucket and the operation. A fake server
// answering 403 InvalidAccessKeyId stands in for S3 (moto accepts any key).
func TestS3CredentialsRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s3Error(w, http.StatusForbidden, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
	}))
	defer srv.Close()
	useFakeS3(t, srv.URL, "wrong")
	st, err := storage.Open(context.Background(), "s3://locked-bucket/ckpt")
	if err != nil {
		t.Fatal(err)
	}
	err = st.WriteNew(context.Background(), "offsets/0", []byte("x"))
	for _, want := range []string{"write-new", "s3://locked-bucket/ckpt/offsets/0", "credentials refused", "InvalidAccessKeyId"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v does not say %q", err, want)
		}
	}
}

// Throttling (503 SlowDown) is retried with backoff; the request succeeds
// once the server stops throttling.
func TestS3SlowDownRetried(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n <= 2 {
			s3Error(w, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
			return
		}
		fmt.Fprint(w, "hello")
	}))
	defer srv.Close()
	useFakeS3(t, srv.URL, "k")
	st, err := storage.Open(context.Background(), "s3://busy-bucket")
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Read(context.Background(), "x")
	if err != nil || string(got) != "hello" {
		t.Fatalf("read after throttling = %q, %v", got, err)
	}
	if calls != 3 {
		t.Fatalf("%d requests, want 3 (two throttled, one served)", calls)
	}
}

func names(list []storage.ObjectInfo) string {
	var s []string
	for _, o := range list {
		s = append(s, o.Name)
	}
	return strings.Join(s, " ")
}

// Throttling that does not stop ends in an error that says retries ran out
// and names the bucket and operation.
func TestS3SlowDownGivesUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s3Error(w, http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
	}))
	defer srv.Close()
	useFakeS3(t, srv.URL, "k")
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	st, err := storage.Open(context.Background(), "s3://busy-bucket/q")
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(context.Background(), "commits/3", []byte("x"))
	for _, want := range []string{"write s3://busy-bucket/q/commits/3", "gave up after 2 attempts", "SlowDown"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v does not say %q", err, want)
		}
	}
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

// useFakeS3 points the S3 backend at a fake endpoint with the given access
// key, no shared AWS config, for the tests of errors moto cannot produce.
func useFakeS3(t *testing.T, url, key string) {
	t.Helper()
	t.Setenv(s3store.EndpointEnv, url)
	t.Setenv("AWS_ACCESS_KEY_ID", key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", key)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", "/dev/null")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
}

// s3Error answers a request as S3 answers an error.
func s3Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>%s</Message></Error>`, code, msg)
}
