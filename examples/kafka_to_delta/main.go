// Command kafka_to_delta is the pipeline Millrace is built for: click events
// as JSON on a Kafka topic, decoded, bounded by a one-hour watermark, counted
// per (one-hour window, campaign) and written exactly once to a Delta table.
// Kill it at any moment and start it again with the same checkpoint: the
// table ends up exactly as if it had never stopped.
//
//	go run ./examples/kafka_to_delta --brokers localhost:9092 --topic clicks \
//	    --table /data/clicks_per_hour --checkpoint /data/clicks_per_hour.ckpt
//
// The table and the checkpoint may be on S3 (credentials from the standard
// AWS chain; MILLRACE_S3_ENDPOINT for an S3-compatible server), so that the
// query can restart on another machine: --table s3://bucket/clicks_per_hour
// --checkpoint s3://bucket/checkpoints/clicks_per_hour.
//
// Events look like {"event_time":"2026-01-01T10:00:00Z","campaign_id":7,"user_id":42}.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/millrace/millrace"
	"github.com/millrace/millrace/lake"
	"github.com/millrace/millrace/sources/kafka"
	_ "github.com/millrace/millrace/storage/s3store" // s3:// tables and checkpoints
)

// clickSchema is the JSON document of one click.
var clickSchema = arrow.NewSchema([]arrow.Field{
	{Name: "event_time", Type: millrace.Timestamp, Nullable: true},
	{Name: "campaign_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "user_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

func main() {
	brokers := flag.String("brokers", "localhost:9092", "Kafka bootstrap brokers, comma separated")
	topic := flag.String("topic", "clicks", "topic of JSON click events")
	table := flag.String("table", "clicks_per_hour", "Delta table to write")
	ckpt := flag.String("checkpoint", "clicks_per_hour.ckpt", "checkpoint directory")
	perTrigger := flag.Int64("max-offsets-per-trigger", 0, "records per trigger at most (0: no bound)")
	availableNow := flag.Bool("available-now", false, "process what the topic holds now, then exit")
	flag.Parse()
	if err := run(*brokers, *topic, *table, *ckpt, *perTrigger, *availableNow); err != nil {
		fmt.Fprintln(os.Stderr, "kafka_to_delta:", err)
		os.Exit(1)
	}
}

func run(brokers, topic, table, ckpt string, perTrigger int64, availableNow bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	src, err := kafka.New(kafka.Options{
		Brokers:              strings.Split(brokers, ","),
		Topics:               []string{topic},
		StartingOffsets:      "earliest",
		MaxOffsetsPerTrigger: perTrigger,
	})
	if err != nil {
		return err
	}
	counts := millrace.ReadStream(src).
		FromJSON("value", clickSchema).
		WithWatermark("event_time", time.Hour).
		GroupBy(millrace.Window(millrace.Col("event_time"), time.Hour), millrace.Col("campaign_id")).
		Agg(millrace.Count().As("clicks"))
	trigger := millrace.ProcessingTime(time.Second)
	if availableNow {
		trigger = millrace.AvailableNow()
	}
	sink, err := lake.NewSink(table, lake.SinkOptions{})
	if err != nil {
		return err
	}
	q, err := counts.WriteStream(sink).
		OutputMode(millrace.Append).
		Trigger(trigger).
		QueryName("clicks_per_hour").
		Checkpoint(ckpt).
		Start(ctx)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = q.Stop()
	}()
	return q.AwaitTermination(context.Background())
}
