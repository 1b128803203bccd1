package kinesis_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/millrace/millrace"
	_ "github.com/millrace/millrace/catalog/builtin"
	"github.com/millrace/millrace/internal/kinesistest"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sinks/memory"
)

// TestSQLTable reads a stream declared in SQL (USING kinesis) through a
// query: every record once.
func TestSQLTable(t *testing.T) {
	srv := kinesistest.Start(t)
	stream := srv.CreateStream(t, 2)
	r := rand.New(rand.NewSource(9))
	keys, data := make([]string, 40), make([]string, 40)
	for i := range keys {
		keys[i], data[i] = fmt.Sprint(r.Intn(100)), fmt.Sprint("d", i)
	}
	srv.Put(t, stream, keys, data)
	ctx := context.Background()
	se := millrace.NewSession()
	if _, err := se.Exec(ctx, fmt.Sprintf(`CREATE TABLE ev USING kinesis OPTIONS (streamName '%s', endpointUrl '%s',
		region 'us-east-1', startingPosition 'TRIM_HORIZON', maxRecordsPerTrigger 15)`, stream, srv.Endpoint())); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "millrace-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "millrace-test-secret")
	rows, err := se.SQL(ctx, "SELECT partitionKey, sequenceNumber, shardId FROM ev")
	if err != nil {
		t.Fatal(err)
	}
	sink := testutil.Must(memory.New(memory.Options{}))
	q, err := rows.WriteStream(sink).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	got := sink.Rows()
	seen := map[string]bool{}
	for _, row := range got {
		seen[fmt.Sprint(row[2], "/", row[1])] = true
	}
	if len(got) != 40 || len(seen) != 40 {
		t.Fatalf("%d rows (%d distinct), want the 40 records", len(got), len(seen))
	}
	if n := len(q.RecentProgress()); n < 3 {
		t.Fatalf("%d batches for 40 records at 15 per trigger", n)
	}
}
