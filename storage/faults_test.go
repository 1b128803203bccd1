package storage_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/storage"
	"github.com/millrace/millrace/storage/s3store"
)

// The faults of issue 14 item 6, injected by a proxy in front of the real
// S3 server (s3test.Proxy).

// faulty opens a store on a fresh bucket through a fault proxy.
func faulty(t *testing.T) (storage.Store, *s3test.Proxy) {
	t.Helper()
	srv := s3test.Start(t)
	p := srv.NewProxy(t)
	p.Setenv(t, srv)
	st, err := storage.Open(context.Background(), "s3://"+srv.NewBucket(t)+"/ckpt")
	if err != nil {
		t.Fatal(err)
	}
	return st, p
}

func wantErr(t *testing.T, err error, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("error %v does not say %q", err, w)
		}
	}
}

// An outage (the server restarting) shorter than the retries is ridden
// out: the write that started during it succeeds once the server is back.
func TestS3OutageRiddenOut(t *testing.T) {
	st, p := faulty(t)
	ctx := context.Background()
	p.Down()
	time.AfterFunc(1500*time.Millisecond, p.Up)
	if err := st.WriteNew(ctx, "offsets/0", []byte("zero")); err != nil {
		t.Fatalf("write during a 1.5 s outage: %v", err)
	}
	if got, err := st.Read(ctx, "offsets/0"); err != nil || string(got) != "zero" {
		t.Fatalf("read back = %q, %v", got, err)
	}
	if p.Faults() == 0 {
		t.Fatal("the outage dropped no request")
	}
}

// An outage longer than the retries ends in an error naming the operation
// and the object, and saying that retries ran out.
func TestS3OutageGivesUp(t *testing.T) {
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	st, p := faulty(t)
	p.Down()
	err := st.Write(context.Background(), "commits/3", []byte("x"))
	wantErr(t, err, "write s3://", "/ckpt/commits/3", "gave up after 2 attempts")
}

// Throttling (503 SlowDown) is retried with backoff; the request succeeds
// once the server stops throttling, and gives up with a clear error when it
// does not.
func TestS3SlowDown(t *testing.T) {
	st, p := faulty(t)
	ctx := context.Background()
	p.Throttle(3)
	if err := st.WriteNew(ctx, "offsets/0", []byte("zero")); err != nil {
		t.Fatalf("write after 3 throttled attempts: %v", err)
	}
	if p.Faults() != 3 {
		t.Fatalf("%d throttled requests, want 3", p.Faults())
	}
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	st2, err := storage.Open(ctx, st.Location())
	if err != nil {
		t.Fatal(err)
	}
	p.Throttle(100)
	err = st2.Write(ctx, "commits/3", []byte("x"))
	wantErr(t, err, "write s3://", "commits/3", "gave up after 2 attempts", "SlowDown")
}

// Slow answers slow the store down and nothing else; an answer slower than
// the response timeout fails the attempt instead of hanging.
func TestS3SlowResponses(t *testing.T) {
	st, p := faulty(t)
	ctx := context.Background()
	p.SetDelay(300 * time.Millisecond)
	for i, name := range []string{"a", "b"} {
		if err := st.WriteNew(ctx, name, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := st.List(ctx, "")
	if err != nil || names(list) != "a b" {
		t.Fatalf("list with slow answers = %v, %v", names(list), err)
	}
	t.Setenv(s3store.TimeoutEnv, "100ms")
	t.Setenv("AWS_MAX_ATTEMPTS", "2")
	stalled, err := storage.Open(ctx, st.Location())
	if err != nil {
		t.Fatal(err)
	}
	_, err = stalled.Read(ctx, "a")
	wantErr(t, err, "read s3://", "/ckpt/a", "timeout")
}

// An upload cut off halfway never shows a partial object: the object is
// absent until a whole upload lands (here the SDK's retry, which resends
// the body).
func TestS3UploadCutHalfway(t *testing.T) {
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	st, p := faulty(t)
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789abcdef"), 64<<10) // 1 MiB
	p.CutUploads(1)
	err := st.WriteNew(ctx, "part-0.parquet", data)
	if err == nil {
		t.Fatal("a cut upload succeeded")
	}
	wantErr(t, err, "write-new s3://", "part-0.parquet")
	if _, err := st.Stat(ctx, "part-0.parquet"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after a cut upload, stat = %v; want no object", err)
	}
	if list, _ := st.List(ctx, ""); len(list) != 0 {
		t.Fatalf("after a cut upload the bucket lists %s", names(list))
	}
	p.CutUploads(1)
	if err := st.Write(ctx, "part-1.parquet", data[:1000]); err == nil {
		t.Fatal("a cut replace succeeded")
	}
	if _, err := st.Stat(ctx, "part-1.parquet"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("after a cut replace, stat = %v; want no object", err)
	}

	t.Setenv("AWS_MAX_ATTEMPTS", "3")
	retrying, err := storage.Open(ctx, st.Location())
	if err != nil {
		t.Fatal(err)
	}
	p.CutUploads(1)
	if err := retrying.WriteNew(ctx, "part-0.parquet", data); err != nil {
		t.Fatalf("write retried after a cut upload: %v", err)
	}
	if got, err := st.Read(ctx, "part-0.parquet"); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v; want the %d written", len(got), err, len(data))
	}
}

// A conditional write whose answer was lost (the server created the object,
// the connection dropped) is retried; the retry's 412 is the writer's own
// object, so WriteNew succeeds. A different object under the name is
// still a lost race.
func TestS3WriteNewAnswerLost(t *testing.T) {
	st, p := faulty(t)
	ctx := context.Background()
	p.LoseResponses(1)
	if err := st.WriteNew(ctx, "offsets/7", []byte("mine")); err != nil {
		t.Fatalf("WriteNew whose first answer was lost: %v", err)
	}
	if p.Faults() != 1 {
		t.Fatalf("%d answers lost, want 1", p.Faults())
	}
	if err := st.WriteNew(ctx, "offsets/7", []byte("mine")); !errors.Is(err, storage.ErrExists) {
		t.Fatalf("a second WriteNew of the same bytes, not retried: %v; want ErrExists", err)
	}
	if err := st.WriteNew(ctx, "offsets/8", []byte("theirs")); err != nil {
		t.Fatal(err)
	}
	p.LoseResponses(1)
	p.CutUploads(0)
	// The first attempt is lost after it reaches the server, which refuses
	// it (412); the retry is refused too, and the object is someone else's.
	if err := st.WriteNew(ctx, "offsets/8", []byte("mine")); !errors.Is(err, storage.ErrExists) {
		t.Fatalf("WriteNew over another writer's object, answer lost: %v; want ErrExists", err)
	}
	if got, _ := st.Read(ctx, "offsets/8"); string(got) != "theirs" {
		t.Fatalf("offsets/8 = %q, want the first writer's", got)
	}
}

// Refused credentials name the bucket and the operation and say what to
// check. The server is moto in its IAM mode, which checks every request's
// signature and knows no key.
func TestS3CredentialsRefused(t *testing.T) {
	srv := s3test.StartAuth(t)
	srv.Setenv(t)
	st, err := storage.Open(context.Background(), "s3://locked-bucket/ckpt")
	if err != nil {
		t.Fatal(err)
	}
	err = st.WriteNew(context.Background(), "offsets/0", []byte("x"))
	wantErr(t, err, "write-new", "s3://locked-bucket/ckpt/offsets/0", "credentials refused", "InvalidAccessKeyId")
	_, err = st.List(context.Background(), "offsets/")
	wantErr(t, err, "list", "s3://locked-bucket/ckpt/offsets/", "credentials refused")
}
