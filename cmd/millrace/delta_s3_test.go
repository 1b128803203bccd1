package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/storage"
)

// makeS3Table is makeTable in a fresh bucket on the test S3 server.
func makeS3Table(t *testing.T) (string, int64) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	return makeTableAt(t, "s3://"+srv.NewBucket(t)+"/tables/people")
}

// objectExists reports whether the table at path (local or s3://) holds
// the file at rel.
func objectExists(t *testing.T, path, rel string) bool {
	t.Helper()
	st, err := storage.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Stat(context.Background(), rel)
	if err != nil && !errors.Is(err, storage.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// `millrace delta` history, files, read, optimize and vacuum take s3://
// table paths.
func TestDeltaS3HistoryAndFiles(t *testing.T) { deltaHistoryAndFiles(t, makeS3Table) }
func TestDeltaS3Read(t *testing.T)            { deltaRead(t, makeS3Table) }
func TestDeltaS3OptimizeVacuum(t *testing.T)  { deltaOptimizeVacuum(t, makeS3Table) }

// A missing bucket is an error naming it and the operation.
func TestDeltaS3Errors(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	path := "s3://" + srv.NewBucket(t) + "-missing/people"
	_, _, err := run(t, "delta", "history", path)
	if err == nil || !strings.Contains(err.Error(), "list "+path) || !strings.Contains(err.Error(), "bucket does not exist") {
		t.Fatalf("history of a table in a missing bucket: %v", err)
	}
}
