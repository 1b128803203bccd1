package lake

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Environment of the writer processes TestS3TwoProcessAppends starts.
const (
	writerTableEnv = "LAKE_TEST_WRITER_TABLE"
	writerIDEnv    = "LAKE_TEST_WRITER_ID"
	writerCommits  = 25
	writerRows     = 3
)

// Two OS processes append to one table on S3 at once: every commit is
// created with a conditional PUT (If-None-Match: *), a writer that loses a
// version re-reads the winner, finds no conflict (blind appends commute)
// and retries at the next version. Afterwards every commit of both is in
// the table, the versions are contiguous, and each version holds the
// commit of exactly one writer.
func TestS3TwoProcessAppends(t *testing.T) {
	noLocalDir(t)
	loc := s3Table(t) // sets the S3 environment the children inherit
	ctx := context.Background()
	if _, err := Create(ctx, loc, testSchema, Options{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	for w := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestS3AppendWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerTableEnv+"="+loc, writerIDEnv+"="+strconv.Itoa(w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[w], errs[w] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for w := range 2 {
		if errs[w] != nil {
			t.Fatalf("writer %d: %v\n%s", w, errs[w], outs[w])
		}
	}

	// Versions 0..2N, each a commit file; each append's one file is one
	// writer's commit.
	tl := testLoc(t, loc)
	lf, err := listLog(tl)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(lf.commits)); n != 2*writerCommits+1 || lf.commits[0] != 0 || lf.commits[n-1] != n-1 {
		t.Fatalf("log has %d commits %v, want versions 0..%d", n, lf.commits, 2*writerCommits)
	}
	raced := 0
	for v := int64(1); v <= 2*writerCommits; v++ {
		acts, err := readCommit(tl, v)
		if err != nil {
			t.Fatal(err)
		}
		adds := 0
		for _, a := range acts {
			if a.Add != nil {
				adds++
			}
			if ci := a.CommitInfo; ci != nil && ci.ReadVersion != nil && *ci.ReadVersion != v-1 {
				raced++ // read an older version: it lost at least one race
			}
		}
		if adds != 1 {
			t.Fatalf("version %d adds %d files, want the 1 of one append", v, adds)
		}
	}
	t.Logf("%d of %d commits lost a race and were retried at a later version", raced, 2*writerCommits)

	// Every row of both writers, once.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s, err := LoadSnapshot(loc, -1)
	if err != nil {
		t.Fatal(err)
	}
	var want []row
	for w := range 2 {
		for c := range writerCommits {
			want = append(want, writerBatch(w, c)...)
		}
	}
	assertLines(t, "two writers", tableLines(t, s, mem), rowLines(want))
}

// writerBatch is commit c of writer w: rows whose ids name both.
func writerBatch(w, c int) []row {
	out := make([]row, writerRows)
	for i := range out {
		out[i] = row{id: int64(w*1_000_000 + c*100 + i), name: fmt.Sprintf("writer%d", w), value: float64(c), ts: int64(c), part: "p"}
	}
	return out
}

// TestS3AppendWriterProcess is the body of one writer process of
// TestS3TwoProcessAppends; run directly it does nothing.
func TestS3AppendWriterProcess(t *testing.T) {
	loc := os.Getenv(writerTableEnv)
	if loc == "" {
		t.Skip("runs as a child of TestS3TwoProcessAppends")
	}
	w, err := strconv.Atoi(os.Getenv(writerIDEnv))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	tbl, err := Open(loc, Options{Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	var versions []string
	for c := range writerCommits {
		rec := makeRecord(mem, writerBatch(w, c))
		v, err := tbl.Append(ctx, []arrow.RecordBatch{rec})
		rec.Release()
		if err != nil {
			t.Fatalf("writer %d commit %d: %v", w, c, err)
		}
		versions = append(versions, strconv.FormatInt(v, 10))
	}
	t.Logf("writer %d committed versions %s", w, strings.Join(versions, " "))
}
