package millrace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/internal/testutil"
	memsrc "github.com/millrace/millrace/sources/memory"
)

// apiSchema is the schema of the memory source the API tests read.
var apiSchema = arrow.NewSchema([]arrow.Field{{Name: "event_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "campaign", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "user", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}, nil)

// TestAnalysisErrorsAreReturnedByStart checks that mistakes in a query are
// reported by Start with a message that names the problem, never raised
// once the stream runs.
func TestAnalysisErrorsAreReturnedByStart(t *testing.T) {
	src := func() *millrace.Stream {
		return millrace.ReadStream(testutil.Must(memsrc.New(apiSchema, memsrc.Options{})))
	}
	col := millrace.Col
	cases := []struct {
		name string
		s    *millrace.Stream
		mode millrace.OutputMode
		want string
	}{
		{"unknown column in filter", src().Filter(col("nope").Gt(1)), millrace.Append, `column "nope" not found`},
		{"unknown column in select", src().Select(col("user"), col("usr")), millrace.Append, `column "usr" not found`},
		{"timestamp compared with number", src().Filter(col("event_time").Gt(3)), millrace.Append, "cannot compare"},
		{"arithmetic on a string", src().Select(col("campaign").Plus(1)), millrace.Append, "arithmetic needs numbers"},
		{"non-boolean filter", src().Filter(col("user").Plus(1)), millrace.Append, "not boolean"},
		{"watermark on a non-timestamp", src().WithWatermark("user", time.Second), millrace.Append, "must be a timestamp"},
		{"sum of a string", src().GroupBy(col("user")).Agg(millrace.Sum(col("campaign"))), millrace.Update, "needs a number"},
		{"aggregate in select", src().Select(millrace.Count()), millrace.Append, "need GroupBy"},
		{"append aggregation without watermark",
			src().GroupBy(millrace.Window(col("event_time"), time.Minute)).Count(), millrace.Append, `call WithWatermark("event_time", delay)`},
		{"append aggregation without event-time key",
			src().WithWatermark("event_time", time.Second).GroupBy(col("campaign")).Count(), millrace.Append, "append output mode is not supported"},
		{"complete mode without aggregation", src().Filter(col("user").Gt(1)), millrace.Complete, "complete output mode is not supported"},
		{"duplicate output column", src().Select(col("user"), col("user")), millrace.Append, "duplicate output column"},
		{"left anti join of two streams", src().Join(src().Select(col("user").As("u2")), col("user").Eq(col("u2")), millrace.LeftAnti), millrace.Append,
			"LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported"},
		{"window on a number", src().GroupBy(millrace.Window(col("user"), time.Minute)).Count(), millrace.Update, "needs a timestamp"},
		// The API asks textdecode (plan imports no decoder).
		{"fromJSON into a type the decoder lacks",
			src().FromJSON("campaign", arrow.NewSchema([]arrow.Field{{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String)}}, nil)),
			millrace.Append, "field tags has type list<item: utf8, nullable>, which JSON decoding does not support"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q, err := c.s.WriteStream(testutil.NewRecorder()).OutputMode(c.mode).Start(context.Background())
			if err == nil {
				_ = q.Stop()
				t.Fatalf("Start succeeded, want an error containing %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}
