package millrace_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sinks/console"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// TestDateColumnSinks writes a DATE column (to_date's result) to the sinks
// Millrace ships: the Delta table declares Delta's "date" type and reads
// back the same days; the console prints dates as Spark's show() does.
func TestDateColumnSinks(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	stream := func() *millrace.Stream {
		src := testutil.Must(memsrc.New(schema, memsrc.Options{}))
		if _, err := src.AddRows([]any{"2024-02-29 10:00:00"}, []any{"1969-12-31"}, []any{nil}); err != nil {
			t.Fatal(err)
		}
		return millrace.ReadStream(src).Select(millrace.ToDate(millrace.Col("s")).As("day"))
	}
	ctx := context.Background()

	table := filepath.Join(t.TempDir(), "table")
	q, err := stream().WriteStream(testutil.Must(lake.NewSink(table, lake.SinkOptions{}))).
		OutputMode(millrace.Append).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(filepath.Join(table, "_delta_log", "00000000000000000000.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `\"type\":\"date\"`) {
		t.Errorf("the table's schema does not declare a date column: %s", log)
	}
	snap, err := lake.LoadSnapshot(table, -1)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := snap.ReadAll(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		if r.Schema().Field(0).Type.ID() != arrow.DATE32 {
			t.Errorf("read back as %s", r.Schema().Field(0).Type)
		}
		for i := 0; i < int(r.NumRows()); i++ {
			got = append(got, r.Column(0).ValueStr(i))
		}
		r.Release()
	}
	if strings.Join(got, ",") != "2024-02-29,1969-12-31,(null)" {
		t.Errorf("Delta table holds %v", got)
	}

	var out bytes.Buffer
	q, err = stream().WriteStream(testutil.Must(console.New(console.Options{Writer: &out}))).
		OutputMode(millrace.Append).Trigger(millrace.AvailableNow()).Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AwaitTermination(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "|2024-02-29|") || !strings.Contains(out.String(), "|1969-12-31|") {
		t.Errorf("console printed:\n%s", out.String())
	}
}
