package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/millrace/millrace/checkpoint"
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

// SQL over Delta tables on S3: a streaming INSERT INTO from one table to
// another, checkpoint on S3 too, run twice (the second run finds nothing
// new and duplicates nothing); a declared column list is checked against
// the table on S3, which it could not be while the catalog looked for a
// local _delta_log directory.
func TestSQLDeltaS3(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	t.Setenv(checkpoint.WorkDirEnv, t.TempDir())
	base := "s3://" + srv.NewBucket(t)
	in, out := base+"/tables/people", base+"/tables/copy"
	makeTableAt(t, in)
	script := fmt.Sprintf(`CREATE TABLE people USING delta LOCATION '%s';
CREATE TABLE copy USING delta LOCATION '%s';
INSERT INTO copy SELECT id, name, part FROM people`, in, out)
	for i := 1; i <= 2; i++ {
		if _, stderr, err := run(t, "sql", "--trigger", "available-now", "--checkpoint", base+"/ckpt", "-e", script); err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, stderr)
		}
		sameRows(t, fmt.Sprintf("run %d", i), csvRows(t, mustRun(t, "delta", "read", "--format", "csv", out)), wantRows(firstRows, secondRows))
	}
	_, _, err := run(t, "sql", "-e", fmt.Sprintf("CREATE TABLE p2 (id BIGINT, x STRING) USING delta LOCATION '%s'", in))
	if err == nil || !strings.Contains(err.Error(), "does not match the Delta table") {
		t.Fatalf("declared columns unlike the S3 table's: %v", err)
	}
}
