package e2e_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
	"github.com/millrace/millrace/storage"
)

// TestS3CheckpointRecovery: a windowed aggregation with its checkpoint on
// the S3 server (offsets, commits and metadata as objects; the state store
// in the local work directory) crashes mid-batch, restarts from the S3
// checkpoint, and ends with exactly the rows of an uninterrupted run.
func TestS3CheckpointRecovery(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	t.Setenv(checkpoint.WorkDirEnv, t.TempDir())
	const delay = 10 * time.Second
	w := windowSpec{size: 60 * second, slide: 20 * second}
	chunks := split(genClicks(1200, 7, 0.05), 6)
	want, _ := oracle(chunks, w, millrace.Update, int64(delay/time.Microsecond))
	var wantRows [][]any
	for _, b := range want {
		wantRows = append(wantRows, b...)
	}
	build := func(src *memsrc.Source) *millrace.Stream { return clickQuery(src, w, delay) }
	for _, step := range []string{exec.StepOffsetsWritten, exec.StepStateCommitted} {
		t.Run(step, func(t *testing.T) {
			loc := fmt.Sprintf("s3://%s/queries/clicks", srv.NewBucket(t))
			got := runWithCrashIn(t, loc, chunks, build, millrace.Update, step, 3)
			if d := testutil.Diff(got, wantRows); d != "" {
				t.Fatal(d)
			}
			st, err := storage.Open(context.Background(), loc)
			if err != nil {
				t.Fatal(err)
			}
			commits, err := st.List(context.Background(), "commits/")
			if err != nil || len(commits) < len(chunks) { // one per chunk, more for no-data batches that move the watermark
				t.Fatalf("%s holds commits %v (%v), want at least %d", loc, commits, err, len(chunks))
			}
		})
	}
}
