package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/exec"
	"github.com/millrace/millrace/internal/s3test"
	filesink "github.com/millrace/millrace/sinks/file"
	filesrc "github.com/millrace/millrace/sources/file"
	"github.com/millrace/millrace/storage"
)

// TestS3FileToFile: a query reads JSON objects from an S3 prefix (file
// source, at most two files a trigger), keeps and derives some columns, and
// writes JSON lines to another S3 prefix (file sink), with its checkpoint on
// S3 too. Objects arrive between runs; the query crashes once at a step of
// the batch protocol and a new process (new source, sink and query on the
// same locations) restarts it. The sink's committed output holds every
// input row exactly once, whatever step the crash hit, and a file source
// reading that output (a chained query) sees each row once.
func TestS3FileToFile(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "clicks", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	ctx := context.Background()
	const rounds, filesPerRound, rowsPerFile = 5, 3, 20
	for _, step := range []string{exec.StepOffsetsWritten, exec.StepDataRead, exec.StepSinkCommitted, exec.StepCommitWritten} {
		t.Run(step, func(t *testing.T) {
			t.Setenv(checkpoint.WorkDirEnv, t.TempDir())
			bucket := srv.NewBucket(t)
			in, out, ckpt := "s3://"+bucket+"/in", "s3://"+bucket+"/out", "s3://"+bucket+"/checkpoints/q"
			inStore, err := storage.Open(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			fault := &crash{step: step, batch: 3}
			start := func() *millrace.Query {
				src, err := filesrc.New(filesrc.Options{Path: in, Format: filesrc.JSON, Schema: schema, MaxFilesPerTrigger: 2})
				if err != nil {
					t.Fatal(err)
				}
				sink, err := filesink.New(out, filesink.Options{MaxRowsPerFile: 15})
				if err != nil {
					t.Fatal(err)
				}
				q, err := millrace.ReadStream(src).
					SelectExpr("id", "campaign", "clicks * 2 AS double").
					WriteStream(sink).Checkpoint(ckpt).FaultInjection(fault.hook).Start(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return q
			}
			q := start()
			var want []string
			id := 0
			for r := 0; r < rounds; r++ {
				for f := 0; f < filesPerRound; f++ {
					var b []byte
					for i := 0; i < rowsPerFile; i++ {
						b = fmt.Appendf(b, `{"id":%d,"campaign":"c%d","clicks":%d}`+"\n", id, id%4, id%7)
						want = append(want, fmt.Sprintf(`{"id":%d,"campaign":"c%d","double":%d}`, id, id%4, 2*(id%7)))
						id++
					}
					if err := inStore.Write(ctx, fmt.Sprintf("r%d-f%d.json", r, f), b); err != nil {
						t.Fatal(err)
					}
				}
				err := q.ProcessAllAvailable(ctx)
				if err == nil {
					continue
				}
				if !errors.Is(err, errCrash) {
					t.Fatal(err)
				}
				_ = q.Stop()
				q = start() // a new process: new source, sink and query
				if err := q.ProcessAllAvailable(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.Stop(); err != nil {
				t.Fatal(err)
			}
			if !fault.crashed {
				t.Fatalf("the query never reached step %s of batch %d", step, fault.batch)
			}
			got, err := filesink.ReadCommittedLines(out)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("output holds %d rows, input %d; output %v", len(got), len(want), got)
			}
			// no data object of the crashed attempt is left beside the log's
			batches, err := filesink.Committed(out)
			if err != nil {
				t.Fatal(err)
			}
			named := map[string]bool{}
			for _, b := range batches {
				for _, f := range b.Files {
					named[f] = true
				}
			}
			outStore, _ := storage.Open(ctx, out)
			objs, err := outStore.List(ctx, "part-")
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				if !named[out+"/"+o.Name] {
					t.Errorf("data object %s is named by no log entry", o.Name)
				}
			}
			// a file source reading the sink's output takes the committed
			// files only (the sink's log), so a chained query sees each row once
			outSchema := arrow.NewSchema([]arrow.Field{
				{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true},
				{Name: "double", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			}, nil)
			table, err := filesrc.NewTable(filesrc.Options{Path: out, Format: filesrc.JSON, Schema: outSchema})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := table.ReadAll(ctx, memory.DefaultAllocator)
			if err != nil {
				t.Fatal(err)
			}
			ids := map[int64]int{}
			for _, rec := range recs {
				col := rec.Column(0).(*array.Int64)
				for i := 0; i < col.Len(); i++ {
					ids[col.Value(i)]++
				}
				rec.Release()
			}
			for i := 0; i < id; i++ {
				if ids[int64(i)] != 1 {
					t.Fatalf("reading the sink's output: id %d appears %d times", i, ids[int64(i)])
				}
			}
			if len(ids) != id {
				t.Fatalf("reading the sink's output: %d ids, want %d", len(ids), id)
			}
		})
	}
}
