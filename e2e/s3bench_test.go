package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/millrace/millrace"
	"github.com/millrace/millrace/checkpoint"
	"github.com/millrace/millrace/internal/s3test"
	"github.com/millrace/millrace/internal/testutil"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources/clicks"
	"github.com/millrace/millrace/storage"
)

// BenchmarkObjectStorage compares local disk with the S3 server (moto on
// 127.0.0.1, so the figures are moto's latency, not AWS's) in one run:
//
//   - commit: one checkpoint log entry created never-overwriting (what
//     offsets/N and commits/N cost): link(2) of a synced file vs a PUT with
//     If-None-Match: *.
//   - trigger: a windowed count over the click generator, 10K events per
//     trigger, with its checkpoint and its Delta table on the storage; the
//     figure is the steady time per trigger (between the first and the
//     last progress event), so query start and stop are left out.
//     trigger/s3-counted goes through s3test.Proxy (one more hop) to
//     count the requests: all of the run's, over its triggers.
func BenchmarkObjectStorage(b *testing.B) {
	locations := func(b *testing.B) map[string]string {
		srv := s3test.Start(b)
		srv.Setenv(b)
		b.Setenv(checkpoint.WorkDirEnv, b.TempDir())
		return map[string]string{"local": b.TempDir(), "s3": "s3://" + srv.NewBucket(b)}
	}
	for _, kind := range []string{"local", "s3"} {
		b.Run("commit/"+kind, func(b *testing.B) {
			st, err := storage.Open(context.Background(), locations(b)[kind]+"/ckpt")
			if err != nil {
				b.Fatal(err)
			}
			entry := []byte(`v1
{"batchWatermarkMs":0,"batchTimestampMs":1764620000000,"conf":{"spark.sql.shuffle.partitions":"4"}}
{"clicks":{"0":123456,"1":123457,"2":123458}}`)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := st.WriteNew(context.Background(), fmt.Sprintf("offsets/%d", i), entry); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/commit")
		})
	}
	for _, kind := range []string{"local", "s3", "s3-counted"} {
		b.Run("trigger/"+kind, func(b *testing.B) {
			const events, perTrigger = 200_000, 10_000
			var steady time.Duration
			var triggers int
			var requests int64
			for i := 0; i < b.N; i++ {
				var proxy *s3test.Proxy
				loc := locations(b)[strings.TrimSuffix(kind, "-counted")]
				if kind == "s3-counted" {
					srv := s3test.Start(b)
					proxy = srv.NewProxy(b)
					proxy.Setenv(b, srv)
				}
				src := testutil.Must(clicks.New(clicks.Options{Events: events, MaxEventsPerTrigger: perTrigger, Interval: 10 * time.Millisecond}))
				sink, err := lake.NewSink(loc+"/table", lake.SinkOptions{})
				if err != nil {
					b.Fatal(err)
				}
				clock := &progressClock{}
				q, err := millrace.ReadStream(src).
					WithWatermark("event_time", 10*time.Second).
					GroupBy(millrace.Window(millrace.Col("event_time"), time.Minute), millrace.Col("campaign_id")).
					Agg(millrace.Count().As("n")).
					WriteStream(sink).OutputMode(millrace.Append).
					Trigger(millrace.AvailableNow()).Listener(clock).
					Checkpoint(loc + "/ckpt").Start(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if err := q.AwaitTermination(context.Background()); err != nil {
					b.Fatal(err)
				}
				steady += clock.last.Sub(clock.first)
				triggers += clock.batches
				if proxy != nil {
					requests += proxy.Requests()
				}
			}
			b.ReportMetric(float64(steady.Microseconds())/1000/float64(triggers), "ms/trigger")
			if requests > 0 {
				// All requests, start and stop included, over the triggers.
				b.ReportMetric(float64(requests)/float64(triggers+b.N), "requests/trigger")
			}
		})
	}
}
