package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/sources"
	"github.com/millrace/millrace/sources/file"
)

var eventSchema = arrow.NewSchema([]arrow.Field{
	{Name: "event_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "clicks", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMalformedInput: by default a malformed JSON line or CSV row fails the
// query with an error that names the file and line; with a dead-letter sink
// the record goes there with its raw text and error, the good rows go on,
// and progress counts the routed records.
func TestMalformedInput(t *testing.T) {
	for _, format := range []file.Format{file.JSON, file.CSV} {
		t.Run(string(format), func(t *testing.T) {
			dir := t.TempDir()
			var good, bad string
			if format == file.JSON {
				good = `{"event_time":"2026-01-01T00:00:01Z","campaign":"a","clicks":3}` + "\n" +
					`{"event_time":"2026-01-01T00:00:02Z","campaign":"b","clicks":4}` + "\n"
				bad = `{"event_time":"2026-01-01T00:00:03Z","campaign":"a","clicks":5}` + "\n" +
					`{"event_time":"2026-01-01T00:00:04Z","campaign":"b","clicks":"many"}` + "\n"
			} else {
				good = "event_time,campaign,clicks\n2026-01-01 00:00:01,a,3\n2026-01-01 00:00:02,b,4\n"
				bad = "event_time,campaign,clicks\n2026-01-01 00:00:03,a,5\n2026-01-01 00:00:04,b,many\n"
			}
			ext := map[file.Format]string{file.JSON: ".json", file.CSV: ".csv"}[format]
			writeFile(t, dir, "1-good"+ext, good)
			writeFile(t, dir, "2-bad"+ext, bad)
			newSource := func() sources.Source {
				src, err := file.New(file.Options{Path: dir, Format: format, Schema: eventSchema, Header: format == file.CSV})
				if err != nil {
					t.Fatal(err)
				}
				return src
			}
			ctx := context.Background()

			// Default: the query fails and says where.
			q, err := millrace.ReadStream(newSource()).WriteStream(testutil.NewRecorder()).Trigger(millrace.AvailableNow()).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = q.AwaitTermination(ctx)
			if err == nil {
				t.Fatal("a malformed record did not fail the query")
			}
			line := map[file.Format]string{file.JSON: "line 2", file.CSV: "line 3"}[format]
			for _, want := range []string{"2-bad" + ext, line, "clicks"} {
				if !strings.Contains(err.Error(), want) {
					t.Fatalf("error %q does not name %q", err, want)
				}
			}

			// With a dead-letter sink: nothing is lost.
			out, dead := testutil.NewRecorder(), testutil.NewRecorder()
			q, err = millrace.ReadStream(newSource()).WriteStream(out).DeadLetterSink(dead).Trigger(millrace.AvailableNow()).Start(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := q.AwaitTermination(ctx); err != nil {
				t.Fatal(err)
			}
			ts := func(s int) int64 { return time.Date(2026, 1, 1, 0, 0, s, 0, time.UTC).UnixMicro() }
			want := [][]any{{ts(1), "a", int64(3)}, {ts(2), "b", int64(4)}, {ts(3), "a", int64(5)}}
			if d := testutil.Diff(out.All(), want); d != "" {
				t.Fatal(d)
			}
			dl := dead.All()
			if len(dl) != 1 {
				t.Fatalf("dead letters: %v, want one", dl)
			}
			if !strings.Contains(dl[0][0].(string), "2-bad"+ext) || (dl[0][1] != int64(2) && dl[0][1] != int64(3)) || !strings.Contains(dl[0][2].(string), "many") || !strings.Contains(dl[0][3].(string), "clicks") {
				t.Fatalf("dead letter %v does not carry file, line, raw text and error", dl[0])
			}
			var routed int
			for _, p := range q.RecentProgress() {
				if p.Sources[0].Metrics["numDeadLetterRecords"] == "1" {
					routed++
				}
			}
			if routed != 1 {
				t.Fatalf("progress events counting the dead letter: %d, want 1", routed)
			}
		})
	}
}
