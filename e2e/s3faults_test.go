package e2e_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestS3FaultsMidRun: a windowed aggregation whose checkpoint is on the S3
// server behind a fault proxy meets, between and during its batches, an
// outage (the server restarting), throttling, slow answers, uploads cut off
// halfway and answers lost after a conditional write. The retries ride all
// of them out and the output is exactly an uninterrupted run's. An outage
// that outlasts the retries stops the query with an error naming the
// object; the restarted query still ends with exactly the oracle's rows.
func TestS3FaultsMidRun(t *testing.T) {
	srv := s3test.Start(t)
	proxy := srv.NewProxy(t)
	proxy.Setenv(t, srv)
	t.Setenv(checkpoint.WorkDirEnv, t.TempDir())
	const delay = 10 * time.Second
	w := windowSpec{size: 60 * second, slide: 20 * second}
	chunks := split(genClicks(1200, 11, 0.05), 8)
	want, _ := oracle(chunks, w, millrace.Update, int64(delay/time.Microsecond))
	var wantRows [][]any
	for _, b := range want {
		wantRows = append(wantRows, b...)
	}
	build := func(src *memsrc.Source) *millrace.Stream { return clickQuery(src, w, delay) }
	faults := []func(){
		func() { proxy.Down(); time.AfterFunc(time.Second, proxy.Up) },
		func() { proxy.Throttle(3) },
		func() { proxy.SetDelay(40 * time.Millisecond) },
		func() { proxy.SetDelay(0); proxy.CutUploads(2) },
		func() { proxy.LoseResponses(2) },
	}

	t.Run("ridden-out", func(t *testing.T) {
		loc := fmt.Sprintf("s3://%s/queries/clicks", srv.NewBucket(t))
		r := restartRun{loc: loc, chunks: chunks, build: build, mode: millrace.Update, before: func(i int) {
			if i < len(faults) {
				faults[i]()
			}
		}}
		got := r.run(t)
		if d := testutil.Diff(got, wantRows); d != "" {
			t.Fatal(d)
		}
		if proxy.Faults() < 8 {
			t.Fatalf("only %d requests failed on purpose", proxy.Faults())
		}
	})

	t.Run("outlasting-retries", func(t *testing.T) {
		t.Setenv("AWS_MAX_ATTEMPTS", "2")
		loc := fmt.Sprintf("s3://%s/queries/clicks", srv.NewBucket(t))
		var stopErr error
		r := restartRun{loc: loc, chunks: chunks, build: build, mode: millrace.Update,
			before: func(i int) {
				if i == 3 {
					proxy.Down()
				}
			},
			failed: func(err error) bool {
				stopErr = err
				proxy.Up()
				return true
			}}
		got := r.run(t)
		t.Logf("the outage stopped the query: %v", stopErr)
		if stopErr == nil || !strings.Contains(stopErr.Error(), loc) || !strings.Contains(stopErr.Error(), "gave up after 2 attempts") {
			t.Fatalf("the outage stopped the query with %v; want an error naming %s and the exhausted retries", stopErr, loc)
		}
		if d := testutil.Diff(got, wantRows); d != "" {
			t.Fatal(d)
		}
	})
}
